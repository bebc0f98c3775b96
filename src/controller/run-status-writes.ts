/**
 * AnalysisRun status writes that never hold a measurement back: per run at most one write is in
 * flight; a status decided while it is on its way waits behind it, and a newer one replaces the
 * one waiting (its measurements are in the newer status too). A pass measures from the newest
 * status decided, so a slow API server delays when measurements are recorded, never when they
 * are taken. Each write carries the resourceVersion the previous one returned: a change by
 * anyone else (a terminate) makes it fail with a Conflict, and the run starts again from the
 * cache.
 */
import type { AnalysisRun, AnalysisRunStatus } from '../api/index.ts';
import type { Key } from './reconciler.ts';

export interface PendingWrites {
  /** The run with the newest status decided (what the next pass measures from). */
  readonly planned: AnalysisRun;
  /** Every resourceVersion these writes replaced or produced: a cache showing another is newer. */
  readonly known: ReadonlySet<string>;
  /** Settles when every decided status is written, or the writes failed (see `failure`). */
  readonly drained: Promise<void>;
  readonly failure: unknown;
}

interface Chain {
  planned: AnalysisRun;
  waiting?: { status: AnalysisRunStatus; after: () => void };
  known: Set<string>;
  drained: Promise<void>;
  failure: unknown;
}

export interface RunStatusWritesDeps {
  readonly apply: (run: AnalysisRun, status: AnalysisRunStatus) => Promise<AnalysisRun>;
  /** The last write landed and nothing waits: `written` is the server's answer. */
  readonly settled: (key: Key, written: AnalysisRun, replaced: Set<string>) => void;
  /** A write failed: the run should be looked at again (its pass will throw `failure`). */
  readonly failed: (key: Key) => void;
}

export class RunStatusWrites {
  readonly #deps: RunStatusWritesDeps;
  readonly #chains = new Map<Key, Chain>();

  constructor(deps: RunStatusWritesDeps) {
    this.#deps = deps;
  }

  pending(key: Key): PendingWrites | undefined {
    return this.#chains.get(key);
  }

  forget(key: Key): void {
    this.#chains.delete(key);
  }

  /**
   * Writes `status` over `run` (whose resourceVersion it carries), or, while a write of this
   * run is on its way, after it. `after` runs once the write that carries it has landed.
   */
  submit(
    key: Key,
    run: AnalysisRun,
    status: AnalysisRunStatus,
    known: ReadonlySet<string>,
    after: () => void,
  ): PendingWrites {
    const existing = this.#chains.get(key);
    if (existing !== undefined) {
      const before = existing.waiting?.after;
      existing.waiting = { status, after: () => (before?.(), after()) };
      existing.planned = { ...existing.planned, status };
      return existing;
    }
    const chain: Chain = {
      planned: { ...run, status },
      // The version written over is ours too: a cache showing it has not caught up.
      known: new Set([...known, run.metadata.resourceVersion ?? '']),
      drained: Promise.resolve(),
      failure: undefined,
    };
    chain.drained = this.#drain(key, chain, run, status, after);
    this.#chains.set(key, chain);
    return chain;
  }

  async #drain(
    key: Key,
    chain: Chain,
    base: AnalysisRun,
    status: AnalysisRunStatus,
    after: () => void,
  ): Promise<void> {
    for (;;) {
      let written: AnalysisRun;
      try {
        written = await this.#deps.apply(base, status);
      } catch (err) {
        chain.failure = err;
        this.#deps.failed(key);
        return;
      }
      after();
      const version = written.metadata.resourceVersion ?? '';
      const next = chain.waiting;
      if (next === undefined) {
        if (this.#chains.get(key) === chain) this.#chains.delete(key);
        const replaced = new Set(chain.known);
        replaced.delete(version);
        this.#deps.settled(key, written, replaced);
        return;
      }
      chain.known.add(version);
      chain.waiting = undefined;
      base = written;
      status = next.status;
      after = next.after;
    }
  }
}
