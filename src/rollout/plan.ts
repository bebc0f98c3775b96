/**
 * The planner: given what the shell observed (Rollout, its ReplicaSets, pods, Services and
 * AnalysisRuns, and the time), the ordered writes that move the Rollout one safe step on. Pure:
 * no I/O, no clock, inputs never modified. A settled Rollout plans no writes, so an idle
 * controller is silent. This file orchestrates; each concern is its own module: replica counts
 * (replicas.ts), children (child-writes.ts), analysis (analysis-steps.ts), the step decision
 * (step-decision.ts), and the status with its conditions (status.ts, progressing.ts).
 */
import { ConditionType, Reason, SCALE_DOWN_DEADLINE_ANNOTATION } from '../api/index.ts';
import type { AnalysisTemplate, ReplicaSet } from '../api/index.ts';
import { planAnalysis } from './analysis-steps.ts';
import { deleteOldReplicaSets, patchPodRoles, pinServices, scaleTo } from './child-writes.ts';
import type { ScaleWrite } from './child-writes.ts';
import { setCondition } from './conditions.ts';
import { podTemplateHash } from './hash.ts';
import { resolveSurgeUnavailable } from './intorpercent.ts';
import { normal, warning } from './pass.ts';
import type { Pass } from './pass.ts';
import { readProgress, restartSteps, settled } from './progress.ts';
import { canaryCounts } from './replicas.ts';
import type { CanaryScale } from './replicas.ts';
import {
  classify,
  countsOf,
  hashOf,
  nextRevision,
  replicaSetBody,
  revisionOf,
} from './replicasets.ts';
import { decideRestart } from './restart.ts';
import { sameStatus } from './same-status.ts';
import { buildStatus } from './status.ts';
import { promote, stepDecision } from './step-decision.ts';
import { canaryScaleAt, stepsHash, weightAt } from './steps.ts';
import type { Observed, Plan } from './types.ts';
import { specProblems } from './validate.ts';

const DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS = 30;
const NO_TEMPLATES: ReadonlyMap<string, AnalysisTemplate> = new Map<string, AnalysisTemplate>();

