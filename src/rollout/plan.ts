/**
 * The planner: given what the shell observed (Rollout, its ReplicaSets, pods, Services and
 * AnalysisRuns, and the time), the ordered writes that move the Rollout one safe step on. Pure:
 * no I/O, no clock, inputs never modified. A settled Rollout plans no writes, so an idle
 * controller is silent. This file validates, dispatches on the strategy (strategies.ts), and
 * orders what the strategy decided (order.ts); the strategy plans the pass from the shared
 * blocks (revision, child writes, analysis, status, progress, conditions, phase).
 */
import { ConditionType, Reason, rolloutTemplateProblems } from '../api/index.ts';
import type { AnalysisTemplate } from '../api/index.ts';
import { approvalGates } from './approval-gates.ts';
import { approvalPeopleProblems } from './approval-people.ts';
import { releaseServices } from './child-writes.ts';
import { setCondition } from './conditions.ts';
import { orderWrites, requeueAfter } from './order.ts';
import { PRE_PASSES } from './passes.ts';
import { sameStatus } from './same-status.ts';
import { STRATEGIES, strategyOf } from './strategies.ts';
import type { StrategyTable } from './strategies.ts';
import type { Observed, Plan } from './types.ts';
import { specProblems } from './validate.ts';
import { afterStrategy, resolveWorkload, withWorkloadGeneration } from './workload-ref/index.ts';

const NO_TEMPLATES: ReadonlyMap<string, AnalysisTemplate> = new Map<string, AnalysisTemplate>();

/**
 * `strategies`: the dispatch table (tests give their own). A Rollout with a workloadRef is planned
 * as the effective Rollout its referent makes (workload-ref/); a referent that is missing or
 * unusable is one problem, and nothing but the status is written.
 */
export function plan(observed: Observed, strategies: StrategyTable = STRATEGIES): Plan {
  const resolved = resolveWorkload(observed.rollout, observed.workload);
  if (!resolved.ok) return planInvalid(observed, [resolved.problem], resolved.generation);
  return planResolved(
    { ...observed, rollout: resolved.rollout },
    observed,
    resolved.generation,
    strategies,
  );
}

/** `o`: with the effective Rollout; `stored`: as observed (the workloadRef's scale-down). */
function planResolved(
  o: Observed,
  stored: Observed,
  generation: string | undefined,
  strategies: StrategyTable,
): Plan {
  const strategy = strategyOf(o.rollout.spec.strategy, strategies);
  const problems = [
    ...specProblems(
      o.rollout,
      o.services,
      {
        templates: o.analysisTemplates ?? NO_TEMPLATES,
        clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
      },
      strategies,
    ),
    // The pod template as the Rollout writes it, before any ReplicaSet is tried; a workloadRef's
    // referent (in `o` only) was checked by the API server.
    ...rolloutTemplateProblems(stored.rollout.spec),
    ...(strategy?.observedProblems(o) ?? []),
    // Needs the cluster's people mapping, so not among the spec's own rules.
    ...approvalPeopleProblems(approvalGates(o.rollout), o.approvalPeople ?? []),
  ];
  if (problems.length > 0) return planInvalid(o, problems, generation);
  // Validation requires a strategy; this only guards a table that lacks the one the spec names.
  if (strategy === undefined) {
    return planInvalid(o, ['spec.strategy: must set a strategy'], generation);
  }
  for (const prePass of PRE_PASSES) {
    const taken = prePass(o, strategy);
    if (taken !== undefined) return taken;
  }
  const planned = afterStrategy(stored, generation, strategy.plan(o));
  const { status } = planned;
  const fragments = [...planned.fragments, releaseServices(o)];
  const writes = orderWrites({
    fragments,
    status: sameStatus(status, o.rollout.status ?? {}) ? undefined : status,
    refused: o.refusal !== undefined,
  });
  const requeueAfterMs = requeueAfter(fragments, o.now);
  return requeueAfterMs === undefined ? { writes } : { writes, requeueAfterMs };
}

function planInvalid(
  o: Observed,
  problems: readonly string[],
  generation: string | undefined,
): Plan {
  const { rollout } = o;
  const prev = rollout.status ?? {};
  const message = problems.join('; ');
  const conditions = setCondition(
    prev.conditions ?? [],
    { type: ConditionType.InvalidSpec, status: 'True', reason: Reason.InvalidSpec, message },
    new Date(o.now).toISOString(),
  );
  const status = {
    // A referent not found keeps the generation last seen; an inline template has none.
    ...withWorkloadGeneration(
      prev,
      generation ??
        (rollout.spec.workloadRef === undefined ? undefined : prev.workloadObservedGeneration),
    ),
    phase: 'Degraded' as const,
    message: `${Reason.InvalidSpec}: ${message}`,
    observedGeneration: String(rollout.metadata.generation ?? 0),
    conditions: [...conditions],
  };
  if (sameStatus(status, prev)) return { writes: [] };
  return {
    writes: [
      { kind: 'applyStatus', status },
      { kind: 'event', type: 'Warning', reason: Reason.InvalidSpec, message },
    ],
  };
}
