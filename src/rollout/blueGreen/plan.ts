/**
 * One pass of a blue-green update: where it stands (revision.ts), the Services as they are, the
 * gates before the switch (gates.ts) with the two analyses (analysis.ts), the counts
 * (targets.ts), the ReplicaSet writes, the Service switches, pod roles, a restart and the status.
 * Each part returns a Fragment; the order of the writes is order.ts's. The safety rules: the
 * active Service moves to a version only when all its pods are available (or back to a stable
 * that serves at least as well), the stable keeps every pod until the new version is stable, and
 * nothing is scaled down under the active Service. Pure: no I/O, no clock, inputs never modified.
 */
import {
  POD_TEMPLATE_HASH_LABEL,
  PauseReason,
  Reason,
  SCALE_DOWN_DEADLINE_ANNOTATION,
} from '../../api/index.ts';
import type { BlueGreenStrategy, Rollout } from '../../api/index.ts';
import { runContext } from '../analysis.ts';
import { resolveIntOrPercent } from '../../api/intorpercent.ts';
import {
  DEFAULT_SCALE_DOWN_DELAY_SECONDS,
  deleteOldReplicaSets,
  holdOldStable,
  patchPodRoles,
  pinServices,
  scaleReplicaSets,
} from '../child-writes.ts';
import type { RoleMetadata } from '../child-writes.ts';
import { normal, warning } from '../events.ts';
import type { Fragment } from '../order.ts';
import { pausedByUser } from '../progress.ts';
import type { Progress } from '../progress.ts';
import { hashOf } from '../replicasets.ts';
import { planRestart } from '../restart.ts';
import { available, locate } from '../revision.ts';
import type { Revision } from '../revision.ts';
import { buildStatus } from '../status.ts';
import type { Strategy, StrategyPlan } from '../strategy.ts';
import type { Observed } from '../types.ts';
import { ofThisRevision, planPromotionAnalysis, storedPromotionStatuses } from './analysis.ts';
import type { PromotionStatuses } from './analysis.ts';
import { withAntiAffinity } from './anti-affinity.ts';
import { approvalAtGate, gateAhead, takeBlueGreenApprovals } from './approval.ts';
import { blueGreenPause, blueGreenPauseOf, passedOrNone } from './gates.ts';
import { fullyAvailable, serviceTargets } from './services.ts';
import { blueGreenStatus } from './status.ts';
import { blueGreenTargets, scaleDownDeadline } from './targets.ts';
import { blueGreenProblems } from './validate.ts';

export const blueGreenStrategy: Strategy = {
  specProblems: (rollout, templates) => blueGreenProblems(rollout, blueGreenOf(rollout), templates),
  observedProblems: () => [],
  plan: planBlueGreen,
};

function blueGreenOf(rollout: Rollout): BlueGreenStrategy {
  return rollout.spec.strategy.blueGreen ?? { activeService: '' };
}

/** The hash a Service selects now, as the API server has it. */
function selectedHash(o: Observed, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return o.services.get(name)?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];
}

