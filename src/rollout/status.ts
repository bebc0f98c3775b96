/**
 * The status we own, assembled from the pass's decisions and the observed ReplicaSets:
 * counts, step bookkeeping, conditions (with the progress deadline) and the phase.
 * Strategy-neutral: the strategy's own block (`status.canary`) comes built from the strategy.
 */
import { ConditionType, POD_TEMPLATE_HASH_LABEL, Reason } from '../api/index.ts';
import type {
  ApprovalRecord,
  Condition,
  LabelSelector,
  ReplicaSet,
  Rollout,
  RolloutStatus,
} from '../api/index.ts';
import { getCondition, removeCondition, setCondition } from './conditions.ts';
import { computePhase } from './phase.ts';
import { progressingCondition } from './progressing.ts';
import type { Refusal } from './progressing.ts';
import type { Progress } from './progress.ts';
import { selectorString } from '../api/selector.ts';
import type { Write } from './types.ts';

export interface StatusInput {
  readonly rollout: Rollout;
  readonly now: number;
  readonly hash: string;
  readonly stepsHash?: string;
  readonly stepCount: number;
  readonly progress: Progress;
  readonly revision: number;
  readonly replicaSets: readonly ReplicaSet[];
  readonly current?: ReplicaSet;
  readonly restartedAt?: string;
  readonly restartPending: boolean;
  /** The strategy's own status block, built by the strategy (`status.canary`,
   *  `status.blueGreen`). */
  readonly strategyStatus: Pick<RolloutStatus, 'canary' | 'blueGreen'>;
  /** The ReplicaSet that serves users when one alone does (blue-green's active): ready,
   *  available, HPA replicas and the selector are its own, so an HPA scales the version that
   *  serves. Absent: every ReplicaSet counts (a canary's pods all serve). */
  readonly served?: ReplicaSet;
  /** Older ReplicaSets still holding pods do not keep the update from completing (blue-green:
   *  no Service selects them while they wait out their scale-down delay). */
  readonly completesWithOldPods?: boolean;
  /** Why the strategy is not done although the pods are (Argo's "active service cutover
   *  pending"); checked before `fullyPromoted`. */
  readonly strategyPending?: string;
  readonly maxUnavailable: number;
  /** At a pause step: waiting there is not lack of progress. */
  readonly indefiniteStep: boolean;
  /** An older ReplicaSet is held by scaleDownDelaySeconds. */
  readonly waitingForScaleDown: boolean;
  readonly refusal?: Refusal;
  /** Why an abort this pass happened (a failed analysis), for the Progressing message. */
  readonly abortMessage?: string;
  /** Why the rollout is paused, for the Paused condition (default "Rollout is paused"). */
  readonly pausedMessage?: string;
  /** status.approvals after this pass. */
  readonly approvals?: readonly ApprovalRecord[];
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
  const serving = i.served === undefined ? live : [i.served];
  const counts = {
    replicas: sum(live, (rs) => rs.status?.replicas),
    updatedReplicas: i.current?.status?.replicas ?? 0,
    readyReplicas: sum(serving, (rs) => rs.status?.readyReplicas),
    availableReplicas: sum(serving, (rs) => rs.status?.availableReplicas),
  };
  const fullyPromoted = p.stableHash === i.hash;
  const paused = spec.paused === true || p.pauseConditions.length > 0;
  const rsName = i.current?.metadata?.name ?? `${rollout.metadata.name}-${i.hash}`;
  const settled =
    fullyPromoted &&
    counts.updatedReplicas === replicas &&
    counts.availableReplicas >= replicas &&
    (i.completesWithOldPods === true || counts.replicas === counts.updatedReplicas) &&
    i.strategyPending === undefined;

  const currentStepIndex = i.stepCount > 0 ? p.stepIndex : undefined;
  const progressing = progressingCondition({
    prev,
    next: {
      currentPodHash: i.hash,
      stableRS: p.stableHash,
      currentStepIndex,
      currentStepHash: i.stepsHash,
      ...counts,
    },
    conditions: removeCondition(prev.conditions ?? [], ConditionType.InvalidSpec),
    now: i.now,
    rolloutName: rollout.metadata.name ?? '',
    rsName,
    revision: i.revision,
    abort: p.abort,
    paused,
    settled,
    fullyPromoted,
    indefiniteStep: i.indefiniteStep,
    waitingForScaleDown: i.waitingForScaleDown,
    progressDeadlineSeconds: spec.progressDeadlineSeconds,
    progressDeadlineAbort: spec.progressDeadlineAbort === true,
    refusal: i.refusal,
    abortMessage: i.abortMessage,
  });
  const abort = p.abort || progressing.abortNow;
  // Left unset on a deadline abort: the next pass acts on it as on a person's abort request.
  const abortedAt = progressing.abortNow ? undefined : p.abortedAt;
  const events: Write[] = [...progressing.events];

  const more = availabilityAndStages(progressing.conditions, i, {
    rsName,
    available: counts.availableReplicas >= replicas - i.maxUnavailable,
    fullyPromoted,
    paused,
  });
  events.push(...more.events);
  let conditions = more.conditions;

  const { phase, message } = computePhase({
    conditions,
    specPaused: spec.paused === true,
    pauseConditions: p.pauseConditions,
    restartPending: i.restartPending,
    replicas,
    updatedReplicas: counts.updatedReplicas,
    availableReplicas: counts.availableReplicas,
    totalReplicas: i.completesWithOldPods === true ? counts.updatedReplicas : counts.replicas,
    fullyPromoted,
    strategyPending: i.strategyPending,
  });
  conditions = healthyCondition(conditions, phase === 'Healthy', nowIso);

