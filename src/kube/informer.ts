/**
 * Our informer: LIST (paged) then WATCH from the list's resourceVersion, with bookmarks, a
 * jittered server-side timeout, a watchdog for silent connections, a re-list on 410 Gone, and
 * backoff on errors. A watch that ends normally resumes from the last resourceVersion without a
 * LIST, so an idle informer makes no LIST at all (no periodic resync unless asked for).
 */
import type { Clock } from './clock.ts';
import { sleep, systemClock } from './clock.ts';
import type { ApiError } from './errors.ts';
import { isGone } from './errors.ts';
import type { Selectors, WatchEvent, WatchHandle } from './kube-api.ts';
import type { ListWatchSource } from './listwatch.ts';
import type { Logger } from './log.ts';
import { errorText, silentLogger } from './log.ts';
import type { KubeObject } from './objects.ts';
import { objectKey, stripManagedFields } from './objects.ts';
import type { Cache, IndexFunc } from './store.ts';
import { Store } from './store.ts';

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  /** Only when the resourceVersion changed. */
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions<T extends KubeObject> extends Selectors {
  readonly name: string;
  readonly source: ListWatchSource<T>;
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  /** Applied to every object before it is cached; default drops managedFields. */
  readonly transform?: (obj: T) => T;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly pageSize?: number;
  /** Server-side watch timeout; jittered up to +50% so watches do not all end together. */
  readonly watchTimeoutSeconds?: number;
  /** Restart a watch that has delivered nothing (not even a bookmark) for this long. */
  readonly watchdogMs?: number;
  /** Periodic re-list; 0 (default) never. */
  readonly resyncMs?: number;
  readonly maxBackoffMs?: number;
  readonly random?: () => number;
}

type WatchEnd = 'closed' | 'gone' | 'error' | 'silent' | 'resync' | 'stopped';

export class Informer<T extends KubeObject> {
  readonly #opts: InformerOptions<T>;
  readonly #store: Store<T>;
  readonly #handlers: InformerHandlers<T>[] = [];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #stop = new AbortController();
  #synced = false;
  #resolveSynced!: () => void;
  readonly synced: Promise<void>;
  #running: Promise<void> | undefined;
  /** Counters for tests and benchmarks. */
  readonly stats = { lists: 0, watches: 0, relistsOnGone: 0, watchdogRestarts: 0 };

