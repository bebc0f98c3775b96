/** PURE: the contract between a strategy's rendering module and the shared renderers. */
import type { Rollout } from '../../../api/rollout.ts';

/** A `Label: value` line of the header, under `Strategy:` (labels indented by two spaces). */
export type StrategyLine = readonly [label: string, value: string];

/** The strategy's cells in the `list` table; '-' where the strategy has no such thing. */
export interface ListCells {
  readonly step: string;
  readonly setWeight: string;
}

/** A ReplicaSet of the Rollout, as far as a strategy's header needs to name it. */
export interface ReplicaSetRef {
  readonly name: string;
  readonly hash: string | undefined;
  readonly revision: number | undefined;
  readonly available: number;
}

export interface StrategyView {
  /** As `Strategy:` and the list's STRATEGY column show it (Argo's words). */
  readonly name: string;
  /** The role tags of the ReplicaSet with this pod-template hash, in Argo's words and order. */
  tags(ro: Rollout, hash: string | undefined): string[];
  /** The lines under `Strategy:`; `now` (ms) for countdowns. */
  header(ro: Rollout, replicaSets: readonly ReplicaSetRef[], now: number): StrategyLine[];
  listCells(ro: Rollout): ListCells;
}
