/**
 * Calls `onQuiet` once the controller has had no activity for `idleMs`: once per quiet period,
 * with at most one timer armed at a time. `noteActivity` is O(1) and allocation-free on the hot
 * path (it records a time; a timer is armed only when none is), so a burst of events costs one
 * timer, which re-arms itself for the remainder when activity came in while it waited.
 *
 * What is done while busy and undone when quiet (event-loop sampling) and what is done only when
 * quiet (the memory reclaim) both hang on this.
 */
import type { Clock } from '../kube/index.ts';

export class QuietPeriod {
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #onQuiet: () => void;
  #lastActivityAt: number;
  #cancelTimer: (() => void) | undefined;
  #stopped = false;

  constructor(o: { clock: Clock; idleMs: number; onQuiet: () => void }) {
    this.#clock = o.clock;
    this.#idleMs = o.idleMs;
    this.#onQuiet = o.onQuiet;
    this.#lastActivityAt = o.clock.now();
  }

  noteActivity(): void {
    if (this.#stopped) return;
    this.#lastActivityAt = this.#clock.now();
    if (this.#cancelTimer === undefined) this.#arm(this.#idleMs);
  }

  /** No more calls to `onQuiet`, whatever happens next. */
  stop(): void {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  #arm(ms: number): void {
    this.#cancelTimer = this.#clock.after(ms, () => {
      this.#cancelTimer = undefined;
      const quietFor = this.#clock.now() - this.#lastActivityAt;
      if (quietFor < this.#idleMs) this.#arm(this.#idleMs - quietFor);
      else this.#onQuiet();
    });
  }
}
