/**
 * The status we own, assembled from the pass's decisions and the observed ReplicaSets:
 * counts, step bookkeeping, conditions (with the progress deadline) and the phase.
 */
import { ConditionType, Reason } from '../api/index.ts';
import type { Condition, ReplicaSet, Rollout, RolloutStatus } from '../api/index.ts';
import { getCondition, removeCondition, setCondition } from './conditions.ts';
import { computePhase } from './phase.ts';
import type { Progress } from './progress.ts';
import { selectorString } from './selector.ts';
import type { Write } from './types.ts';

export interface StatusInput {
  readonly rollout: Rollout;
  readonly now: number;
  readonly hash: string;
  readonly stepsHash: string;
  readonly stepCount: number;
  readonly progress: Progress;
  readonly revision: number;
  readonly replicaSets: readonly ReplicaSet[];
  readonly current?: ReplicaSet;
  readonly restartedAt?: string;
  readonly restartPending: boolean;
  /** Actual canary weight (pods' share) while a canary is in flight. */
  readonly canaryWeight?: number;
  readonly maxUnavailable: number;
}

export interface StatusResult {
  readonly status: RolloutStatus;
  readonly events: readonly Write[];
  readonly requeueAt?: number;
}

const sum = (rss: readonly ReplicaSet[], f: (rs: ReplicaSet) => number | undefined): number =>
  rss.reduce((n, rs) => n + (f(rs) ?? 0), 0);

