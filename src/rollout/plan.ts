/**
 * The planner: given what the shell observed (Rollout, its ReplicaSets, pods and Services, and
 * the time), the ordered writes that move the Rollout one safe step on. Pure: no I/O, no clock,
 * inputs never modified. A settled Rollout plans no writes, so an idle controller is silent.
 */
import { PauseReason, Reason, SCALE_DOWN_DEADLINE_ANNOTATION } from '../api/index.ts';
import type { CanaryStep, CanaryStrategy, ReplicaSet } from '../api/index.ts';
import { setCondition } from './conditions.ts';
import { ConditionType } from '../api/index.ts';
import { parsePauseDuration } from './duration.ts';
import { podTemplateHash } from './hash.ts';
import { resolveSurgeUnavailable } from './intorpercent.ts';
import { podMetadataPatch } from './pod-metadata.ts';
import { readProgress, restartSteps, settled } from './progress.ts';
import type { Progress } from './progress.ts';
import { canaryCounts } from './replicas.ts';
import type { CanaryScale } from './replicas.ts';
import {
  classify,
  countsOf,
  hashOf,
  nextRevision,
  replicaSetBody,
  replicaSetDiffers,
  rescaledBody,
  revisionOf,
} from './replicasets.ts';
import { decideRestart } from './restart.ts';
import { pinService } from './services.ts';
import { sameStatus } from './same-status.ts';
import { buildStatus } from './status.ts';
import { canaryScaleAt, stepLabel, stepsHash, weightAt } from './steps.ts';
import type { Observed, Plan, Write } from './types.ts';
import { specProblems } from './validate.ts';

const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;
const DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS = 30;
const DEFAULT_REVISION_HISTORY_LIMIT = 10;

