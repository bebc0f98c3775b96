/**
 * Rate limiters for the work queue (client-go's `default_rate_limiters.go`, smaller caps): a
 * limiter says how long a key that just failed waits before its next pass. `when` counts the
 * failure; `forget` (after a success) resets the key; `numRequeues` reports the count.
 */
import type { Clock } from './clock.ts';

export interface RateLimiter<K> {
  /** Delay in ms before the next pass of `key`; records one more failure. */
  when(key: K): number;
  /** Clears the key's failure history (call after a successful pass). */
  forget(key: K): void;
  /** Failures recorded since the last `forget`. */
  numRequeues(key: K): number;
}

export interface ExponentialBackoffOptions {
  /** Delay after the first failure. Default 5 ms. */
  readonly baseMs?: number;
  /** Upper bound. Default 10 s (a stuck rollout retries every 10 s, not every 16 min). */
  readonly maxMs?: number;
}

/** base × 2^failures, capped at max, per key. */
export class ExponentialBackoffRateLimiter<K> implements RateLimiter<K> {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<K, number>();

  constructor(opts: ExponentialBackoffOptions = {}) {
    this.#baseMs = opts.baseMs ?? 5;
    this.#maxMs = opts.maxMs ?? 10_000;
    if (!(this.#baseMs > 0) || !(this.#maxMs >= this.#baseMs)) {
      throw new RangeError('backoff needs 0 < baseMs <= maxMs');
    }
  }

  when(key: K): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    // 2^n overflows to Infinity only past n = 1023; Math.min handles that too.
    return Math.min(this.#maxMs, this.#baseMs * 2 ** n);
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

export interface BucketOptions {
  /** Sustained passes per second across all keys. */
  readonly qps: number;
  /** Passes allowed at once before the rate applies. */
  readonly burst: number;
}

/**
 * An overall token bucket (client-go's `BucketRateLimiter`): each `when` reserves a token and
 * returns how long until it is available. Protects the API server when many keys fail at once.
 */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(clock: Clock, opts: BucketOptions) {
    if (!(opts.qps > 0) || !(opts.burst >= 1))
      throw new RangeError('bucket needs qps > 0, burst >= 1');
    this.#clock = clock;
    this.#qps = opts.qps;
    this.#burst = opts.burst;
    this.#tokens = opts.burst;
    this.#last = clock.now();
  }

  when(_key: K): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#qps) * 1000);
  }

  forget(_key: K): void {}

  numRequeues(_key: K): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's `MaxOfRateLimiter`). */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  readonly #limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(key: K): number {
    // Every limiter must see the failure, so no short-circuit.
    return Math.max(...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: K): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: K): number {
    return Math.max(...this.#limiters.map((l) => l.numRequeues(key)));
  }
}