export function buildStatus(i: StatusInput): StatusResult {
  const { rollout, progress: p } = i;
  const prev = rollout.status ?? {};
  const nowIso = new Date(i.now).toISOString();
  const spec = rollout.spec;
  const replicas = spec.replicas ?? 1;
  const live = i.replicaSets.filter((rs) => !rs.metadata?.deletionTimestamp);
  const counts = {
    replicas: sum(live, (rs) => rs.status?.replicas),
    updatedReplicas: i.current?.status?.replicas ?? 0,
    readyReplicas: sum(live, (rs) => rs.status?.readyReplicas),
    availableReplicas: sum(live, (rs) => rs.status?.availableReplicas),
  };
  const fullyPromoted = p.stableHash === i.hash;
  const paused = spec.paused === true || p.pauseConditions.length > 0;
  const rsName = i.current?.metadata?.name ?? `${rollout.metadata.name}-${i.hash}`;
  const events: Write[] = [];
  let abort = p.abort;
  let abortedAt = p.abortedAt;
  let requeueAt: number | undefined;

  let conditions: readonly Condition[] = removeCondition(
    prev.conditions ?? [],
    ConditionType.InvalidSpec,
  );
  const moved =
    prev.currentPodHash !== i.hash ||
    prev.currentStepIndex !== p.stepIndex ||
    prev.updatedReplicas !== counts.updatedReplicas ||
    prev.availableReplicas !== counts.availableReplicas ||
    prev.readyReplicas !== counts.readyReplicas;
  const settled =
    fullyPromoted &&
    counts.updatedReplicas === replicas &&
    counts.availableReplicas >= replicas &&
    counts.replicas === counts.updatedReplicas;

  const progressing = getCondition(conditions, ConditionType.Progressing);
  if (abort) {
    conditions = setCondition(
      conditions,
      progressingCond(
        'False',
        Reason.RolloutAborted,
        `Rollout aborted update to revision ${i.revision}`,
      ),
      nowIso,
    );
  } else if (paused) {
    conditions = setCondition(
      conditions,
      progressingCond('Unknown', Reason.RolloutPaused, 'Rollout is paused'),
      nowIso,
    );
  } else if (settled) {
    conditions = setCondition(
      conditions,
      progressingCond(
        'True',
        Reason.NewReplicaSetAvailable,
        `ReplicaSet "${rsName}" has successfully progressed.`,
      ),
      nowIso,
    );
  } else if (
    moved ||
    progressing === undefined ||
    (progressing.reason !== Reason.ReplicaSetUpdated &&
      progressing.reason !== Reason.ProgressDeadlineExceeded)
  ) {
    conditions = touch(
      conditions,
      progressingCond('True', Reason.ReplicaSetUpdated, `ReplicaSet "${rsName}" is progressing.`),
      nowIso,
    );
  } else if (progressing.reason === Reason.ReplicaSetUpdated) {
    const deadline =
      Date.parse(progressing.lastUpdateTime) + (spec.progressDeadlineSeconds ?? 600) * 1000;
    if (i.now >= deadline) {
      const message = `ReplicaSet "${rsName}" has timed out progressing.`;
      conditions = setCondition(
        conditions,
        progressingCond('False', Reason.ProgressDeadlineExceeded, message),
        nowIso,
      );
      events.push(warning(Reason.ProgressDeadlineExceeded, message));
      if (spec.progressDeadlineAbort === true && !fullyPromoted) {
        abort = true;
        abortedAt = nowIso;
        events.push(
          warning(
            Reason.RolloutAborted,
            `Rollout aborted update to revision ${i.revision}: progress deadline exceeded`,
          ),
        );
      }
    } else {
      requeueAt = deadline;
    }
  }

  const available = counts.availableReplicas >= replicas - i.maxUnavailable;
  conditions = setCondition(
    conditions,
    {
      type: ConditionType.Available,
      status: available ? 'True' : 'False',
      reason: Reason.AvailableReason,
      message: available
        ? 'Rollout has minimum availability'
        : 'Rollout does not have minimum availability',
    },
    nowIso,
  );
  conditions = setCondition(
    conditions,
    settled
      ? {
          type: ConditionType.Completed,
          status: 'True',
          reason: Reason.RolloutCompleted,
          message: `Rollout completed update to revision ${i.revision} (${i.hash})`,
        }
      : {
          type: ConditionType.Completed,
          status: 'False',
          reason: Reason.RolloutNotCompleted,
          message: `Rollout not completed, started update to revision ${i.revision} (${i.hash})`,
        },
    nowIso,
  );
  if (paused || getCondition(conditions, ConditionType.Paused)) {
    conditions = setCondition(
      conditions,
      paused
        ? {
            type: ConditionType.Paused,
            status: 'True',
            reason: Reason.RolloutPaused,
            message: 'Rollout is paused',
          }
        : {
            type: ConditionType.Paused,
            status: 'False',
            reason: Reason.RolloutResumed,
            message: 'Rollout is resumed',
          },
      nowIso,
    );
  }

  const { phase, message } = computePhase({
    conditions,
    specPaused: spec.paused === true,
    pauseConditions: p.pauseConditions,
    restartPending: i.restartPending,
    replicas,
    updatedReplicas: counts.updatedReplicas,
    availableReplicas: counts.availableReplicas,
    totalReplicas: counts.replicas,
    fullyPromoted,
  });
  const healthy = phase === 'Healthy';
  conditions = setCondition(
    conditions,
    {
      type: ConditionType.Healthy,
      status: healthy ? 'True' : 'False',
      reason: healthy ? Reason.RolloutHealthy : Reason.RolloutNotHealthy,
      message: healthy ? 'Rollout is healthy' : 'Rollout is not healthy',
    },
    nowIso,
  );

  const canary = spec.strategy.canary;
  const status: RolloutStatus = compact({
    phase,
    message,
    observedGeneration: String(rollout.metadata.generation ?? 0),
    currentPodHash: i.hash,
    stableRS: p.stableHash,
    currentStepIndex: i.stepCount > 0 ? p.stepIndex : undefined,
    currentStepHash: i.stepsHash,
    ...counts,
    HPAReplicas: counts.replicas,
    selector: selectorString(spec.selector),
    collisionCount: prev.collisionCount,
    pauseConditions: p.pauseConditions.length > 0 ? [...p.pauseConditions] : undefined,
    controllerPause: p.controllerPause || undefined,
    // Always explicit: the plugin sets these (its field manager owns them then), and only an
    // apply that says `false` takes them back; leaving them out would leave the request standing.
    abort,
    abortedAt: abort ? abortedAt : undefined,
    promoteFull: p.promoteFull,
    restartedAt: i.restartedAt,
    canary:
      i.canaryWeight === undefined
        ? undefined
        : {
            weights: {
              canary: compact({
                weight: i.canaryWeight,
                podTemplateHash: i.hash,
                serviceName: canary?.canaryService,
              }),
              stable: compact({
                weight: 100 - i.canaryWeight,
                podTemplateHash: p.stableHash,
                serviceName: canary?.stableService,
              }),
            },
          },
    conditions: [...conditions],
  });
  return { status, events, requeueAt };
}

function progressingCond(status: 'True' | 'False' | 'Unknown', reason: Reason, message: string) {
  return { type: ConditionType.Progressing, status, reason, message } as const;
}

/** Like setCondition, but also moves lastUpdateTime when nothing else changed: progress was
 *  made, so the progress deadline starts again. */
function touch(
  list: readonly Condition[],
  next: ReturnType<typeof progressingCond>,
  now: string,
): readonly Condition[] {
  const set = setCondition(list, next, now);
  return set === list
    ? list.map((c) => (c.type === next.type ? { ...c, lastUpdateTime: now } : c))
    : set;
}

function warning(reason: Reason, message: string): Write {
  return { kind: 'event', type: 'Warning', reason, message };
}

/** Drops undefined fields, so equal statuses compare equal as JSON. */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