export function plan(o: Observed): Plan {
  const problems = specProblems(o.rollout, o.services);
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

/** Everything a canary pass decides, gathered as it goes. */
interface Pass {
  readonly o: Observed;
  readonly canary: CanaryStrategy;
  readonly writes: Write[];
  /** Events describing the status write; emitted after it. */
  readonly after: Write[];
  readonly requeue: number[];
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
      progress = stepDecision(pass, progress, steps, atDesired);
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

function stepDecision(
  pass: Pass,
  p: Progress,
  steps: readonly CanaryStep[],
  atDesired: boolean,
): Progress {
  const index = p.stepIndex;
  const step = steps[index];
  const completed = (): Progress => {
    pass.after.push(
      normal(
        Reason.RolloutStepCompleted,
        `Rollout step ${index + 1}/${steps.length} completed (${stepLabel(step)})`,
      ),
    );
    return { ...p, stepIndex: index + 1 };
  };
  if (step?.pause === undefined) return atDesired ? completed() : p;
  const now = pass.o.now;
  const duration =
    step.pause.duration === undefined ? undefined : parsePauseDuration(step.pause.duration);
  const durationMs = duration?.ok === true ? duration.value : undefined;
  const pause = p.pauseConditions.find((c) => c.reason === PauseReason.CanaryPauseStep);
  const unpaused = {
    ...p,
    controllerPause: false,
    pauseConditions: p.pauseConditions.filter((c) => c !== pause),
  };
  if (pause === undefined && p.controllerPause && p.pauseConditions.length === 0) {
    // We paused, and someone cleared the pause conditions: promoted.
    pass.after.push(normal(Reason.RolloutResumed, 'Rollout is resumed (promoted)'));
    return { ...completed(), ...unpaused, stepIndex: index + 1 };
  }
  if (pause === undefined) {
    if (durationMs === 0) return completed();
    if (durationMs !== undefined) pass.requeue.push(now + durationMs);
    pass.after.push(
      normal(Reason.RolloutPaused, `Rollout is paused (${PauseReason.CanaryPauseStep})`),
    );
    return {
      ...p,
      controllerPause: true,
      pauseConditions: [
        ...p.pauseConditions,
        { reason: PauseReason.CanaryPauseStep, startTime: new Date(now).toISOString() },
      ],
    };
  }
  if (durationMs === undefined) return p;
  const end = Date.parse(pause.startTime) + durationMs;
  if (now < end) {
    pass.requeue.push(end);
    return p;
  }
  pass.after.push(normal(Reason.RolloutResumed, 'Rollout is resumed (pause ended)'));
  return { ...completed(), ...unpaused, stepIndex: index + 1 };
}

function promote(
  pass: Pass,
  p: Progress,
  hash: string,
  revision: number,
  previousStable: ReplicaSet | undefined,
  stepCount: number,
): Progress {
  const { o, canary } = pass;
  pass.after.push(
    normal(Reason.RolloutCompleted, `Rollout completed update to revision ${revision} (${hash})`),
  );
  const left = previousStable?.spec?.replicas ?? 0;
  if (previousStable !== undefined && left > 0 && canary.stableService !== undefined) {
    // The stable Service switches this pass: keep the old pods while connections drain.
    const delay = canary.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
    const deadline = new Date(o.now + delay * 1000).toISOString();
    pass.writes.push({
      kind: 'applyReplicaSet',
      reason: 'scale-down-delay',
      body: rescaledBody(previousStable, { replicas: left, scaleDownDeadline: deadline }),
    });
    pass.requeue.push(o.now + delay * 1000);
  }
  return {
    ...p,
    stableHash: hash,
    stepIndex: stepCount,
    promoteFull: false,
    pauseConditions: [],
    controllerPause: false,
  };
}

/** The writes that bring one ReplicaSet to a count (none when it is there already). */
interface ScaleWrite {
  readonly grows: boolean;
  readonly writes: readonly Write[];
}

function scaleTo(
  rs: ReplicaSet,
  replicas: number,
  role: CanaryStrategy['canaryMetadata'],
  drop: CanaryStrategy['canaryMetadata'],
): ScaleWrite {
  const body = rescaledBody(rs, { replicas, roleMetadata: role, dropMetadata: drop });
  const from = rs.spec?.replicas ?? 0;
  if (!replicaSetDiffers(rs, body)) return { grows: true, writes: [] };
  const writes: Write[] = [{ kind: 'applyReplicaSet', body, reason: 'scale' }];
  if (from !== replicas) {
    writes.push(
      normal(
        Reason.ScalingReplicaSet,
        `Scaled ${replicas > from ? 'up' : 'down'} ` +
          `ReplicaSet ${rs.metadata?.name} (revision ${revisionOf(rs)}) from ${from} to ${replicas}`,
      ),
    );
  }
  return { grows: replicas >= from, writes };
}

/** Scaled-down ReplicaSets beyond revisionHistoryLimit, oldest first. */
function deleteOldReplicaSets(
  pass: Pass,
  others: readonly ReplicaSet[],
  held: readonly ReplicaSet[],
  limit = DEFAULT_REVISION_HISTORY_LIMIT,
): void {
  others.forEach((rs, i) => {
    if (i < limit || held.includes(rs)) return;
    if ((rs.spec?.replicas ?? 0) > 0 || (rs.status?.replicas ?? 0) > 0) return;
    pass.writes.push(
      { kind: 'deleteReplicaSet', name: rs.metadata?.name ?? '' },
      normal(
        Reason.DeletedOldReplicaSet,
        `Deleted old ReplicaSet ${rs.metadata?.name} (revision ${revisionOf(rs)})`,
      ),
    );
  });
}

function pinServices(
  pass: Pass,
  p: Progress,
  hash: string,
  steady: boolean,
  current: ReplicaSet | undefined,
): void {
  const { o, canary } = pass;
  const name = o.rollout.metadata.name ?? '';
  const canaryLive = !steady && !p.abort && current !== undefined && available(current) > 0;
  const targets: [string | undefined, string][] = [
    [canary.canaryService, canaryLive ? hash : p.stableHash],
    [canary.stableService, p.stableHash],
  ];
  for (const [serviceName, target] of targets) {
    const service = serviceName === undefined ? undefined : o.services.get(serviceName);
    if (service === undefined) continue;
    const change = pinService(service, target, name);
    if (change === undefined) continue;
    pass.writes.push(
      { kind: 'applyService', body: change.body },
      normal(
        Reason.SwitchService,
        `Switched selector for service '${serviceName}' from '${change.from ?? ''}' to '${change.to}'`,
      ),
    );
  }
}

function patchPodRoles(pass: Pass, stableHash: string, hash: string): void {
  const { o, canary } = pass;
  if (canary.canaryMetadata === undefined && canary.stableMetadata === undefined) return;
  for (const pod of o.pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const podHash = pod.metadata?.labels?.['rollouts-pod-template-hash'];
    const role = podHash === stableHash ? 'stable' : podHash === hash ? 'canary' : undefined;
    if (role === undefined) continue;
    const patch =
      role === 'stable'
        ? podMetadataPatch(pod, canary.stableMetadata, canary.canaryMetadata)
        : podMetadataPatch(pod, canary.canaryMetadata, canary.stableMetadata);
    if (patch)
      pass.writes.push({ kind: 'patchPodMetadata', name: pod.metadata?.name ?? '', patch });
  }
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

function normal(reason: Reason, message: string): Write {
  return { kind: 'event', type: 'Normal', reason, message };
}

function warning(reason: Reason, message: string): Write {
  return { kind: 'event', type: 'Warning', reason, message };
}
