/**
 * One pass of a canary: where it stands (revision.ts), the counts it aims at (targets.ts), the
 * ReplicaSet writes (child-writes.ts), what analysis says (analysis-steps.ts), people's
 * decisions (approval.ts), the step decision (step-decision.ts), traffic through a router
 * (traffic.ts), Services and pod roles, a restart, and the status. Each part returns a Fragment;
 * this file only feeds one part's result to the next and lists the fragments in the order the
 * parts ran (events keep that order). The order of the writes is order.ts's, not this file's.
 * Pure: no I/O, no clock, inputs never modified.
 */
import { PauseReason } from '../../api/index.ts';
import type { ApprovalRecord, CanaryStrategy, Person, Rollout } from '../../api/index.ts';
import { resolveSurgeUnavailable } from '../../api/intorpercent.ts';
import { runContext } from '../analysis.ts';
import type { Verdict } from '../analysis.ts';
import { planAnalysis } from '../analysis-steps.ts';
import { takeRequests } from '../approval.ts';
import type { ApprovalWait } from '../approval.ts';
import { deleteOldReplicaSets, patchPodRoles, scaleReplicaSets } from '../child-writes.ts';
import type { RoleMetadata } from '../child-writes.ts';
import type { Fragment } from '../order.ts';
import { pausedByUser } from '../progress.ts';
import type { Progress } from '../progress.ts';
import { planRestart } from '../restart.ts';
import { available, locate } from '../revision.ts';
import { canaryServices } from './services.ts';
import type { Revision } from '../revision.ts';
import { buildStatus } from '../status.ts';
import type { Strategy, StrategyPlan } from '../strategy.ts';
import type { Observed } from '../types.ts';
import { canaryStatus, storedAnalysisStatuses } from './status.ts';
import { promote, stepDecision } from './step-decision.ts';
import type { StepNotes, StepOutcome } from './step-decision.ts';
import { STEP_KINDS, kindOf } from './step-kinds.ts';
import { stepsHash } from './steps.ts';
import { targets } from './targets.ts';
import { canaryProblems } from './validate.ts';
import type { Targets } from './targets.ts';
import { desiredTraffic, maxTrafficWeight, planTraffic, routed, weightUpdated } from './traffic.ts';

export const canaryStrategy: Strategy = {
  specProblems: (rollout, templates) => canaryProblems(rollout, canaryOf(rollout), templates),
  // The router's objects (missing route, backends not found, claimed by another Rollout).
  observedProblems: (o) => [...(routed(canaryOf(o.rollout)) ? (o.traffic?.problems ?? []) : [])],
  plan: planCanary,
  stepsHash: (rollout) => stepsHash(canaryOf(rollout).steps ?? []),
};

function canaryOf(rollout: Rollout): CanaryStrategy {
  return rollout.spec.strategy.canary ?? {};
}

function planCanary(o: Observed): StrategyPlan {
  const { rollout } = o;
  const spec = rollout.spec;
  const canary = canaryOf(rollout);
  const steps = canary.steps ?? [];
  const replicas = spec.replicas ?? 1;
  const limits = resolveSurgeUnavailable(canary.maxSurge, canary.maxUnavailable, replicas);
  const budget = { replicas, ...(limits.ok ? limits.value : { maxSurge: 1, maxUnavailable: 0 }) };
  const roles: RoleMetadata = { current: canary.canaryMetadata, stable: canary.stableMetadata };

  const located = locate(o, { count: steps.length, hash: stepsHash(steps) });
  const where = located.where;
  let progress = located.progress;
  const target = targets(o, canary, where, progress, budget);
  const { counts } = target;
  const scale = scaleReplicaSets(
    rollout,
    where,
    { current: counts.canary, stable: counts.stable, others: counts.others },
    target.movable,
    roles,
  );
  const scaled = scale.scaled;
  const deleted = deleteOldReplicaSets(where.others, target.held, spec.revisionHistoryLimit);

  // Held by Git (spec.paused) or by a person (`kubectl stepwise pause`): no step moves.
  const held = spec.paused === true || pausedByUser(progress);
  // Analysis: the step's run and the background run give their verdicts (abort, pause, go on).
  const walking = !where.steady && !progress.abort && !held;
  const analysis = planAnalysis({
    ctx: runContext(o, where, progress.stableHash),
    runs: o.analysisRuns ?? [],
    progress,
    stepAnalysis: steps[progress.stepIndex]?.analysis,
    background: canary.analysis,
    inFlight: walking && !target.done && where.current !== undefined,
    retrying: !progress.abort && rollout.status?.abortedAt !== undefined,
    stored: storedAnalysisStatuses(rollout.status),
    limits: {
      successful: spec.analysis?.successfulRunHistoryLimit,
      unsuccessful: spec.analysis?.unsuccessfulRunHistoryLimit,
    },
    now: o.now,
  });
  progress = analysis.progress;
  const startIndex = progress.stepIndex;
  // People's decisions (RolloutApprovals) are answered in every state; they count at the step.
  const approvals = takeApprovals(o, canary, where, progress, walking && !target.done);
  const atCounts = atStepCounts(where, target, scaled);
  let step: StepOutcome = { progress, fragment: {} };
  if (walking && !progress.abort) {
    step = advanceSteps(
      o,
      canary,
      where,
      progress,
      target,
      atCounts,
      scaled,
      analysis.stepVerdict,
      {
        hash: where.hash,
        records: approvals.records,
        people: o.approvalPeople ?? [],
      },
    );
    progress = step.progress;
  }
  const notes: StepNotes = step.notes ?? {};
  // Traffic follows the step decision: weight and managed routes, before or after the scaling.
  const traffic = desiredTraffic({
    canary,
    where,
    progress,
    atStepCounts: atCounts && progress.stepIndex === startIndex,
    replicas,
  });
  const trafficWrite = planTraffic(traffic, o.traffic, {
    canary: where.hash,
    stable: progress.stableHash,
  });
  const trafficEvent = weightUpdated(
    rollout.status?.canary?.weights?.canary.weight,
    traffic?.canaryWeight,
  );

  const services = canaryServices(o, canary, where, progress, counts.stable);
  const pods = patchPodRoles(o, roles, progress.stableHash, where.hash);
  const restart = planRestart(o, where, progress.stableHash, budget.maxUnavailable, scaled);

  const built = buildStatus({
    rollout,
    now: o.now,
    hash: where.hash,
    stepsHash: where.stepsHash,
    stepCount: steps.length,
    progress,
    revision: where.revision,
    replicaSets: o.replicaSets,
    current: where.current,
    restartedAt: restart.decision.restartedAt,
    restartPending: restart.decision.pending,
    strategyStatus: canaryStatus({
      names: canary,
      hash: where.hash,
      stableHash: progress.stableHash,
      // Argo's status.canary.weights: the router's weights; a basic canary has none.
      weights:
        traffic === undefined
          ? undefined
          : {
              canary: traffic.canaryWeight,
              stable: maxTrafficWeight(canary) - traffic.canaryWeight,
            },
      analysisStatuses: analysis.statuses,
    }),
    abortMessage: analysis.abortMessage ?? notes.abortMessage,
    pausedMessage: notes.pausedMessage,
    approvals: approvals.records,
    maxUnavailable: budget.maxUnavailable,
    indefiniteStep:
      !where.steady && !progress.abort && !target.done && waitsOnPurpose(canary, progress),
    waitingForScaleDown: target.held.length > 0,
    refusal: o.refusal,
  });
  const status: Fragment = {
    events: built.events,
    requeueAt: built.requeueAt === undefined ? [] : [built.requeueAt],
  };
  return {
    status: built.status,
    fragments: [
      located.fragment,
      { requeueAt: target.requeueAt },
      scale.fragment,
      deleted,
      analysis.fragment,
      approvals.fragment,
      step.fragment,
      trafficWrite,
      trafficEvent,
      ...services,
      pods,
      restart.fragment,
      status,
    ],
  };
}

