/**
 * `RestKubeApi`: the real `KubeApi`, over the REST client. Writes of what Stepwise owns go
 * through server-side apply under our field manager (`apply`; `applyStatus` through the status
 * subresource), forced, carrying only the fields the caller set.
 */
import { FIELD_MANAGER } from '../api/index.ts';
import { isNotFound, KubeTransportError, type ApiError } from './errors.ts';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeApi,
  ListOptions,
  ListResult,
  WatchEvent,
  WatchHandle,
  WatchOptions,
  WriteOptions,
} from './kube-api.ts';
import type { KubeObject } from './objects.ts';
import {
  apiVersionOf,
  collectionPath,
  objectPath,
  resourceLabel,
  ResourceRegistry,
  type ResourceType,
} from './resources.ts';
import {
  RestClient,
  type HttpTransport,
  type HttpRequest,
  type Query,
  type RestClientOptions,
} from './rest.ts';

export interface RestKubeApiOptions {
  /** Default `stepwise-controller`. */
  readonly fieldManager?: string;
  /** Types for `apply`/`create`/`update` beyond the built-in table. */
  readonly registry?: ResourceRegistry;
  /** `Strict` (default) makes the server reject unknown or duplicate fields in our writes. */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

const APPLY = 'application/apply-patch+yaml'; // JSON is YAML
const MERGE = 'application/merge-patch+json';
const JSON_TYPE = 'application/json';

export class RestKubeApi implements KubeApi {
  readonly #rest: RestClient;
  readonly #fieldManager: string;
  readonly #registry: ResourceRegistry;
  readonly #fieldValidation: string;

  constructor(rest: RestClient, opts: RestKubeApiOptions = {}) {
    this.#rest = rest;
    this.#fieldManager = opts.fieldManager ?? FIELD_MANAGER;
    this.#registry = opts.registry ?? new ResourceRegistry();
    this.#fieldValidation = opts.fieldValidation ?? 'Strict';
  }

  async get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string) {
    const path = objectPath(type, namespace, name);
    try {
      return fill(type, await this.#rest.request<T>({ method: 'GET', path }, meta('get', type)));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject>(
    type: ResourceType,
    opts: ListOptions = {},
  ): Promise<ListResult<T>> {
    const req: HttpRequest = {
      method: 'GET',
      path: collectionPath(type, opts.namespace),
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      },
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    const body = await this.#rest.request<{
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    }>(req, meta('list', type));
    const next = body.metadata?.continue;
    return {
      items: (body.items ?? []).map((o) => fill(type, o)),
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(next ? { continue: next } : {}),
    };
  }

  watch<T extends KubeObject>(
    type: ResourceType,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    onDone: (err?: ApiError) => void,
  ): Promise<WatchHandle> {
    const query: Query = {
      watch: true,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks,
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
    };
    const req: HttpRequest = { method: 'GET', path: collectionPath(type, opts.namespace), query };
    let handle: WatchHandle | undefined;
    const decode = (raw: unknown): void => {
      const e = raw as { type?: unknown; object?: unknown } | null;
      if (typeof e?.type === 'string' && typeof e.object === 'object' && e.object !== null) {
        onEvent(e as WatchEvent<T>);
        return;
      }
      handle?.abort();
      onDone(new KubeTransportError(`watch ${resourceLabel(type)}: malformed event`));
    };
    return this.#rest.watch(req, meta('watch', type), decode, onDone).then((h) => (handle = h));
  }

  async create<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const type = this.#registry.typeOf(obj);
    const path = collectionPath(type, obj.metadata?.namespace);
    return this.#write('POST', 'create', type, path, JSON.stringify(obj), JSON_TYPE, opts);
  }

  async update<T extends KubeObject>(obj: T, opts: WriteOptions = {}): Promise<T> {
    const type = this.#registry.typeOf(obj);
    const path = objectPath(type, obj.metadata?.namespace, obj.metadata?.name ?? '');
    return this.#write('PUT', 'update', type, path, JSON.stringify(obj), JSON_TYPE, opts);
  }

  async apply<T extends KubeObject>(obj: T, opts: ApplyOptions = {}): Promise<T> {
    return this.#apply(obj, undefined, opts);
  }

  async applyStatus<T extends KubeObject>(obj: T, opts: ApplyOptions = {}): Promise<T> {
    return this.#apply(obj, 'status', opts);
  }

  async patchMerge<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts: WriteOptions = {},
  ): Promise<T> {
    const path = objectPath(type, namespace, name, opts.subresource);
    return this.#write('PATCH', 'patch', type, path, JSON.stringify(patch), MERGE, opts);
  }

  /** POST pods/NAME/eviction: a delete that honours PodDisruptionBudgets. False if gone. */
  async evict(namespace: string, name: string): Promise<boolean> {
    const type = this.#registry.typeOf({ apiVersion: 'v1', kind: 'Pod' });
    const path = objectPath(type, namespace, name, 'eviction');
    const body = JSON.stringify({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name, namespace },
    });
    const req: HttpRequest = {
      method: 'POST',
      path,
      headers: { 'Content-Type': JSON_TYPE },
      body,
    };
    try {
      await this.#rest.request(req, meta('create', type, 'eviction'));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ) {
    const body = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...opts });
    const req: HttpRequest = {
      method: 'DELETE',
      path: objectPath(type, namespace, name),
      headers: { 'Content-Type': JSON_TYPE },
      body,
    };
    try {
      await this.#rest.request(req, meta('delete', type));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async #apply<T extends KubeObject>(
    obj: T,
    subresource: string | undefined,
    opts: ApplyOptions,
  ): Promise<T> {
    const type = this.#registry.typeOf(obj);
    const path = objectPath(type, obj.metadata?.namespace, obj.metadata?.name ?? '', subresource);
    const { managedFields: _omit, ...metadata } = obj.metadata ?? {};
    const body = JSON.stringify({ ...obj, metadata });
    return this.#write('PATCH', 'apply', type, path, body, APPLY, {
      ...opts,
      ...(subresource ? { subresource } : {}),
      force: opts.force ?? true,
    });
  }

  async #write<T extends KubeObject>(
    method: HttpRequest['method'],
    verb: string,
    type: ResourceType,
    path: string,
    body: string,
    contentType: string,
    opts: WriteOptions & { force?: boolean },
  ): Promise<T> {
    const req: HttpRequest = {
      method,
      path,
      headers: { 'Content-Type': contentType },
      body,
      query: {
        fieldManager: opts.fieldManager ?? this.#fieldManager,
        fieldValidation: this.#fieldValidation,
        force: opts.force,
        dryRun: opts.dryRun ? 'All' : undefined,
      },
    };
    return fill(type, await this.#rest.request<T>(req, meta(verb, type, opts.subresource)));
  }
}

function meta(verb: string, type: ResourceType, subresource?: string) {
  return { verb, resource: resourceLabel(type, subresource) };
}

function fill<T extends KubeObject>(type: ResourceType, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: apiVersionOf(type), kind: type.kind };
}

/** A `KubeApi` over a transport (https-transport.ts, or client-node's for plugin users). */
export function kubeApiOver(
  transport: HttpTransport,
  opts: RestKubeApiOptions & RestClientOptions = {},
): RestKubeApi {
  return new RestKubeApi(new RestClient(transport, opts), opts);
}
