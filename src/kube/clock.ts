/**
 * Time, injected. Everything in src/kube that waits (the work queue's delays, the informer's
 * watchdog and backoff, the Lease loops, event aggregation) reads the time and arms timers through
 * a `Clock`, so unit tests drive it with a fake clock instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `fn` once after `ms` (clamped at 0). Returns a function that cancels the timer. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

/**
 * Resolves after `ms` on `clock`, or at once when `signal` aborts (it never rejects: callers
 * check the signal afterwards). The timer is cancelled on abort.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      cancel();
      resolve();
    };
    const cancel = clock.after(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Formats epoch ms as a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
