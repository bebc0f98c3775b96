/**
 * The client-side rate limit on API requests (`--qps`/`--burst`), client-go's
 * `flowcontrol.NewTokenBucketRateLimiter`: the bucket holds up to `burst` tokens and refills at
 * `qps` per second; each request takes one, waiting for it if the bucket is empty. One bucket is
 * shared by every client of the process, so all requests together stay under the cap: in any
 * second at most `burst + qps`, and `qps` per second sustained.
 *
 * Waiters reserve their token when they arrive (the count may go negative), so they are served in
 * arrival order and nobody waits longer than the queue ahead of them needs.
 */
import type { Clock } from './clock.ts';

export interface RequestLimiter {
  /**
   * Resolves with the milliseconds waited once the request may go; rejects with the signal's
   * reason if `signal` aborts first (the reserved token is given back).
   */
  wait(signal?: AbortSignal): Promise<number>;
}

export interface TokenBucketOptions {
  /** Tokens added per second (sustained requests per second). */
  readonly qps: number;
  /** Bucket size: requests allowed at once after a quiet spell. */
  readonly burst: number;
}

export class TokenBucket implements RequestLimiter {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(clock: Clock, opts: TokenBucketOptions) {
    if (!(opts.qps > 0) || !(opts.burst >= 1)) {
      throw new RangeError('token bucket needs qps > 0 and burst >= 1');
    }
    this.#clock = clock;
    this.#qps = opts.qps;
    this.#burst = opts.burst;
    this.#tokens = opts.burst;
    this.#last = clock.now();
  }

  wait(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const start = this.#clock.now();
    this.#refill(start);
    this.#tokens -= 1;
    if (this.#tokens >= 0) return Promise.resolve(0);
    const delay = Math.ceil((-this.#tokens / this.#qps) * 1000);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        cancel();
        this.#refill(this.#clock.now());
        this.#tokens += 1; // the request never went: its token is free again
        reject(abortReason(signal as AbortSignal));
      };
      const cancel = this.#clock.after(delay, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#clock.now() - start);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #refill(now: number): void {
    const earned = ((now - this.#last) / 1000) * this.#qps;
    this.#tokens = Math.min(this.#burst, this.#tokens + earned);
    this.#last = now;
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('request aborted while rate limited');
}
