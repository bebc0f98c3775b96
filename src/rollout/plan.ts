/**
 * The planner: given what the shell observed (Rollout, its ReplicaSets, pods, Services and
 * AnalysisRuns, and the time), the ordered writes that move the Rollout one safe step on. Pure:
 * no I/O, no clock, inputs never modified. A settled Rollout plans no writes, so an idle
 * controller is silent. This file validates, dispatches on the strategy (strategies.ts), and
 * orders what the strategy decided (order.ts); the strategy plans the pass from the shared
 * blocks (revision, child writes, analysis, status, progress, conditions, phase).
 */
import { ConditionType, Reason } from '../api/index.ts';
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

const NO_TEMPLATES: ReadonlyMap<string, AnalysisTemplate> = new Map<string, AnalysisTemplate>();

/** `strategies`: the dispatch table (tests give their own). */
export function plan(o: Observed, strategies: StrategyTable = STRATEGIES): Plan {
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
    ...(strategy?.observedProblems(o) ?? []),
    // Needs the cluster's people mapping, so not among the spec's own rules.
    ...approvalPeopleProblems(approvalGates(o.rollout), o.approvalPeople ?? []),
  ];
  if (problems.length > 0) return planInvalid(o, problems);
  // Validation requires a strategy; this only guards a table that lacks the one the spec names.
  if (strategy === undefined) return planInvalid(o, ['spec.strategy: must set a strategy']);
  for (const prePass of PRE_PASSES) {
    const taken = prePass(o, strategy);
    if (taken !== undefined) return taken;
  }
  const planned = strategy.plan(o);
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

function planInvalid(o: Observed, problems: readonly string[]): Plan {
  const { rollout } = o;
  const prev = rollout.status ?? {};
  const message = problems.join('; ');
  const conditions = setCondition(
    prev.conditions ?? [],
    { type: ConditionType.InvalidSpec, status: 'True', reason: Reason.InvalidSpec, message },
    new Date(o.now).toISOString(),
  );
  const status = {
    ...prev,
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
