/**
 * A `KubeApi` that serves Argo Rollouts' objects in place: every request for one of the kinds
 * both projects define goes to `argoproj.io/v1alpha1`, and every object crossing it is renamed
 * by translate.ts (out on writes, in on reads, lists and watch events). The inner client's
 * registry must know Argo's types (`withArgoTypes`).
 */
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
} from '../kube-api.ts';
import { isConflict, type ApiError } from '../errors.ts';
import type { KubeObject } from '../objects.ts';
import { Resources, ResourceRegistry, type ResourceType } from '../resources.ts';
import {
  servedType,
  translateObject,
  translateSelector,
  withoutArgoStatusOwnership,
} from './translate.ts';

/** The kinds Argo's controller writes the status of. */
const KINDS_WITH_STATUS: ReadonlyMap<string, ResourceType> = new Map([
  [Resources.Rollout.kind, Resources.Rollout],
  [Resources.AnalysisRun.kind, Resources.AnalysisRun],
]);

const out = <T>(obj: T): T => translateObject(obj, 'out');
const back = <T>(obj: T): T => translateObject(obj, 'in');

function selectorsOut<O extends ListOptions | WatchOptions>(opts: O): O {
  const labelSelector = translateSelector(opts.labelSelector, 'out');
  return labelSelector === opts.labelSelector ? opts : { ...opts, labelSelector };
}

function renamedEvent<T extends KubeObject>(event: WatchEvent<T>): WatchEvent<T> {
  switch (event.type) {
    case 'ERROR':
      return event;
    case 'BOOKMARK':
      return { type: event.type, object: back(event.object) };
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { type: event.type, object: back(event.object) };
  }
}

/** A registry with the built-in types and Argo's spelling of the kinds served in place. */
export function withArgoTypes(registry = new ResourceRegistry()): ResourceRegistry {
  for (const type of Object.values(Resources)) registry.add(servedType(type));
  return registry;
}

export class ArgoWireKubeApi implements KubeApi {
  readonly #inner: KubeApi;

  constructor(inner: KubeApi) {
    this.#inner = inner;
  }

  async get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string) {
    const got = await this.#inner.get<T>(servedType(type), namespace, name);
    return got === undefined ? undefined : back(got);
  }

  async list<T extends KubeObject>(type: ResourceType, opts?: ListOptions): Promise<ListResult<T>> {
    const res = await this.#inner.list<T>(servedType(type), opts && selectorsOut(opts));
    return { ...res, items: res.items.map(back) };
  }

  watch<T extends KubeObject>(
    type: ResourceType,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    onDone: (err?: ApiError) => void,
  ): Promise<WatchHandle> {
    return this.#inner.watch<T>(
      servedType(type),
      selectorsOut(opts),
      (event) => onEvent(renamedEvent(event)),
      onDone,
    );
  }

  async create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return back(await this.#inner.create(out(obj), opts));
  }

  async update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T> {
    return back(await this.#inner.update(out(obj), opts));
  }

  async apply<T extends KubeObject>(obj: T, opts?: ApplyOptions): Promise<T> {
    return back(await this.#inner.apply(out(obj), opts));
  }

  async applyStatus<T extends KubeObject>(obj: T, opts?: ApplyOptions): Promise<T> {
    const written = await this.#inner.applyStatus(out(obj), opts);
    return back((await this.#takeOverStatusFrom(written)) ?? written);
  }

  /** The object with Argo's controller's status ownership dropped (withoutArgoStatusOwnership),
   *  over the version just written; undefined when there was none, or someone wrote since. */
  async #takeOverStatusFrom<T extends KubeObject>(written: T): Promise<T | undefined> {
    const managedFields = withoutArgoStatusOwnership(written.metadata?.managedFields);
    const type = KINDS_WITH_STATUS.get(written.kind ?? '');
    const { name, namespace, resourceVersion } = written.metadata ?? {};
    if (managedFields === undefined || type === undefined || name === undefined) return undefined;
    try {
      return await this.#inner.patchMerge<T>(servedType(type), namespace, name, {
        metadata: { resourceVersion, managedFields },
      });
    } catch (err) {
      // The next status write tries again.
      if (isConflict(err)) return undefined;
      throw err;
    }
  }

  async patchMerge<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts?: WriteOptions,
  ): Promise<T> {
    return back(
      await this.#inner.patchMerge<T>(servedType(type), namespace, name, out(patch), opts),
    );
  }

  evict(namespace: string, name: string): Promise<boolean> {
    return this.#inner.evict(namespace, name);
  }

  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts?: DeleteOptions,
  ): Promise<boolean> {
    return this.#inner.delete(servedType(type), namespace, name, opts);
  }
}
