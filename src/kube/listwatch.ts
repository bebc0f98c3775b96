/**
 * The informer's transport: one LIST page at a time and one WATCH from a resourceVersion. The
 * informer only sees this interface; `kubeListWatch` binds it to a `KubeApi` and a resource type
 * (any path: ReplicaSets, Services, Rollouts, …), and the unit tests use a fake.
 */
import { isGone, type ApiError } from './errors.ts';
import type { KubeApi, ListResult, Selectors, WatchEvent, WatchHandle } from './kube-api.ts';
import type { KubeObject } from './objects.ts';
import type { ResourceType } from './resources.ts';

export interface ListPageOptions extends Selectors {
  readonly limit?: number;
  readonly continue?: string;
  readonly signal?: AbortSignal;
}

export interface WatchFromOptions extends Selectors {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly allowWatchBookmarks: boolean;
}

export interface ListWatchSource<T extends KubeObject> {
  list(opts: ListPageOptions): Promise<ListResult<T>>;
  /**
   * Rejects if the watch cannot start. Then `onDone` is called once when it ends: without an
   * argument when the server closed it, with the error otherwise; never after `abort()`.
   */
  watch(
    opts: WatchFromOptions,
    onEvent: (event: WatchEvent<T>) => void,
    onDone: (err?: ApiError) => void,
  ): Promise<WatchHandle>;
}

/** A source for `type`, in one namespace or (namespace absent) across all of them. */
export function kubeListWatch<T extends KubeObject>(
  api: KubeApi,
  type: ResourceType,
  namespace?: string,
): ListWatchSource<T> {
  const ns = namespace === undefined ? {} : { namespace };
  return {
    list: (opts) => api.list<T>(type, { ...opts, ...ns }),
    watch: (opts, onEvent, onDone) => api.watch<T>(type, { ...opts, ...ns }, onEvent, onDone),
  };
}

/**
 * A full LIST in pages of `pageSize` (`limit`/`continue`). If a continue token expires mid-way
 * (410), starts again with one unpaged LIST. `onRequest` is called per request (for stats).
 */
export async function listAll<T extends KubeObject>(
  source: ListWatchSource<T>,
  opts: Selectors & { readonly signal?: AbortSignal },
  pageSize: number,
  onRequest: () => void = () => undefined,
): Promise<{ items: T[]; resourceVersion: string }> {
  const items: T[] = [];
  let limit: number | undefined = pageSize;
  let cont: string | undefined;
  for (;;) {
    onRequest();
    let page: ListResult<T>;
    try {
      page = await source.list({
        ...opts,
        ...(limit ? { limit } : {}),
        ...(cont ? { continue: cont } : {}),
      });
    } catch (err) {
      if (cont === undefined || !isGone(err)) throw err;
      items.length = 0;
      cont = undefined;
      limit = undefined;
      continue;
    }
    items.push(...page.items);
    cont = page.continue;
    if (!cont) return { items, resourceVersion: page.resourceVersion };
  }
}
