/**
 * The planner: given what the shell observed (Rollout, its ReplicaSets, pods, Services and
 * AnalysisRuns, and the time), the ordered writes that move the Rollout one safe step on. Pure:
 * no I/O, no clock, inputs never modified. A settled Rollout plans no writes, so an idle
 * controller is silent. This file orchestrates; each concern is its own module: replica counts
 * (replicas.ts), children (child-writes.ts), analysis (analysis-steps.ts), the step decision
 * (step-decision.ts), traffic through a router (traffic.ts), and the status with its conditions
 * (status.ts, progressing.ts).
 */
import { ConditionType, Reason } from '../api/index.ts';
import type { AnalysisTemplate, ApprovalRecord, ReplicaSet, RolloutStatus } from '../api/index.ts';
import type { Verdict } from './analysis.ts';
import type { RunContext } from '../api/analysis-run.ts';
import { planAnalysis } from './analysis-steps.ts';
import { takeRequests } from './approval.ts';
import type { ApprovalWait } from './approval.ts';
import {
  deleteOldReplicaSets,
  patchPodRoles,
  pinServices,
  scaleReplicaSets,
} from './child-writes.ts';
import { setCondition } from './conditions.ts';
import { resolveSurgeUnavailable } from './intorpercent.ts';
import { normal } from './pass.ts';
import type { Pass } from './pass.ts';
import { pausedByUser } from './progress.ts';
import type { Progress } from './progress.ts';
import { hashOf } from './replicasets.ts';
import { decideRestart } from './restart.ts';
import type { RestartDecision } from './restart.ts';
import { available, locate } from './revision.ts';
import type { Revision } from './revision.ts';
import { sameStatus } from './same-status.ts';
import { buildStatus } from './status.ts';
import { promote, stepDecision } from './step-decision.ts';
import { targets } from './targets.ts';
import type { Targets } from './targets.ts';
import { desiredTraffic, maxTrafficWeight, planTraffic, routed } from './traffic.ts';
import type { Observed, Plan, Write } from './types.ts';
import { specProblems } from './validate.ts';

const NO_TEMPLATES: ReadonlyMap<string, AnalysisTemplate> = new Map<string, AnalysisTemplate>();