  constructor(opts: InformerOptions<T>) {
    this.#opts = opts;
    this.#store = new Store<T>(opts.indexers);
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.log ?? silentLogger;
    this.synced = new Promise((resolve) => (this.#resolveSynced = resolve));
  }

  get name(): string {
    return this.#opts.name;
  }

  get store(): Cache<T> {
    return this.#store;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  on(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
  }

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        let rv = await this.#listAll();
        failures = 0;
        for (;;) {
          const end = await this.#watch(rv, (next) => (rv = next));
          if (end === 'stopped' || end === 'gone' || end === 'resync') break;
          if (end === 'error') {
            failures++;
            await sleep(this.#clock, this.#backoff(failures), signal);
          } else {
            failures = 0;
          }
          if (signal.aborted) break;
        }
      } catch (err) {
        if (signal.aborted) break;
        failures++;
        this.#log.warn('list failed, retrying', {
          informer: this.#opts.name,
          error: errorText(err),
        });
        await sleep(this.#clock, this.#backoff(failures), signal);
      }
    }
  }

  #backoff(failures: number): number {
    const max = this.#opts.maxBackoffMs ?? 30_000;
    const base = Math.min(max, 100 * 2 ** Math.min(failures, 20));
    return base / 2 + (this.#opts.random ?? Math.random)() * (base / 2);
  }

  /** Lists every page, replaces the cache, fires the differences; returns the list's RV. */
  async #listAll(): Promise<string> {
    this.stats.lists++;
    const seen = new Map<string, T>();
    let cont: string | undefined;
    let rv: string;
    do {
      const page = await this.#opts.source.list({
        labelSelector: this.#opts.labelSelector,
        fieldSelector: this.#opts.fieldSelector,
        limit: this.#opts.pageSize ?? 500,
        continue: cont,
        signal: this.#stop.signal,
      });
      for (const item of page.items) seen.set(objectKey(item), this.#prepare(item));
      cont = page.continue || undefined;
      rv = page.resourceVersion;
    } while (cont !== undefined);
    for (const key of this.#store.keys()) {
      if (!seen.has(key)) {
        const gone = this.#store.delete(key);
        if (gone) this.#fire((h) => h.onDelete?.(gone));
      }
    }
    for (const [key, obj] of seen) this.#upsert(key, obj);
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
      this.#log.debug('informer synced', { informer: this.#opts.name, objects: seen.size });
    }
    return rv;
  }

  /** One watch session from `rv`; resolves with why it ended. */
  #watch(rv: string, setRv: (rv: string) => void): Promise<WatchEnd> {
    const signal = this.#stop.signal;
    if (signal.aborted) return Promise.resolve('stopped');
    this.stats.watches++;
    const base = this.#opts.watchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.round(base * (1 + 0.5 * (this.#opts.random ?? Math.random)()));
    return new Promise<WatchEnd>((resolve) => {
      let handle: WatchHandle | undefined;
      let ended = false;
      let cancelWatchdog = (): void => undefined;
      let cancelResync = (): void => undefined;
      const finish = (why: WatchEnd): void => {
        if (ended) return;
        ended = true;
        cancelWatchdog();
        cancelResync();
        signal.removeEventListener('abort', onAbort);
        if (why !== 'closed') handle?.abort();
        resolve(why);
      };
      const armWatchdog = (): void => {
        cancelWatchdog();
        cancelWatchdog = this.#clock.after(this.#opts.watchdogMs ?? 180_000, () => {
          this.stats.watchdogRestarts++;
          this.#log.warn('watch silent too long, restarting it', { informer: this.#opts.name });
          finish('silent');
        });
      };
      const onAbort = (): void => finish('stopped');
      signal.addEventListener('abort', onAbort, { once: true });
      if ((this.#opts.resyncMs ?? 0) > 0) {
        cancelResync = this.#clock.after(this.#opts.resyncMs ?? 0, () => finish('resync'));
      }
      armWatchdog();
      const onEvent = (e: WatchEvent<T>): void => {
        if (ended) return;
        armWatchdog();
        if (e.type === 'ERROR') {
          const gone = e.object.code === 410 || ['Expired', 'Gone'].includes(e.object.reason ?? '');
          if (gone) this.stats.relistsOnGone++;
          finish(gone ? 'gone' : 'error');
          return;
        }
        const next = e.object.metadata?.resourceVersion;
        if (next) setRv(next);
        if (e.type === 'BOOKMARK') return;
        const obj = this.#prepare(e.object);
        const key = objectKey(obj);
        if (e.type === 'DELETED') {
          const prev = this.#store.delete(key);
          this.#fire((h) => h.onDelete?.(prev ?? obj));
        } else {
          this.#upsert(key, obj);
        }
      };
      const onDone = (err?: ApiError): void => {
        if (err === undefined) return finish('closed');
        if (isGone(err)) {
          this.stats.relistsOnGone++;
          return finish('gone');
        }
        this.#log.warn('watch failed', { informer: this.#opts.name, error: errorText(err) });
        finish('error');
      };
      this.#opts.source
        .watch(
          {
            resourceVersion: rv,
            timeoutSeconds,
            allowWatchBookmarks: true,
            labelSelector: this.#opts.labelSelector,
            fieldSelector: this.#opts.fieldSelector,
          },
          onEvent,
          onDone,
        )
        .then(
          (h) => {
            handle = h;
            if (ended) h.abort();
          },
          (err: unknown) => {
            if (isGone(err)) {
              this.stats.relistsOnGone++;
              finish('gone');
            } else {
              this.#log.warn('watch did not start', {
                informer: this.#opts.name,
                error: errorText(err),
              });
              finish('error');
            }
          },
        );
    });
  }

  #prepare(obj: T): T {
    const out = (this.#opts.transform ?? stripManagedFields)(obj);
    return deepFreeze(out);
  }

  #upsert(key: string, obj: T): void {
    const prev = this.#store.set(key, obj);
    if (prev === undefined) this.#fire((h) => h.onAdd?.(obj));
    else if (prev.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      this.#fire((h) => h.onUpdate?.(prev, obj));
    }
  }

  #fire(call: (h: InformerHandlers<T>) => void): void {
    for (const h of this.#handlers) {
      try {
        call(h);
      } catch (err) {
        this.#log.error('informer handler threw', {
          informer: this.#opts.name,
          error: errorText(err),
        });
      }
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