function planBlueGreen(o: Observed): StrategyPlan {
  const { rollout } = o;
  const spec = rollout.spec;
  const bg = blueGreenOf(rollout);
  const replicas = spec.replicas ?? 1;
  const roles: RoleMetadata = { current: bg.previewMetadata, stable: bg.activeMetadata };
  // An approval gate is the one "step" a blue-green has (status.currentStepIndex 0 → 1).
  const stepCount = bg.approval === undefined ? 0 : 1;
  const located = locate(o, { count: stepCount });
  const where = located.where;
  let progress = located.progress;
  const activeHash = selectedHash(o, bg.activeService);
  const previewHash = selectedHash(o, bg.previewService);
  const { current, hash } = where;
  // A return to a version still inside its scale-down delay: it served a moment ago.
  const fastRollback = current !== undefined && scaleDownDeadline(current) > o.now;
  const fastTrack = where.steady || progress.promoteFull || fastRollback;
  const held = spec.paused === true || pausedByUser(progress);
  const inFlight = !where.steady && !progress.abort;
  const previewCount = Math.min(bg.previewReplicaCount ?? replicas, replicas);
  const previewReady =
    current !== undefined &&
    (current.spec?.replicas ?? 0) >= previewCount &&
    available(current) >= previewCount;

  // Analyses: pre-promotion from the saturated preview until the switch, post-promotion after.
  const ctx = runContext(o, where, progress.stableHash);
  const stored = storedPromotionStatuses(rollout.status);
  const ours: PromotionStatuses = {
    pre: ofThisRevision(stored.pre, ctx, 'pre') ? stored.pre : undefined,
    post: ofThisRevision(stored.post, ctx, 'post') ? stored.post : undefined,
  };
  const switched = activeHash === hash;
  const retrying = !progress.abort && rollout.status?.abortedAt !== undefined;
  const preWanted = inFlight && !fastTrack && bg.prePromotionAnalysis !== undefined && !switched;
  // A run once started keeps running while a GitOps sync resets the active Service (we put it
  // back): terminating it there would end it as if it had passed.
  const postWanted =
    inFlight &&
    !fastTrack &&
    bg.postPromotionAnalysis !== undefined &&
    (switched || (ours.post !== undefined && !retrying));
  const analysis = planPromotionAnalysis({
    bg,
    ctx,
    runs: o.analysisRuns ?? [],
    progress,
    // Once started a run goes on; a retry's new run waits for the preview to be up again.
    wanted: {
      pre: preWanted && (previewReady || (ours.pre !== undefined && !retrying)),
      post: postWanted,
    },
    retrying,
    stored: ours,
    limits: {
      successful: spec.analysis?.successfulRunHistoryLimit,
      unsuccessful: spec.analysis?.unsuccessfulRunHistoryLimit,
    },
    now: o.now,
  });
  progress = analysis.progress;
  // On probation (serving, not yet stable): losing pods sends users back to the stable, which
  // kept all of its pods, whatever the analysis has measured so far.
  const lost = lostWhileServing(where, progress, replicas, inFlight && switched && postWanted);
  progress = lost.progress;

  // People approve the switch once the preview is up and pre-promotion analysis passed.
  const prePassed = passedOrNone(preWanted, analysis.verdicts.pre);
  const atGate =
    inFlight &&
    !progress.abort &&
    !fastTrack &&
    prePassed &&
    previewReady &&
    !held &&
    gateAhead(bg, progress);
  const approvals = takeBlueGreenApprovals(o, bg, hash, progress, atGate);
  const approval = atGate
    ? approvalAtGate(o, bg, hash, progress, approvals.records)
    : { progress, fragment: {} };
  progress = approval.progress;

  const gate = blueGreenPause({
    bg,
    progress,
    fastTrack,
    previewReady,
    prePassed: prePassed && !gateAhead(bg, progress),
    held,
    revision: where.revision,
    now: o.now,
  });
  if (inFlight && !progress.abort) progress = gate.progress;
  const promoted = inFlight && !progress.abort && gate.promoted;

  const target = blueGreenTargets({
    bg,
    where,
    progress,
    replicas,
    activeHash,
    promoted,
    now: o.now,
  });
  const podSpec =
    bg.antiAffinity !== undefined && !where.steady && spec.template?.spec !== undefined
      ? withAntiAffinity(
          spec.template.spec,
          bg.antiAffinity,
          progress.stableHash,
          rollout.metadata.namespace,
        )
      : undefined;
  const scale = scaleReplicaSets(rollout, where, target.counts, target.movable, roles, {
    ...(podSpec === undefined ? {} : { podSpec }),
    // A fast rollback stays one until it is stable (the deadline is how a pass knows).
    ...(fastRollback
      ? { currentDeadline: current.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION] }
      : {}),
  });
  const deleted = deleteOldReplicaSets(where.others, target.held, spec.revisionHistoryLimit);

  // The Services: the active one cuts over once promoted and whole, the preview once it is up.
  const activeRs = o.replicaSets.find((rs) => hashOf(rs) === activeHash);
  const services = pinServices(
    o,
    serviceTargets({
      where,
      progress,
      replicas,
      activeHash,
      previewHash,
      activeRs,
      mayCutOver:
        promoted &&
        !held &&
        !progress.pauseConditions.some((c) => c.reason === PauseReason.InconclusiveAnalysisRun) &&
        !scale.scaled,
      previewReady,
    }),
  );

  // The new version becomes stable once it serves and post-promotion analysis passed.
  let completion: Fragment = {};
  const postPassed = !postWanted || analysis.verdicts.post === 'passed';
  if (inFlight && !progress.abort && switched && postPassed) {
    completion = promoteStable(bg, where, o.now);
    progress = {
      ...progress,
      stableHash: hash,
      promoteFull: false,
      controllerPause: false,
      pauseConditions: progress.pauseConditions.filter(
        (c) => c.reason === PauseReason.PausedByUser,
      ),
    };
  }

  const pods = patchPodRoles(o, roles, progress.stableHash, hash);
  const unavailable = resolveIntOrPercent(bg.maxUnavailable, replicas, false, '25%');
  const restart = planRestart(
    o,
    where,
    progress.stableHash,
    Math.max(1, unavailable.ok ? unavailable.value : 1),
    scale.scaled,
  );
  const running = (s: { status: string } | undefined): boolean =>
    s !== undefined && !['Successful', 'Failed', 'Error', 'Inconclusive'].includes(s.status);
  const built = buildStatus({
    rollout,
    now: o.now,
    hash,
    stepCount,
    progress,
    revision: where.revision,
    replicaSets: o.replicaSets,
    current,
    restartedAt: restart.decision.restartedAt,
    restartPending: restart.decision.pending,
    strategyStatus: blueGreenStatus({
      activeSelector: activeHash,
      previewSelector: previewHash,
      checkPoint: bg.previewReplicaCount !== undefined && promoted && !switched,
      statuses: analysis.statuses,
    }),
    served: activeRs,
    completesWithOldPods: true,
    strategyPending:
      activeHash !== hash
        ? 'active service cutover pending'
        : progress.stableHash !== hash
          ? 'waiting for analysis to complete'
          : undefined,
    abortMessage: analysis.abortMessage ?? lost.message ?? approval.notes?.abortMessage,
    pausedMessage: approval.notes?.pausedMessage ?? gate.pausedMessage,
    approvals: approvals.records,
    maxUnavailable: 0,
    indefiniteStep:
      blueGreenPauseOf(progress) !== undefined ||
      progress.pauseConditions.some((c) => c.reason === PauseReason.AwaitingApproval) ||
      running(analysis.statuses.pre) ||
      running(analysis.statuses.post),
    waitingForScaleDown: target.held.length > 0,
    refusal: o.refusal,
  });
  return {
    status: built.status,
    fragments: [
      located.fragment,
      { requeueAt: target.requeueAt },
      scale.fragment,
      deleted,
      analysis.fragment,
      lost.fragment,
      approvals.fragment,
      approval.fragment,
      inFlight ? { events: gate.events, requeueAt: gate.requeueAt } : {},
      services,
      completion,
      pods,
      restart.fragment,
      { events: built.events, requeueAt: built.requeueAt === undefined ? [] : [built.requeueAt] },
    ],
  };
}

/** The new version is stable; the old stable keeps its pods for its scale-down delay. */
function promoteStable(bg: BlueGreenStrategy, where: Revision, now: number): Fragment {
  const completed = normal(
    Reason.RolloutCompleted,
    `Rollout completed update to revision ${where.revision} (${where.hash}): Completed blue-green update`,
  );
  const delay = bg.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
  return { ...holdOldStable(where.stable, delay, now), events: [completed] };
}

function lostWhileServing(
  where: Revision,
  progress: Progress,
  replicas: number,
  onProbation: boolean,
): { readonly progress: Progress; readonly message?: string; readonly fragment: Fragment } {
  const { current, stable } = where;
  if (!onProbation || progress.abort || current === undefined) return { progress, fragment: {} };
  if (available(current) >= replicas || !fullyAvailable(stable, replicas)) {
    return { progress, fragment: {} };
  }
  const message = `revision ${where.revision} lost availability while serving (${available(current)} of ${replicas} pods available) before post-promotion analysis passed; the active Service goes back to the stable`;
  return {
    progress: { ...progress, abort: true },
    message,
    fragment: { events: [warning(Reason.RolloutAborted, message)] },
  };
}