  const status: RolloutStatus = compact({
    phase,
    message,
    observedGeneration: String(rollout.metadata.generation ?? 0),
    currentPodHash: i.hash,
    stableRS: p.stableHash,
    currentStepIndex,
    currentStepHash: i.stepsHash,
    ...counts,
    HPAReplicas: i.served === undefined ? counts.replicas : (i.served.status?.replicas ?? 0),
    selector: selectorString(servedSelector(spec.selector ?? {}, i.served)),
    collisionCount: prev.collisionCount,
    pauseConditions: p.pauseConditions.length > 0 ? [...p.pauseConditions] : undefined,
    controllerPause: p.controllerPause || undefined,
    // Always explicit: the plugin sets these (its field manager owns them then), and only an
    // apply that says `false` takes them back; leaving them out would leave the request standing.
    abort,
    abortedAt: abort ? abortedAt : undefined,
    promoteFull: p.promoteFull,
    restartedAt: i.restartedAt,
    canary: i.strategyStatus.canary,
    blueGreen: i.strategyStatus.blueGreen,
    conditions: [...conditions],
    approvals: i.approvals?.length ? [...i.approvals] : undefined,
  });
  return { status, events, requeueAt: progressing.requeueAt };
}

/**
 * Available (at least replicas - maxUnavailable available), ReplicaFailure, Completed (Argo's:
 * fully promoted, with an event when an update starts) and Paused (once ever paused).
 */
function availabilityAndStages(
  from: readonly Condition[],
  i: StatusInput,
  s: { rsName: string; available: boolean; fullyPromoted: boolean; paused: boolean },
): { conditions: readonly Condition[]; events: Write[] } {
  const nowIso = new Date(i.now).toISOString();
  const events: Write[] = [];
  let conditions = setCondition(
    from,
    {
      type: ConditionType.Available,
      status: s.available ? 'True' : 'False',
      reason: Reason.AvailableReason,
      message: s.available
        ? 'Rollout has minimum availability'
        : 'Rollout does not have minimum availability',
    },
    nowIso,
  );
  conditions = replicaFailure(conditions, i, s.rsName, nowIso);
  const completedBefore = getCondition(conditions, ConditionType.Completed)?.status;
  conditions = setCondition(
    conditions,
    {
      type: ConditionType.Completed,
      status: s.fullyPromoted ? 'True' : 'False',
      reason: Reason.RolloutCompleted,
      message: Reason.RolloutCompleted,
    },
    nowIso,
  );
  if (!s.fullyPromoted && completedBefore !== 'False') {
    events.push({
      kind: 'event',
      type: 'Normal',
      reason: Reason.RolloutNotCompleted,
      message: `Rollout not completed, started update to revision ${i.revision} (${i.hash})`,
    });
  }
  if (s.paused || getCondition(conditions, ConditionType.Paused)) {
    conditions = setCondition(
      conditions,
      s.paused
        ? {
            type: ConditionType.Paused,
            status: 'True',
            reason: Reason.RolloutPaused,
            message: i.pausedMessage ?? 'Rollout is paused',
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
  return { conditions, events };
}

/** Argo's Healthy: reason RolloutHealthy either way, the message says which. */
function healthyCondition(
  conditions: readonly Condition[],
  healthy: boolean,
  nowIso: string,
): readonly Condition[] {
  return setCondition(
    conditions,
    {
      type: ConditionType.Healthy,
      status: healthy ? 'True' : 'False',
      reason: Reason.RolloutHealthy,
      message: healthy ? 'Rollout is healthy' : 'Rollout is not healthy',
    },
    nowIso,
  );
}

/** Argo's getReplicaFailures, plus a write of ours the API server refused: the refusal first,
 *  then the new ReplicaSet's own ReplicaFailure (pods it cannot create), then any other's. */
function replicaFailure(
  list: readonly Condition[],
  i: StatusInput,
  rsName: string,
  nowIso: string,
): readonly Condition[] {
  if (i.refusal !== undefined) {
    return setCondition(
      list,
      {
        type: ConditionType.ReplicaFailure,
        status: 'True',
        reason: i.refusal.create ? Reason.ReplicaSetCreateError : Reason.ReconciliationError,
        message: `ReplicaSet "${i.refusal.replicaSet}" was refused by the API server: ${i.refusal.message}`,
      },
      nowIso,
    );
  }
  const failing = [i.current, ...i.replicaSets.filter((rs) => rs !== i.current)].flatMap((rs) =>
    (rs?.status?.conditions ?? [])
      .filter((c) => c.type === 'ReplicaFailure' && c.status === 'True')
      .map((c) => ({ rs: rs?.metadata?.name ?? rsName, c })),
  )[0];
  if (failing === undefined) return removeCondition(list, ConditionType.ReplicaFailure);
  return setCondition(
    list,
    {
      type: ConditionType.ReplicaFailure,
      status: 'True',
      reason: failing.c.reason ?? 'ReplicaFailure',
      message: `ReplicaSet "${failing.rs}": ${failing.c.message ?? ''}`,
    },
    nowIso,
  );
}

/** The serving ReplicaSet's selector (the Rollout's plus its pod-template hash), as Argo reports
 *  it for blue-green; the Rollout's own without one. */
function servedSelector(selector: LabelSelector, served: ReplicaSet | undefined): LabelSelector {
  const hash = served?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
  if (hash === undefined) return selector;
  return { ...selector, matchLabels: { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } };
}

/** Drops undefined fields, so equal statuses compare equal as JSON. */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
