/**
 * The objects every viewer of the page shares: one watch per resource kind (kept by the caller,
 * the plugin, as list + watch caches), and the viewers' subscriptions. A burst of watch events
 * becomes one notification (after COALESCE_MS), and the list rows are computed once per change
 * whatever the number of viewers. No viewer ever makes a request to the API server.
 */
import type { AnalysisRun } from '../../api/analysis.ts';
import type { Rollout } from '../../api/rollout.ts';
import type { PodLike, ReplicaSetLike } from '../../cli/render/objects.ts';
import { rowsOf, type EventLike } from '../model/views.ts';
import type { RowView } from '../model/wire.ts';

export interface LiveSet<T> {
  readonly values: readonly T[];
}

export interface WatchedSets {
  readonly rollouts: LiveSet<Rollout>;
  readonly replicaSets: LiveSet<ReplicaSetLike>;
  readonly pods: LiveSet<PodLike>;
  readonly analysisRuns: LiveSet<AnalysisRun>;
  readonly events: LiveSet<EventLike>;
}

export type WatchedKind = keyof WatchedSets;

export const COALESCE_MS = 20;

export class Hub {
  readonly sets: WatchedSets;
  /** A description of what the page shows: `all namespaces`, `namespace team-a`. */
  readonly scope: string;
  readonly #listeners = new Set<() => void>();
  readonly #problems = new Map<WatchedKind, string>();
  #timer: NodeJS.Timeout | undefined;
  #version = 0;
  #rows: { version: number; rows: RowView[] } | undefined;

  constructor(sets: WatchedSets, scope: string) {
    this.sets = sets;
    this.scope = scope;
  }

  /** A watched set changed (or its problem did): viewers hear of it once per burst. */
  changed(): void {
    this.#version += 1;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      for (const listener of [...this.#listeners]) listener();
    }, COALESCE_MS);
  }

  /** A watch that cannot run (forbidden, not served) or is retrying; undefined clears it. */
  setProblem(kind: WatchedKind, problem: string | undefined): void {
    if (this.#problems.get(kind) === problem) return;
    if (problem === undefined) this.#problems.delete(kind);
    else this.#problems.set(kind, problem);
    this.changed();
  }

  get problems(): string[] {
    return [...this.#problems.values()];
  }

  /** The list's rows, computed once per change. */
  rows(): RowView[] {
    if (this.#rows?.version !== this.#version) {
      this.#rows = { version: this.#version, rows: rowsOf(this.sets.rollouts.values) };
    }
    return this.#rows.rows;
  }

  rollout(namespace: string, name: string): Rollout | undefined {
    return this.sets.rollouts.values.find(
      (r) => r.metadata.namespace === namespace && r.metadata.name === name,
    );
  }

  /** Calls `listener` after each burst of changes until the returned function is called. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get viewers(): number {
    return this.#listeners.size;
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }
}
