/**
 * Gives memory back to the system once the controller goes quiet. V8 grows its young generation
 * up to 128 MB (two 64 MB semi-spaces on Node 24) during a burst of events and keeps it, and an
 * ordinary collection shrinks the spaces without returning their pages, so the settled RSS of the
 * same 1,000 Rollouts measured 123 or 184 MB depending on when V8 last chose to collect. A
 * memory-reducing ("last resort") collection after `idleMs` without work returns those pages: the
 * settled figure no longer depends on V8's timing, and bursts keep V8's default sizing (capping the
 * young generation instead cost 42 % more CPU and multiplied analysis drift; see controller.yaml).
 *
 * Work never waits for it: it runs only after `idleMs` with no reconcile and no informer event,
 * at most once per quiet period, and only when RSS has grown by `minGrowthBytes` since the last
 * time (a controller that observes nothing new does nothing).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { errorText } from '../kube/index.ts';
import type { Clock, Logger } from '../kube/index.ts';
import { QuietPeriod } from './quiet-period.ts';

/** Growth since the last reclaim below which a quiet period is left alone. */
export const MIN_GROWTH_BYTES = 8 * 2 ** 20;

/**
 * Whether a quiet period is worth a memory-reducing collection: only when RSS grew by at least
 * `minGrowthBytes` since the last one (a controller that observed nothing new has nothing to give
 * back). Pure, for table tests.
 */
export function worthReclaiming(s: {
  readonly rssBytes: number;
  /** RSS right after the last reclaim (0 before the first). */
  readonly rssAfterLastReclaim: number;
  readonly minGrowthBytes: number;
}): boolean {
  return s.rssBytes - s.rssAfterLastReclaim >= s.minGrowthBytes;
}

export interface MemoryReclaimerOptions {
  readonly clock: Clock;
  readonly idleMs: number;
  /** The memory-reducing collection (v8Reclaim() in production). */
  readonly collect: () => Promise<void>;
  readonly rss: () => number;
  readonly log: Logger;
  readonly minGrowthBytes?: number;
  /** After each reclaim: its duration and the RSS it gave back, for metrics. */
  readonly onReclaimed?: (seconds: number, freedBytes: number) => void;
}

export class MemoryReclaimer {
  readonly #o: MemoryReclaimerOptions;
  readonly #quiet: QuietPeriod;
  #rssAfterLastReclaim = 0;
  #running = false;
  #stopped = false;

  constructor(options: MemoryReclaimerOptions) {
    this.#o = options;
    this.#quiet = new QuietPeriod({
      clock: options.clock,
      idleMs: options.idleMs,
      onQuiet: () => void this.#reclaim(),
    });
  }

  /** Start-up (imports, cache sync) counts as activity: the first quiet period reclaims it. */
  start(): void {
    this.noteActivity();
  }

  /** O(1) and allocation-free on the hot path (QuietPeriod): one timer per quiet period. */
  noteActivity(): void {
    this.#quiet.noteActivity();
  }

  stop(): void {
    this.#stopped = true;
    this.#quiet.stop();
  }

  async #reclaim(): Promise<void> {
    // A collection longer than idleMs, with activity during it: that period is over anyway.
    if (this.#stopped || this.#running) return;
    const before = this.#o.rss();
    const worth = worthReclaiming({
      rssBytes: before,
      rssAfterLastReclaim: this.#rssAfterLastReclaim,
      minGrowthBytes: this.#o.minGrowthBytes ?? MIN_GROWTH_BYTES,
    });
    if (!worth) return;
    this.#running = true;
    const started = performance.now();
    try {
      await this.#o.collect();
      this.#rssAfterLastReclaim = this.#o.rss();
      const seconds = (performance.now() - started) / 1000;
      const freed = before - this.#rssAfterLastReclaim;
      this.#o.onReclaimed?.(seconds, freed);
      this.#o.log.debug('memory reclaimed while idle', {
        ms: Math.round(seconds * 1000),
        rssBeforeMB: Math.round(before / 2 ** 20),
        rssAfterMB: Math.round(this.#rssAfterLastReclaim / 2 ** 20),
      });
    } catch (err) {
      // Not worth a crash or a retry loop: the controller works on, with V8's own sizing.
      this.#o.log.warn('memory reclaim failed; not trying again', { error: errorText(err) });
      this.stop();
    } finally {
      this.#running = false;
    }
  }
}

interface V8Gc {
  (options: { type: 'major'; execution: 'async'; flavor: 'last-resort' }): Promise<void>;
}

/**
 * V8's memory-reducing full collection (what it runs under memory pressure: repeated mark-compact,
 * young generation shrunk, free pages unmapped). Reached through the `gc` extension in a fresh
 * context, so the Deployment needs no `--expose-gc` and the controller's own global stays clean.
 */
export function v8Reclaim(): () => Promise<void> {
  let gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  if (typeof gc !== 'function') throw new Error('V8 gc extension unavailable');
  const fn = gc as V8Gc;
  return () => fn({ type: 'major', execution: 'async', flavor: 'last-resort' });
}

/** The reclaimer `--reclaim-memory-after` asks for: none at 0. */
export function reclaimerAfter(
  idleMs: number,
  o: Pick<MemoryReclaimerOptions, 'clock' | 'log' | 'onReclaimed'>,
): MemoryReclaimer | undefined {
  if (idleMs <= 0) return undefined;
  return new MemoryReclaimer({
    ...o,
    idleMs,
    collect: v8Reclaim(),
    rss: () => process.memoryUsage.rss(),
  });
}
