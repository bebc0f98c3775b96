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

/** The longest delay `setTimeout` honours; Node clamps anything longer to 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const nodeClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

/**
 * `clock` with no timer longer than `maxMs`: a longer delay (a 720 h pause, a `restartAt` years
 * ahead) is armed in steps of at most `maxMs` and re-armed until the real deadline, because Node
 * turns a `setTimeout` past 2^31−1 ms into a 1 ms timer (and a TimeoutOverflowWarning), which
 * made an idle controller spin. Delays within the cap are passed through unchanged.
 */
export function withCappedTimers(clock: Clock, maxMs: number = MAX_TIMER_MS): Clock {
  if (!(maxMs >= 1)) throw new RangeError('withCappedTimers needs maxMs >= 1');
  return {
    now: () => clock.now(),
    after(ms, fn) {
      const delay = Math.max(0, ms);
      if (delay <= maxMs) return clock.after(delay, fn);
      const deadline = clock.now() + delay;
      let cancel = (): void => undefined;
      const arm = (left: number): void => {
        cancel = clock.after(Math.min(left, maxMs), () => {
          const rest = deadline - clock.now();
          if (rest > 0) arm(rest);
          else fn();
        });
      };
      arm(delay);
      return () => cancel();
    },
  };
}

export const systemClock: Clock = withCappedTimers(nodeClock);

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