export function plan(o: Observed): Plan {
  const problems = [
    ...specProblems(o.rollout, o.services, {
      templates: o.analysisTemplates ?? NO_TEMPLATES,
      clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
    }),
    // The router's objects (missing route, backends not found, claimed by another Rollout).
    ...(routed(o.rollout.spec.strategy.canary ?? {}) ? (o.traffic?.problems ?? []) : []),
  ];
  if (problems.length > 0) return planInvalid(o, problems);
  return planCanary(o);
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

/**
 * One pass of a canary: where it stands, the counts it aims at, the ReplicaSet writes, what
 * analysis says, the step decision, Services and pod roles, a restart, and the status.
 */
function planCanary(o: Observed): Plan {
  const { rollout } = o;
  const spec = rollout.spec;
  const canary = spec.strategy.canary ?? {};
  const replicas = spec.replicas ?? 1;
  const pass: Pass = { o, canary, writes: [], after: [], requeue: [], last: [], notes: {} };
  const limits = resolveSurgeUnavailable(canary.maxSurge, canary.maxUnavailable, replicas);
  const budget = { replicas, ...(limits.ok ? limits.value : { maxSurge: 1, maxUnavailable: 0 }) };

  const located = locate(pass);
  const where = located.where;
  let progress = located.progress;
  const target = targets(pass, where, progress, budget);
  const scaled = scaleReplicaSets(pass, where, target.counts, target.movable);
  deleteOldReplicaSets(pass, where.others, target.held, spec.revisionHistoryLimit);

  // Held by Git (spec.paused) or by a person (`kubectl stepwise pause`): no step moves.
  const held = spec.paused === true || pausedByUser(progress);
  // Analysis: the step's run and the background run give their verdicts (abort, pause, go on).
  const walking = !where.steady && !progress.abort && !held;
  const analysis = planAnalysis({
    ctx: runContext(o, where, progress),
    runs: o.analysisRuns ?? [],
    progress,
    steps: canary.steps ?? [],
    background: canary.analysis,
    inFlight: walking && !target.done && where.current !== undefined,
    retrying: !progress.abort && rollout.status?.abortedAt !== undefined,
    stored: rollout.status ?? {},
    limits: {
      successful: spec.analysis?.successfulRunHistoryLimit,
      unsuccessful: spec.analysis?.unsuccessfulRunHistoryLimit,
    },
    now: o.now,
  });
  progress = analysis.progress;
  pass.writes.push(...analysis.writes);
  pass.after.push(...analysis.events);
  const startIndex = progress.stepIndex;
  // People's decisions (RolloutApprovals) are answered in every state; they count at the step.
  const approvals = takeApprovals(pass, where, progress, walking && !target.done);
  const atCounts = atStepCounts(where, target, scaled);
  if (walking && !progress.abort) {
    progress = advanceSteps(pass, where, progress, target, atCounts, scaled, analysis.stepVerdict, {
      hash: where.hash,
      records: approvals,
    });
  }
  // Traffic follows the step decision: weight and managed routes, before or after the scaling.
  const traffic = desiredTraffic({
    canary,
    where,
    progress,
    atStepCounts: atCounts && progress.stepIndex === startIndex,
    replicas,
  });
  planTraffic(pass, traffic, o.traffic, { canary: where.hash, stable: progress.stableHash });

  pinServices(pass, progress, where.hash, where.steady, where.current);
  patchPodRoles(pass, progress.stableHash, where.hash);
  const restart = planRestart(pass, where, progress, budget.maxUnavailable, scaled);

  const built = buildStatus({
    rollout,
    now: o.now,
    hash: where.hash,
    stepsHash: where.stepsHash,
    stepCount: canary.steps?.length ?? 0,
    progress,
    revision: where.revision,
    replicaSets: o.replicaSets,
    current: where.current,
    restartedAt: restart.restartedAt,
    restartPending: restart.pending,
    // Argo's status.canary.weights: the router's weights; a basic canary has none.
    weights:
      traffic === undefined
        ? undefined
        : { canary: traffic.canaryWeight, stable: maxTrafficWeight(canary) - traffic.canaryWeight },
    analysisStatuses: analysis.statuses,
    abortMessage: analysis.abortMessage ?? pass.notes.abortMessage,
    pausedMessage: pass.notes.pausedMessage,
    approvals,
    maxUnavailable: budget.maxUnavailable,
    indefiniteStep:
      !where.steady && !progress.abort && !target.done && waitsOnPurpose(canary, progress),
    waitingForScaleDown: target.held.length > 0,
    refusal: o.refusal,
  });
  if (built.requeueAt !== undefined) pass.requeue.push(built.requeueAt);
  return finish(pass, built);
}

/** A pause or an approval step: time spent there is not lack of progress. */
function waitsOnPurpose(canary: Pass['canary'], progress: Progress): boolean {
  const step = canary.steps?.[progress.stepIndex];
  return step?.pause !== undefined || step?.approval !== undefined;
}

/** Answers the RolloutApprovals not yet answered; the records this pass judges and writes. */
function takeApprovals(
  pass: Pass,
  where: Revision,
  progress: Progress,
  walking: boolean,
): readonly ApprovalRecord[] {
  const { rollout } = pass.o;
  const step = pass.canary.steps?.[progress.stepIndex];
  const waiting: ApprovalWait | undefined =
    walking && where.current !== undefined && step?.approval !== undefined
      ? { step: step.approval, index: progress.stepIndex, hash: where.hash }
      : undefined;
  const taken = takeRequests({
    rolloutName: rollout.metadata.name ?? '',
    requests: pass.o.approvals ?? [],
    records: rollout.status?.approvals ?? [],
    currentHash: where.hash,
    currentStep: progress.stepIndex,
    ...(waiting !== undefined ? { waiting } : {}),
    now: pass.o.now,
  });
  pass.after.push(...taken.events);
  pass.last.push(...taken.answers);
  return taken.records;
}

function runContext(o: Observed, where: Revision, progress: Progress): RunContext {
  return {
    rollout: o.rollout,
    hash: where.hash,
    stableHash: progress.stableHash,
    revision: where.revision,
    templates: o.analysisTemplates ?? NO_TEMPLATES,
    clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
  };
}

/** The ReplicaSets stand exactly at the counts of the step in force (Argo's
 *  AtDesiredReplicaCountsForCanary): extra stable pods still serving would make the next timed
 *  pause start at the old split, and a router would give traffic to pods not yet there. */
function atStepCounts(where: Revision, target: Targets, scaled: boolean): boolean {
  const { current, stable } = where;
  if (current === undefined || scaled) return false;
  const { counts } = target;
  return (
    available(current) === counts.canary &&
    (stable === undefined || available(stable) === counts.stable) &&
    target.movable.every((rs) => available(rs) === 0)
  );
}

/** One step decision per pass, only once the ReplicaSets have reached this step's counts. */
function advanceSteps(
  pass: Pass,
  where: Revision,
  progress: Progress,
  target: Targets,
  atCounts: boolean,
  scaled: boolean,
  verdict: Verdict | undefined,
  approvals: Parameters<typeof stepDecision>[5],
): Progress {
  const { current, stable, hash, revision } = where;
  if (current === undefined) return progress;
  const steps = pass.canary.steps ?? [];
  const replicas = pass.o.rollout.spec.replicas ?? 1;
  if (target.done) {
    const full = (current.spec?.replicas ?? 0) === replicas && available(current) >= replicas;
    if (scaled || !full) return progress;
    // With a router the canary first takes all traffic; then the stable Service switches to it.
    const max = maxTrafficWeight(pass.canary);
    if (routed(pass.canary) && pass.o.traffic?.state?.canaryWeight !== max) return progress;
    return promote(pass, progress, hash, revision, stable, steps.length);
  }
  return stepDecision(pass, progress, steps, atCounts, verdict, approvals);
}

/** restartAt: pods created before it are evicted, within maxUnavailable, when nothing scales. */
function planRestart(
  pass: Pass,
  where: Revision,
  progress: Progress,
  maxUnavailable: number,
  scaled: boolean,
): RestartDecision {
  const { rollout, now, pods, replicaSets } = pass.o;
  const restartedAt = rollout.status?.restartedAt;
  const restart = decideRestart({
    restartAt: rollout.spec.restartAt,
    restartedAt,
    now,
    pods,
    hashOrder: [progress.stableHash, where.hash, ...where.others.map((rs) => hashOf(rs) ?? '')],
    maxUnavailable,
    unavailable: unavailableCount(replicaSets),
  });
  if (restart.requeueAt !== undefined) pass.requeue.push(restart.requeueAt);
  if (!scaled) for (const name of restart.evict) pass.writes.push({ kind: 'evictPod', name });
  if (restart.restartedAt !== undefined && restart.restartedAt !== restartedAt) {
    pass.after.push(
      normal(Reason.RolloutRestarted, `Restarted all pods created before ${restart.restartedAt}`),
    );
  }
  return restart;
}

/** The pass's writes, its status write and events when status changed, and when to come back. */
function finish(pass: Pass, built: { status: RolloutStatus; events: readonly Write[] }): Plan {
  const stored = pass.o.rollout.status ?? {};
  // A refused ReplicaSet write: say so in status; the shell retries the rest with backoff.
  const writes = pass.o.refusal === undefined ? [...pass.writes] : [];
  if (!sameStatus(built.status, stored)) {
    writes.push({ kind: 'applyStatus', status: built.status }, ...pass.after, ...built.events);
  }
  writes.push(...pass.last);
  if (pass.requeue.length === 0) return { writes };
  return { writes, requeueAfterMs: Math.max(0, Math.min(...pass.requeue) - pass.o.now) };
}

function unavailableCount(rss: readonly ReplicaSet[]): number {
  return Math.max(
    0,
    rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0) - available(rs), 0),
  );
}
