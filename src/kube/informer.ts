/**
 * An informer: LIST (paged), then WATCH from the list's resourceVersion, keeping a cache and
 * calling handlers. What it guards against (Pepr's ADR 0015 describes the failure: watches that
 * silently stop delivering):
 * - 410 Gone / Expired (an ERROR event or an HTTP status): re-LIST, then watch again.
 * - A watch that goes silent: bookmarks (`allowWatchBookmarks`) arrive about once a minute, so a
 *   watchdog restarts a watch that has sent nothing for `watchdogMs` (default 3 min), from the
 *   last resourceVersion (no LIST).
 * - Server-side timeout (`timeoutSeconds`, 5–10 min, jittered): re-watch at once, no LIST.
 * - Errors: jittered backoff from 800 ms (client-go's reflector), capped at 2 s: back within ~2 s
 *   of an API server's return (a 30 s cap idled up to 30 s), yet 1 request / 1-2 s per informer
 *   does not hammer a dead server; honours Retry-After. `onResumed` tells the owner it is back.
 * Periodic re-LIST is off by default: an idle controller makes no LISTs after its caches sync.
 */
import { sleep, systemClock, type Clock } from './clock.ts';
import { apiStatusError, ApiStatusError, isGone } from './errors.ts';
import type { Selectors, WatchEvent } from './kube-api.ts';
import { listAll, type ListWatchSource } from './listwatch.ts';
import { errorText, silentLogger, type Logger } from './log.ts';
import { objectKey, stripManagedFields, type KubeObject, type ObjectKey } from './objects.ts';
import { cachedForm, Store, type Cache, type IndexFunc } from './store.ts';
import { startWatch, type WatchOutcome, type WatchSession } from './watch-session.ts';

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  /** Only when the resourceVersion changed. */
  onUpdate?(oldObj: T, newObj: T): void;
  /** With the last state seen (the watch's final object, or the cached one after a re-LIST). */
  onDelete?(obj: T): void;
}

export interface InformerOptions<T extends KubeObject> extends Selectors {
  readonly source: ListWatchSource<T>;
  /** For logs: e.g. `replicasets.apps`. */
  readonly name?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly random?: () => number;
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  /** Applied to every object before it is cached. Default: drop `metadata.managedFields`. */
  readonly transform?: (obj: T) => T;
  /** LIST page size. Default 500. */
  readonly pageSize?: number;
  /** Base server-side watch timeout; each watch uses base × [1, 2). Default 300. */
  readonly watchTimeoutSeconds?: number;
  /** Restart a watch silent for this long. Default 180 000 (bookmarks come about every 60 s). */
  readonly watchdogMs?: number;
  /** Backoff after errors: first delay and cap. Defaults 800 ms and 2 s. */
  readonly backoffInitialMs?: number;
  readonly backoffMaxMs?: number;
  /** Re-LIST this often even when nothing failed. Default: never. */
  readonly relistIntervalMs?: number;
  /** The server answers again after failures: re-queue work waiting out a backoff. No throw. */
  readonly onResumed?: () => void;
}

export interface InformerStats {
  lists: number;
  watches: number;
  relistsAfterGone: number;
  watchdogRestarts: number;
  errors: number;
  handlerErrors: number;
}

export class Informer<T extends KubeObject> implements Cache<T> {
  readonly stats: InformerStats = {
    lists: 0,
    watches: 0,
    relistsAfterGone: 0,
    watchdogRestarts: 0,
    errors: 0,
    handlerErrors: 0,
  };
  /** Resolves `true` once the first LIST is cached, `false` if stopped before that. */
  readonly synced: Promise<boolean>;

