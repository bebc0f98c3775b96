/**
 * A local copy of a set of objects, kept current by list + watch: the list gives the objects
 * and a resourceVersion, the watch continues from it; a clean close or a dropped stream
 * resumes from the last resourceVersion seen, and "410 Gone" (version too old) lists again.
 */
import type { ObjectList, WatchStream } from './client.ts';
import { httpStatusOf } from './errors.ts';

export interface Source<T> {
  list(): Promise<ObjectList<T>>;
  watch(resourceVersion: string, onEvent: (type: string, object: unknown) => void): WatchStream;
}

interface Meta {
  metadata?: { uid?: string; name?: string; namespace?: string; resourceVersion?: string };
}

const keyOf = (o: Meta): string =>
  o.metadata?.uid ?? `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export interface MirrorOptions {
  /** Called after every change to `items` (not for bookmarks). */
  onChange: () => void;
  /** Called when the stream fails and will be retried (for a diagnostic on stderr). */
  onRetry?: (err: unknown) => void;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms).unref());

export class Mirror<T extends Meta> {
  readonly items = new Map<string, T>();
  private readonly source: Source<T>;
  private readonly opts: MirrorOptions;
  private resourceVersion = '';
  private stream: WatchStream | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(source: Source<T>, opts: MirrorOptions) {
    this.source = source;
    this.opts = opts;
  }

  get values(): T[] {
    return [...this.items.values()];
  }

  /** Lists (errors reach the caller), then watches in the background until stop(). */
  async start(): Promise<void> {
    await this.relist();
    this.loop = this.run();
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
  }

  /** Resolves when the background loop has ended after stop(). */
  async closed(): Promise<void> {
    await this.loop;
  }

  private async relist(): Promise<void> {
    const list = await this.source.list();
    this.items.clear();
    for (const item of list.items) this.items.set(keyOf(item), item);
    this.resourceVersion = list.resourceVersion;
    this.opts.onChange();
  }

  private async run(): Promise<void> {
    const sleep = this.opts.sleep ?? defaultSleep;
    let backoff = 250;
    let expired = false;
    while (!this.stopped) {
      let err: unknown = null;
      if (expired) {
        try {
          await this.relist();
          expired = false;
        } catch (e) {
          err = e;
        }
      }
      if (!err && !expired) {
        const stream = this.source.watch(this.resourceVersion, (type, object) => {
          if (this.apply(type, object)) backoff = 250;
          else expired = true;
        });
        this.stream = stream;
        if (this.stopped) stream.stop();
        err = await stream.done;
        if (expired) stream.stop();
      }
      if (this.stopped) return;
      if (httpStatusOf(err) === 410) expired = true;
      if (err) {
        this.opts.onRetry?.(err);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      } else if (!expired) {
        await sleep(50);
      }
    }
  }

  /** false: the watch reported "resource version too old"; list again. */
  private apply(type: string, object: unknown): boolean {
    const obj = object as T & { code?: number; kind?: string };
    if (type === 'ERROR') return obj.code !== 410;
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (type === 'BOOKMARK') return true;
    if (type === 'DELETED') this.items.delete(keyOf(obj));
    else if (type === 'ADDED' || type === 'MODIFIED') this.items.set(keyOf(obj), obj);
    else return true;
    this.opts.onChange();
    return true;
  }
}

/**
 * Calls `fn` at most once per `intervalMs` (~4 per second for 250 ms), always after the last
 * request: a burst of changes renders once at its start and once at its end.
 */
export class Throttle {
  private readonly fn: () => void;
  private readonly intervalMs: number;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(fn: () => void, intervalMs = 250, now: () => number = Date.now) {
    this.fn = fn;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  request(): void {
    if (this.timer) return;
    const wait = this.last + this.intervalMs - this.now();
    if (wait <= 0) {
      this.fire();
      return;
    }
    this.timer = setTimeout(() => this.fire(), wait);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.last = this.now();
    this.fn();
  }
}