export function plan(o: Observed): Plan {
  const problems = specProblems(o.rollout, o.services, {
    templates: o.analysisTemplates ?? NO_TEMPLATES,
    clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
  });
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

function planCanary(o: Observed): Plan {
  const { rollout, now } = o;
  const spec = rollout.spec;
  const canary = spec.strategy.canary ?? {};
  const status = rollout.status ?? {};
  const steps = canary.steps ?? [];
  const replicas = spec.replicas ?? 1;
  const pass: Pass = { o, canary, writes: [], after: [], requeue: [] };
  const limits = resolveSurgeUnavailable(canary.maxSurge, canary.maxUnavailable, replicas);
  const { maxSurge, maxUnavailable } = limits.ok
    ? limits.value
    : { maxSurge: 1, maxUnavailable: 0 };
  const hash = podTemplateHash(spec.template, status.collisionCount ?? 0);
  const sHash = stepsHash(steps);
  const nowIso = new Date(now).toISOString();

  let progress = readProgress(status, status.stableRS ?? initialStable(o.replicaSets, hash));
  const steady = hash === progress.stableHash;
  const { current, stable, others } = classify(
    o.replicaSets,
    hash,
    steady ? undefined : progress.stableHash,
  );
  const revision = current ? revisionOf(current) : nextRevision(o.replicaSets);
  if (steady) {
    if (status.currentPodHash !== undefined && status.currentPodHash !== hash) {
      pass.after.push(
        normal(
          Reason.RolloutUpdated,
          `Rollout went back to the stable revision ${revision} (${hash}): steps skipped`,
        ),
      );
    }
    progress = settled(progress, steps.length);
  } else if (status.currentPodHash !== hash || status.currentStepHash !== sHash) {
    progress = restartSteps(progress);
    pass.after.push(normal(Reason.RolloutUpdated, `Rollout updated to revision ${revision}`));
  } else if (progress.abort && progress.abortedAt === undefined) {
    progress = {
      ...progress,
      stepIndex: 0,
      pauseConditions: [],
      controllerPause: false,
      abortedAt: nowIso,
    };
    pass.after.push(
      warning(Reason.RolloutAborted, `Rollout aborted update to revision ${revision}`),
    );
  } else if (!progress.abort && status.abortedAt !== undefined) {
    pass.after.push(normal(Reason.RolloutRetry, `Rollout retrying update to revision ${revision}`));
  }

  // Weight the pods should have now: 100 when settled or promoted, 0 on abort, else the step's.
  const done = progress.promoteFull || progress.stepIndex >= steps.length;
  const weight =
    steady || (done && !progress.abort)
      ? 100
      : progress.abort
        ? 0
        : weightAt(steps, progress.stepIndex);
  const scale =
    steady || progress.abort || done ? undefined : canaryScaleAt(steps, progress.stepIndex);
  const held = others.filter((rs) => heldUntil(rs) > now);
  for (const rs of held) pass.requeue.push(heldUntil(rs));
  const movable = others.filter((rs) => !held.includes(rs));
  let counts = canaryCounts({
    replicas,
    weight: scale ? scaleAsWeight(scale, replicas) : weight,
    maxSurge,
    maxUnavailable,
    trafficRouted: false,
    stable: countsOf(stable),
    canary: countsOf(current),
    others: movable.map((rs) => countsOf(rs) ?? { spec: 0, available: 0 }),
  });
  if (progress.abort && !steady && current && canary.stableService !== undefined) {
    // The pinned stable Service already keeps traffic off the canary: keep its pods for
    // abortScaleDownDelaySeconds (0: until retried) so people can look at them.
    const delay = canary.abortScaleDownDelaySeconds ?? DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS;
    const deadline = Date.parse(progress.abortedAt ?? nowIso) + delay * 1000;
    if (delay === 0 || now < deadline) {
      counts = { ...counts, canary: current.spec?.replicas ?? 0, stable: replicas };
      if (delay > 0) pass.requeue.push(deadline);
    }
  }

  // ReplicaSets: every scale-up before any scale-down, so capacity never dips between two
  // writes (an abort grows the stable before it shrinks the canary); the stable grows first.
  const canaryRole = steady ? canary.stableMetadata : canary.canaryMetadata;
  const otherRole = steady ? canary.canaryMetadata : canary.stableMetadata;
  const scales: ScaleWrite[] = [];
  if (stable !== undefined) {
    scales.push(scaleTo(stable, counts.stable, canary.stableMetadata, canary.canaryMetadata));
  }
  if (current === undefined) {
    const body = replicaSetBody(rollout, {
      hash,
      replicas: counts.canary,
      revision,
      roleMetadata: canaryRole,
    });
    scales.push({
      grows: true,
      writes: [
        { kind: 'applyReplicaSet', body, reason: 'create' },
        normal(
          Reason.NewReplicaSetCreated,
          `Created ReplicaSet ${body.metadata?.name} (revision ${revision}) with size ${counts.canary}`,
        ),
      ],
    });
  } else {
    scales.push(scaleTo(current, counts.canary, canaryRole, otherRole));
  }
  movable.forEach((rs, i) => scales.push(scaleTo(rs, counts.others[i] ?? 0, undefined, undefined)));
  for (const grows of [true, false]) {
    for (const s of scales) if (s.grows === grows) pass.writes.push(...s.writes);
  }
  const scaled = pass.writes.some((w) => w.kind === 'applyReplicaSet');
  deleteOldReplicaSets(pass, others, held, spec.revisionHistoryLimit);

  // Analysis: the step's run and the background run give their verdicts (abort, pause, go on).
  const analysis = planAnalysis({
    ctx: {
      rollout,
      hash,
      stableHash: progress.stableHash,
      revision,
      templates: o.analysisTemplates ?? NO_TEMPLATES,
      clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
    },
    runs: o.analysisRuns ?? [],
    progress,
    steps,
    background: canary.analysis,
    inFlight: !steady && !progress.abort && !done && spec.paused !== true && current !== undefined,
    retrying: !progress.abort && status.abortedAt !== undefined,
    stored: status,
    limits: {
      successful: spec.analysis?.successfulRunHistoryLimit,
      unsuccessful: spec.analysis?.unsuccessfulRunHistoryLimit,
    },
    now,
  });
  progress = analysis.progress;
  pass.writes.push(...analysis.writes);
  pass.after.push(...analysis.events);

  // Steps: one decision per pass, only once the ReplicaSets have reached this step's counts.
  if (!steady && !progress.abort && spec.paused !== true && current !== undefined) {
    const atDesired =
      !scaled &&
      // Exactly the counts (Argo's AtDesiredReplicaCountsForCanary): extra stable pods still
      // serving would make the next timed pause start at the old split.
      available(current) === counts.canary &&
      (stable === undefined || available(stable) === counts.stable) &&
      movable.every((rs) => available(rs) === 0);
    if (done) {
      if (!scaled && (current.spec?.replicas ?? 0) === replicas && available(current) >= replicas) {
        progress = promote(pass, progress, hash, revision, stable, steps.length);
      }
    } else {
      progress = stepDecision(pass, progress, steps, atDesired, analysis.stepVerdict);
    }
  }

  pinServices(pass, progress, hash, steady, current);
  patchPodRoles(pass, progress.stableHash, hash);

  const restart = decideRestart({
    restartAt: spec.restartAt,
    restartedAt: status.restartedAt,
    now,
    pods: o.pods,
    hashOrder: [progress.stableHash, hash, ...others.map((rs) => hashOf(rs) ?? '')],
    maxUnavailable,
    unavailable: unavailableCount(o.replicaSets),
  });
  if (restart.requeueAt !== undefined) pass.requeue.push(restart.requeueAt);
  if (!scaled) for (const name of restart.evict) pass.writes.push({ kind: 'evictPod', name });
  if (restart.restartedAt !== undefined && restart.restartedAt !== status.restartedAt) {
    pass.after.push(
      normal(Reason.RolloutRestarted, `Restarted all pods created before ${restart.restartedAt}`),
    );
  }

  const built = buildStatus({
    rollout,
    now,
    hash,
    stepsHash: sHash,
    stepCount: steps.length,
    progress,
    revision,
    replicaSets: o.replicaSets,
    current,
    restartedAt: restart.restartedAt,
    restartPending: restart.pending,
    canaryWeight: progress.stableHash === hash ? undefined : actualWeight(current, stable),
    analysisStatuses: analysis.statuses,
    abortMessage: analysis.abortMessage,
    maxUnavailable,
    indefiniteStep:
      !steady && !progress.abort && !done && steps[progress.stepIndex]?.pause !== undefined,
    waitingForScaleDown: held.length > 0,
    refusal: o.refusal,
  });
  if (built.requeueAt !== undefined) pass.requeue.push(built.requeueAt);
  // A refused ReplicaSet write: say so in status; the shell retries the rest with backoff.
  const writes = o.refusal === undefined ? [...pass.writes] : [];
  if (!sameStatus(built.status, status)) {
    writes.push({ kind: 'applyStatus', status: built.status }, ...pass.after, ...built.events);
  }
  if (pass.requeue.length === 0) return { writes };
  return { writes, requeueAfterMs: Math.max(0, Math.min(...pass.requeue) - now) };
}

/** No stableRS yet: the first template is stable at once (a first deploy has no steps); if
 *  status was lost, the newest other ReplicaSet with available pods is. */
function initialStable(replicaSets: readonly ReplicaSet[], hash: string): string {
  const candidates = replicaSets
    .filter((rs) => hashOf(rs) !== hash && available(rs) > 0)
    .sort((a, b) => revisionOf(b) - revisionOf(a));
  return (candidates[0] && hashOf(candidates[0])) ?? hash;
}

function scaleAsWeight(scale: CanaryScale, replicas: number): number {
  if (scale.weight !== undefined) return scale.weight;
  if (scale.replicas === undefined || replicas === 0) return 0;
  return Math.min(100, (scale.replicas * 100) / replicas);
}

function heldUntil(rs: ReplicaSet): number {
  const at = rs.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION];
  const t = at === undefined ? NaN : Date.parse(at);
  return Number.isNaN(t) ? 0 : t;
}

function available(rs: ReplicaSet): number {
  return rs.status?.availableReplicas ?? 0;
}

function unavailableCount(rss: readonly ReplicaSet[]): number {
  return Math.max(
    0,
    rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0) - available(rs), 0),
  );
}

function actualWeight(canaryRs: ReplicaSet | undefined, stableRs: ReplicaSet | undefined): number {
  const c = canaryRs ? available(canaryRs) : 0;
  const s = stableRs ? available(stableRs) : 0;
  return c + s === 0 ? 0 : Math.round((100 * c) / (c + s));
}
