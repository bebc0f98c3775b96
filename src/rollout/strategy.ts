/**
 * What a strategy is to the planner: a module that plans one pass of a Rollout using it, from
 * the shared blocks (revision, child writes, analysis, status), and returns what its parts
 * decided as Fragments plus the status it wants. The shared planner validates first, dispatches
 * through the table in strategies.ts, then orders the writes (order.ts) and drops a status write
 * that changes nothing. A new strategy is one folder beside canary/ plus one table entry.
 */
import type { Rollout, RolloutStatus } from '../api/index.ts';
import type { TemplateMaps } from '../api/rollout-rules.ts';
import type { Fragment } from './order.ts';
import type { Observed } from './types.ts';

export interface StrategyPlan {
  /** In the order the strategy's parts ran; events keep this order. */
  readonly fragments: readonly Fragment[];
  /** The whole status after this pass (written only if it differs from the stored one). */
  readonly status: RolloutStatus;
}

export interface Strategy {
  /** Its own rules beyond the schema, without a cluster (validate.ts adds the common ones and
   *  the Services); `templates` undefined: analyses are not checked. */
  specProblems(rollout: Rollout, templates?: TemplateMaps): readonly string[];
  /** Problems in what the shell observed that only this strategy looks at (its router's
   *  objects); any problem makes the Rollout InvalidSpec, as a spec problem does. */
  observedProblems(o: Observed): readonly string[];
  /** One pass; called only for a valid spec. */
  plan(o: Observed): StrategyPlan;
  /** The hash of its steps as status records it (`currentStepHash`); absent: no steps. */
  stepsHash?(rollout: Rollout): string;
}