  readonly #o: InformerOptions<T>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  readonly #transform: (obj: T) => T;
  readonly #store: Store<T>;
  readonly #handlers = new Set<EventHandler<T>>();
  readonly #stop = new AbortController();
  #resolveSynced: (v: boolean) => void = () => undefined;
  #hasSynced = false;
  #rv: string | undefined;
  #lastListAt = 0;
  #session: WatchSession | undefined;
  #running: Promise<void> | undefined;
  /** A list or watch failed since the last success. */
  #failing = false;

  constructor(opts: InformerOptions<T>) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.logger ?? silentLogger;
    this.#random = opts.random ?? Math.random;
    this.#transform = opts.transform ?? stripManagedFields;
    this.#store = new Store<T>(opts.indexers);
    this.synced = new Promise((r) => (this.#resolveSynced = r));
  }

  get size(): number {
    return this.#store.size;
  }
  get(key: ObjectKey): T | undefined {
    return this.#store.get(key);
  }
  list(): T[] {
    return this.#store.list();
  }
  keys(): ObjectKey[] {
    return this.#store.keys();
  }
  byIndex(name: string, value: string): T[] {
    return this.#store.byIndex(name, value);
  }
  hasSynced(): boolean {
    return this.#hasSynced;
  }
  /** The resourceVersion the next watch starts from (the last one seen). */
  lastResourceVersion(): string | undefined {
    return this.#rv;
  }

  /** Registers handlers; objects already cached are replayed as adds. Returns an unsubscribe. */
  addEventHandler(h: EventHandler<T>): () => void {
    this.#handlers.add(h);
    for (const obj of this.#store.list()) this.#call(h, 'onAdd', obj);
    return () => this.#handlers.delete(h);
  }

  /** Starts the LIST/WATCH loop (once). */
  start(): void {
    this.#running ??= this.#run();
  }

  /** Ends the watch and the loop; resolves once the loop has exited. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#session?.end('stopped');
    this.#resolveSynced(false);
    await this.#running;
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#stop.signal.aborted) {
      let phase: 'list' | 'watch' = 'list';
      try {
        if (this.#rv === undefined) {
          await this.#listAll();
          failures = 0;
          this.#resumed();
        }
        phase = 'watch';
        const started = this.#clock.now();
        const { outcome, events } = await this.#watch(this.#rv as string);
        this.#session = undefined;
        if (outcome === 'gone') {
          this.stats.relistsAfterGone++;
          this.#rv = undefined;
        } else if (outcome === 'relist') {
          this.#rv = undefined;
        }
        // A watch the server closes at once with nothing in it must not become a hot loop.
        if (outcome === 'closed' && events === 0 && this.#clock.now() - started < 1000) failures++;
        else failures = 0;
        if (failures > 0) await this.#backoff(failures);
      } catch (err) {
        if (this.#stop.signal.aborted) break;
        this.stats.errors++;
        if (phase === 'watch' && isGone(err)) {
          this.stats.relistsAfterGone++;
          this.#rv = undefined;
          continue;
        }
        this.#failing = true;
        failures++;
        this.#log.warn(`informer ${this.#o.name ?? ''}: ${phase} failed`, {
          error: errorText(err),
          failures,
        });
        await this.#backoff(failures, err);
      }
    }
  }

  #resumed(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#o.onResumed?.();
  }

  #backoff(failures: number, err?: unknown): Promise<void> {
    const initial = this.#o.backoffInitialMs ?? 800;
    const max = this.#o.backoffMaxMs ?? 2_000;
    const ceiling = Math.min(max, initial * 2 ** Math.min(failures - 1, 30));
    let ms = ceiling / 2 + (this.#random() * ceiling) / 2; // "equal jitter": never above the cap
    const retryAfter = err instanceof ApiStatusError ? err.retryAfterSeconds : undefined;
    if (retryAfter !== undefined) ms = Math.max(ms, retryAfter * 1000);
    return sleep(this.#clock, ms, this.#stop.signal);
  }

  async #listAll(): Promise<void> {
    const { items, resourceVersion } = await listAll(
      this.#o.source,
      { ...this.#selectors(), signal: this.#stop.signal },
      this.#o.pageSize ?? 500,
      () => this.stats.lists++,
    );
    if (!this.#stop.signal.aborted) this.#replace(items, resourceVersion);
  }

  #replace(items: readonly T[], rv: string): void {
    const seen = new Set<ObjectKey>();
    for (const raw of items) {
      const obj = this.#prepare(raw);
      const key = objectKey(obj);
      seen.add(key);
      this.#upsert(key, obj);
    }
    for (const key of this.#store.keys()) {
      if (seen.has(key)) continue;
      const gone = this.#store.delete(key) as T;
      this.#emit('onDelete', gone);
    }
    this.#rv = rv;
    this.#lastListAt = this.#clock.now();
    if (!this.#hasSynced) {
      this.#hasSynced = true;
      this.#resolveSynced(true);
    }
  }

  #prepare(raw: T): T {
    return cachedForm(raw, this.#transform);
  }

  #upsert(key: ObjectKey, obj: T): void {
    const prev = this.#store.set(key, obj);
    if (!prev) this.#emit('onAdd', obj);
    else if (prev.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
      this.#emit('onUpdate', prev, obj);
    }
  }

  /** One watch from `rv`, until it ends. */
  #watch(rv: string): Promise<{ outcome: WatchOutcome; events: number }> {
    const base = this.#o.watchTimeoutSeconds ?? 300;
    const every = this.#o.relistIntervalMs;
    this.stats.watches++;
    const session = startWatch<T>({
      source: this.#o.source,
      clock: this.#clock,
      watch: {
        ...this.#selectors(),
        resourceVersion: rv,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(base * (1 + this.#random())),
      },
      watchdogMs: this.#o.watchdogMs ?? 180_000,
      ...(every === undefined ? {} : { relistAt: this.#lastListAt + every }),
      onEvent: (e) => this.#apply(e),
      onStarted: () => this.#resumed(),
      onWatchdog: (idleMs) => {
        this.stats.watchdogRestarts++;
        this.#log.warn(`informer ${this.#o.name ?? ''}: watch silent, restarting`, { idleMs });
      },
    });
    this.#session = session;
    if (this.#stop.signal.aborted) session.end('stopped');
    return session.done;
  }

  /** Applies one watch event to the cache and the handlers; throws for an ERROR event. */
  #apply(e: WatchEvent<T>): void {
    switch (e.type) {
      case 'BOOKMARK':
        this.#rv = e.object.metadata?.resourceVersion ?? this.#rv;
        return;
      case 'ERROR':
        throw apiStatusError(e.object.code ?? 500, { kind: 'Status', ...e.object });
      case 'ADDED':
      case 'MODIFIED': {
        const obj = this.#prepare(e.object);
        this.#upsert(objectKey(obj), obj);
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        return;
      }
      case 'DELETED': {
        const obj = this.#prepare(e.object);
        this.#store.delete(objectKey(obj));
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        this.#emit('onDelete', obj);
        return;
      }
    }
  }

  #selectors(): Selectors {
    const { labelSelector, fieldSelector } = this.#o;
    return {
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
    };
  }

  #emit(kind: 'onAdd' | 'onDelete', obj: T): void;
  #emit(kind: 'onUpdate', oldObj: T, newObj: T): void;
  #emit(kind: keyof EventHandler<T>, a: T, b?: T): void {
    for (const h of this.#handlers) this.#call(h, kind, a, b);
  }

  #call(h: EventHandler<T>, kind: keyof EventHandler<T>, a: T, b?: T): void {
    try {
      if (kind === 'onUpdate') h.onUpdate?.(a, b as T);
      else h[kind]?.(a);
    } catch (err) {
      this.stats.handlerErrors++;
      this.#log.error(`informer ${this.#o.name ?? ''}: ${kind} handler threw`, {
        error: errorText(err),
      });
    }
  }
}
