/**
 * Passes planned before the strategy, in order, as a table: each looks at what was observed and
 * either takes the whole pass (its plan is the pass's) or lets the next one plan. A capability
 * that must run before any strategy (taking over Argo's ReplicaSets) is a folder plus a line
 * here, not a branch in plan.ts or in a strategy.
 */
import { planAdoption } from './adoption/index.ts';
import { planInPlaceTakeover } from './in-place/index.ts';
import type { Strategy } from './strategy.ts';
import type { Observed, Plan } from './types.ts';

export type PrePass = (o: Observed, strategy: Strategy) => Plan | undefined;

export const PRE_PASSES: readonly PrePass[] = [
  // What Argo Rollouts left running is taken over (or refused) before anything else.
  (o, strategy) => planAdoption(o, strategy.stepsHash?.(o.rollout)),
  // Argo's own objects served in place: the status Argo's controller wrote, taken over once.
  (o, strategy) => planInPlaceTakeover(o, strategy.stepsHash?.(o.rollout)),
];
