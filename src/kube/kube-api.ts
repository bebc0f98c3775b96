/**
 * `KubeApi`: the narrow cluster interface the controller, the informers, the Lease and the event
 * recorder use, so tests can swap it (test/fixtures/kube/fake-kube-api.ts). `RestKubeApi` in
 * apply.ts is the real one.
 */
import type { ApiError, Status } from './errors.ts';
import type { KubeObject } from './objects.ts';
import type { ResourceType } from './resources.ts';

export interface Selectors {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface ListOptions extends Selectors {
  /** All namespaces when absent (for namespaced types). */
  readonly namespace?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly signal?: AbortSignal;
}

export interface ListResult<T> {
  /** Each item with `apiVersion` and `kind` filled in (the server leaves them out of lists). */
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

export interface WatchOptions extends Selectors {
  readonly namespace?: string;
  readonly resourceVersion: string;
  /** Server-side timeout: the server closes the watch cleanly after this long. */
  readonly timeoutSeconds?: number;
  readonly allowWatchBookmarks?: boolean;
}

export type WatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly object: Status };

export interface WatchHandle {
  /** Ends the watch; its callbacks are not called afterwards. */
  abort(): void;
}

export interface ApplyOptions {
  /** Default `stepwise-controller`. */
  readonly fieldManager?: string;
  /** Take over fields another manager set (conflicts are not errors). Default true. */
  readonly force?: boolean;
  readonly dryRun?: boolean;
}

export interface WriteOptions {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
  /** For `patchMerge`, e.g. `status`. */
  readonly subresource?: string;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly gracePeriodSeconds?: number;
}

export interface KubeApi {
  /** The object, or `undefined` if it does not exist. */
  get<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined>;
  list<T extends KubeObject>(type: ResourceType, opts?: ListOptions): Promise<ListResult<T>>;
  /** Rejects if the watch cannot start; `onDone` once when it ends (no argument: closed by the server). */
  watch<T extends KubeObject>(
    type: ResourceType,
    opts: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    onDone: (err?: ApiError) => void,
  ): Promise<WatchHandle>;
  create<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT: fails with a Conflict unless `metadata.resourceVersion` is current. */
  update<T extends KubeObject>(obj: T, opts?: WriteOptions): Promise<T>;
  /** Server-side apply (`application/apply-patch+yaml`), forced by default. */
  apply<T extends KubeObject>(obj: T, opts?: ApplyOptions): Promise<T>;
  /** Server-side apply to the `status` subresource. */
  applyStatus<T extends KubeObject>(obj: T, opts?: ApplyOptions): Promise<T>;
  patchMerge<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts?: WriteOptions,
  ): Promise<T>;
  /** Evicts a pod (PodDisruptionBudget-aware delete); `false` if it was already gone. */
  evict(namespace: string, name: string): Promise<boolean>;
  /** `false` if it was already gone. */
  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts?: DeleteOptions,
  ): Promise<boolean>;
}