/** A step that waits on purpose (a pause, an approval): time spent there is not lack of
 *  progress. */
function waitsOnPurpose(canary: CanaryStrategy, progress: Progress): boolean {
  const kind = kindOf(canary.steps?.[progress.stepIndex]);
  return kind !== undefined && STEP_KINDS[kind].waitsOnPurpose;
}

/** Answers the RolloutApprovals not yet answered; the records this pass judges and writes. */
function takeApprovals(
  o: Observed,
  canary: CanaryStrategy,
  where: Revision,
  progress: Progress,
  walking: boolean,
): { readonly records: readonly ApprovalRecord[]; readonly fragment: Fragment } {
  const { rollout } = o;
  const step = canary.steps?.[progress.stepIndex];
  const pause = progress.pauseConditions.find((c) => c.reason === PauseReason.AwaitingApproval);
  const since = Date.parse(pause?.startTime ?? '');
  // Decisions are taken once the wait has begun (its pause is on record): one recorded before
  // would predate the wait and never count, lost without a word.
  const waiting: ApprovalWait | undefined =
    walking && where.current !== undefined && step?.approval !== undefined && !Number.isNaN(since)
      ? { step: step.approval, index: progress.stepIndex, hash: where.hash, since }
      : undefined;
  const taken = takeRequests({
    rolloutName: rollout.metadata.name ?? '',
    requests: o.approvals ?? [],
    records: rollout.status?.approvals ?? [],
    currentHash: where.hash,
    currentStep: progress.stepIndex,
    ...(waiting !== undefined ? { waiting } : {}),
    now: o.now,
    people: o.approvalPeople ?? [],
  });
  return { records: taken.records, fragment: { events: taken.events, answers: taken.answers } };
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
  o: Observed,
  canary: CanaryStrategy,
  where: Revision,
  progress: Progress,
  target: Targets,
  atCounts: boolean,
  scaled: boolean,
  verdict: Verdict | undefined,
  approvals: {
    readonly hash: string;
    readonly records: readonly ApprovalRecord[];
    readonly people: readonly Person[];
  },
): StepOutcome {
  const stay: StepOutcome = { progress, fragment: {} };
  const { current } = where;
  if (current === undefined) return stay;
  const steps = canary.steps ?? [];
  const replicas = o.rollout.spec.replicas ?? 1;
  if (target.done) {
    const full = (current.spec?.replicas ?? 0) === replicas && available(current) >= replicas;
    if (scaled || !full) return stay;
    // With a router the canary first takes all traffic; then the stable Service switches to it.
    const max = maxTrafficWeight(canary);
    if (routed(canary) && o.traffic?.state?.canaryWeight !== max) return stay;
    return promote(canary, o.now, progress, where, steps.length);
  }
  const context = {
    now: o.now,
    conditions: o.rollout.status?.conditions ?? [],
    ...approvals,
  };
  return stepDecision(context, progress, steps, atCounts, verdict);
}
