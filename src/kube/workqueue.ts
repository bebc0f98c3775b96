/**
 * The work queue, with client-go's guarantees (`util/workqueue`: queue.go, delaying_queue.go,
 * rate_limiting_queue.go). No Kubernetes imports.
 *
 * Three sets: `queue` (ready keys, in order), `dirty` (keys that need a pass), `processing` (keys
 * a worker holds). Adding a dirty key is a no-op; adding a key in flight marks it dirty and queues
 * it only at `done`. So a key is never held by two workers, and any number of adds during a pass
 * collapse into exactly one more pass.
 *
 * Delays: `addAfter` keeps one entry per key (the earliest deadline wins) in a min-heap and arms
 * ONE clock timer, for the earliest deadline; there is no polling loop. A key that is already
 * dirty is not scheduled: the pass about to run re-derives its own timers (level-triggered), and
 * a worker's own `addAfter(key)` while it holds a clean key is kept, in either order with `done`.
 */
import { systemClock, withCappedTimers, type Clock } from './clock.ts';
import { MinHeap } from './heap.ts';
import { ExponentialBackoffRateLimiter, type RateLimiter } from './ratelimit.ts';

export interface WorkQueue<K extends string> {
  /** No-op if dirty or shut down; held until `done` if in flight. */
  add(key: K): void;
  /** Earliest pending time wins; `ms <= 0` adds now; no-op if the key is already dirty. */
  addAfter(key: K, ms: number): void;
  /** `addAfter(key, limiter.when(key))`: counts a failure and backs off. */
  addRateLimited(key: K): void;
  /** Resets the key's failure count (after a successful pass). */
  forget(key: K): void;
  /** Failures counted since the last `forget`. */
  numRequeues(key: K): number;
  /** The next ready key, marked in flight; `undefined` once shut down. */
  get(): Promise<K | undefined>;
  /** Ends the pass; re-queues the key if it was added while in flight. */
  done(key: K): void;
  /** Ready keys waiting for a worker. */
  len(): number;
  readonly shuttingDown: boolean;
  /**
   * Stops handing out keys (pending and future `get`s resolve `undefined`, pending and delayed
   * keys are dropped, adds are ignored). With `drain`, resolves once every key in flight is done.
   */
  shutDown(opts?: { drain?: boolean }): Promise<void>;
}

/**
 * Metric sink, one per queue (client-go's `workqueue_*` family); see `metrics.ts` for the
 * prom-client adapter. Durations are in seconds.
 */
export interface QueueMetrics {
  /** `workqueue_depth`: ready keys after a change. */
  depth(n: number): void;
  /** `workqueue_adds_total`: an add that made a key dirty. */
  added(): void;
  /** `workqueue_queue_duration_seconds`: time a key waited in the queue before `get`. */
  queueLatency(seconds: number): void;
  /** `workqueue_work_duration_seconds`: time between `get` and `done`. */
  workDuration(seconds: number): void;
  /** `workqueue_retries_total`: an `addRateLimited`. */
  retried(): void;
}

export interface WorkQueueOptions<K extends string> {
  readonly clock?: Clock;
  /** Default: per-key exponential, 5 ms doubling to 10 s. */
  readonly rateLimiter?: RateLimiter<K>;
  readonly metrics?: QueueMetrics;
}

interface Delayed<K> {
  readonly key: K;
  readonly at: number;
  readonly seq: number;
}

export class RateLimitingQueue<K extends string> implements WorkQueue<K> {
  readonly #clock: Clock;
  readonly #limiter: RateLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;

  #queue: K[] = [];
  #head = 0;
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #enqueuedAt = new Map<K, number>();
  readonly #startedAt = new Map<K, number>();
  readonly #getters: ((key: K | undefined) => void)[] = [];
  readonly #drained: (() => void)[] = [];
  #shuttingDown = false;

  readonly #waiting = new Map<K, number>();
  readonly #heap = new MinHeap<Delayed<K>>(
    (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq),
  );
  #seq = 0;
  #timer: { readonly at: number; readonly cancel: () => void } | undefined;

  constructor(opts: WorkQueueOptions<K> = {}) {
    // Delays come from Rollouts (a 720 h pause, a `restartAt` years ahead): whatever clock is
    // injected, the one timer must never exceed what setTimeout can hold.
    this.#clock = withCappedTimers(opts.clock ?? systemClock);
    this.#limiter = opts.rateLimiter ?? new ExponentialBackoffRateLimiter<K>();
    this.#metrics = opts.metrics;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  len(): number {
    return this.#queue.length - this.#head;
  }

  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#metrics?.added();
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    if (this.#dirty.has(key)) return;
    const at = this.#clock.now() + ms;
    const current = this.#waiting.get(key);
    if (current !== undefined && current <= at) return;
    this.#waiting.set(key, at);
    this.#heap.push({ key, at, seq: this.#seq++ });
    this.#arm();
  }

  addRateLimited(key: K): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retried();
    this.addAfter(key, this.#limiter.when(key));
  }

  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  get(): Promise<K | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    if (this.len() > 0) return Promise.resolve(this.#take());
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(key: K): void {
    if (!this.#processing.delete(key)) return;
    const started = this.#startedAt.get(key);
    this.#startedAt.delete(key);
    if (started !== undefined) this.#metrics?.workDuration((this.#clock.now() - started) / 1000);
    if (this.#shuttingDown) {
      if (this.#processing.size === 0) for (const r of this.#drained.splice(0)) r();
      return;
    }
    if (this.#dirty.has(key)) this.#push(key);
  }

  shutDown(opts: { drain?: boolean } = {}): Promise<void> {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      this.#timer?.cancel();
      this.#timer = undefined;
      this.#heap.clear();
      this.#waiting.clear();
      this.#queue = [];
      this.#head = 0;
      this.#enqueuedAt.clear();
      this.#metrics?.depth(0);
      for (const g of this.#getters.splice(0)) g(undefined);
    }
    if (!opts.drain || this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #push(key: K): void {
    this.#enqueuedAt.set(key, this.#clock.now());
    this.#queue.push(key);
    this.#metrics?.depth(this.len());
    while (this.#getters.length > 0 && this.len() > 0) {
      const getter = this.#getters.shift() as (key: K | undefined) => void;
      getter(this.#take());
    }
  }

  /** Moves the head of the queue into flight. Only called when the queue is not empty. */
  #take(): K {
    const key = this.#queue[this.#head] as K;
    this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    const now = this.#clock.now();
    this.#processing.add(key);
    this.#dirty.delete(key);
    this.#startedAt.set(key, now);
    const enqueued = this.#enqueuedAt.get(key);
    this.#enqueuedAt.delete(key);
    this.#metrics?.depth(this.len());
    if (enqueued !== undefined) this.#metrics?.queueLatency((now - enqueued) / 1000);
    return key;
  }

  /** Keeps exactly one timer, armed for the earliest live deadline. */
  #arm(): void {
    let top = this.#heap.peek();
    while (top && this.#waiting.get(top.key) !== top.at) {
      this.#heap.pop(); // superseded by an earlier deadline for the same key
      top = this.#heap.peek();
    }
    if (this.#timer?.at === top?.at) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    if (!top) return;
    const at = top.at;
    const cancel = this.#clock.after(at - this.#clock.now(), () => this.#fire());
    this.#timer = { at, cancel };
  }

  #fire(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (let top = this.#heap.peek(); top && top.at <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      if (this.#waiting.get(top.key) !== top.at) continue;
      this.#waiting.delete(top.key);
      this.add(top.key);
    }
    this.#arm();
  }
}
