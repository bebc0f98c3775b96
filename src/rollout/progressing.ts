/**
 * The Progressing condition and the progress deadline, as Argo Rollouts keeps them
 * (calculateRolloutConditions, RolloutProgressing, RolloutTimedOut): `lastUpdateTime` moves only
 * when the rollout made progress, so the deadline measures time without progress; a pass that
 * sees nothing new leaves the condition as it is (no write), and asks to be woken at the deadline.
 */
import { ConditionType, Reason } from '../api/index.ts';
import type { Condition, RolloutStatus } from '../api/index.ts';
import { getCondition, setCondition } from './conditions.ts';
import type { Write } from './types.ts';

/** Argo's default progressDeadlineSeconds. */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

/** The status fields progress is read from, as this pass will write them. */
export interface ProgressFields {
  readonly currentPodHash: string;
  readonly stableRS: string;
  readonly currentStepIndex?: number;
  readonly currentStepHash?: string;
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
}

/** A write of ours that the API server refused (its message), seen by the shell this pass. */
export interface Refusal {
  readonly replicaSet: string;
  readonly create: boolean;
  readonly message: string;
}

export interface ProgressingInput {
  /** The stored status (what the last pass wrote, as the API server kept it). */
  readonly prev: RolloutStatus;
  readonly next: ProgressFields;
  readonly conditions: readonly Condition[];
  readonly now: number;
  readonly rolloutName: string;
  readonly rsName: string;
  readonly revision: number;
  readonly abort: boolean;
  readonly paused: boolean;
  /** Fully promoted with every pod updated and available: the rollout is done. */
  readonly settled: boolean;
  readonly fullyPromoted: boolean;
  /** At a step that waits on purpose (pause): time there is not lack of progress. */
  readonly indefiniteStep: boolean;
  /** An older ReplicaSet is held by scaleDownDelaySeconds: not lack of progress either. */
  readonly waitingForScaleDown: boolean;
  readonly progressDeadlineSeconds?: number;
  readonly progressDeadlineAbort: boolean;
  readonly refusal?: Refusal;
  /** Why the rollout is aborted this pass (a failed analysis); kept in the message. */
  readonly abortMessage?: string;
}

export interface ProgressingResult {
  readonly conditions: readonly Condition[];
  /** True when this pass aborts the rollout for missing its deadline. */
  readonly abortNow: boolean;
  readonly events: readonly Write[];
  readonly requeueAt?: number;
}

/**
 * Argo's RolloutProgressing, over stored values: a field the stored status omits counts as 0 (or
 * unset), so a pass never mistakes a zero it wrote for a change. The step index counts only when
 * both sides have one (a Rollout without steps writes none).
 */
function progressMade(prev: RolloutStatus, next: ProgressFields): boolean {
  const n = (v: number | undefined): number => v ?? 0;
  const stepMoved =
    prev.currentStepIndex !== undefined &&
    next.currentStepIndex !== undefined &&
    prev.currentStepIndex !== next.currentStepIndex;
  return (
    prev.currentPodHash !== next.currentPodHash ||
    (prev.stableRS ?? '') !== next.stableRS ||
    (prev.currentStepHash ?? '') !== (next.currentStepHash ?? '') ||
    stepMoved ||
    n(prev.updatedReplicas) !== next.updatedReplicas ||
    next.replicas - next.updatedReplicas < n(prev.replicas) - n(prev.updatedReplicas) ||
    next.readyReplicas > n(prev.readyReplicas) ||
    next.availableReplicas > n(prev.availableReplicas)
  );
}

export function progressingCondition(i: ProgressingInput): ProgressingResult {
  const nowIso = new Date(i.now).toISOString();
  const set = (status: 'True' | 'False' | 'Unknown', reason: Reason, message: string) =>
    setCondition(
      i.conditions,
      { type: ConditionType.Progressing, status, reason, message },
      nowIso,
    );
  const unchanged: ProgressingResult = { conditions: i.conditions, abortNow: false, events: [] };

  const current = getCondition(i.conditions, ConditionType.Progressing);
  if (i.abort) {
    // Keep the message an abort was recorded with (it may say why: a missed deadline).
    if (current?.reason === Reason.RolloutAborted && current.status === 'False') return unchanged;
    return {
      ...unchanged,
      conditions: set(
        'False',
        Reason.RolloutAborted,
        i.abortMessage === undefined
          ? abortedMessage(i.revision)
          : `${abortedMessage(i.revision)}: ${i.abortMessage}`,
      ),
    };
  }
  if (i.refusal !== undefined) {
    const { replicaSet, create, message } = i.refusal;
    const text = `Failed to ${create ? 'create new' : 'update'} replica set "${replicaSet}": ${message}`;
    const reason = create ? Reason.ReplicaSetCreateError : Reason.ReconciliationError;
    const conditions = set('False', reason, text);
    // One event per distinct refusal: a retry refused the same way changes nothing.
    return {
      ...unchanged,
      conditions,
      events: conditions === i.conditions ? [] : [warning(reason, text)],
    };
  }
  if (i.paused) {
    return { ...unchanged, conditions: set('Unknown', Reason.RolloutPaused, 'Rollout is paused') };
  }
  if (i.settled) {
    const message = `ReplicaSet "${i.rsName}" has successfully progressed.`;
    return { ...unchanged, conditions: set('True', Reason.NewReplicaSetAvailable, message) };
  }

  const message = `ReplicaSet "${i.rsName}" is progressing.`;
  if (
    current?.reason === Reason.ProgressDeadlineExceeded &&
    i.progressDeadlineAbort &&
    !i.fullyPromoted &&
    !progressMade(i.prev, i.next)
  ) {
    // progressDeadlineAbort set after the deadline passed: abort now, as Argo does on every pass
    // that finds the rollout timed out with the flag set.
    return {
      conditions: set(
        'False',
        Reason.RolloutAborted,
        `${abortedMessage(i.revision)}: ${current.message}`,
      ),
      abortNow: true,
      events: [],
    };
  }
  const counting = current?.reason === Reason.ReplicaSetUpdated;
  if (
    progressMade(i.prev, i.next) ||
    (!counting && current?.reason !== Reason.ProgressDeadlineExceeded)
  ) {
    // Progress (or the first pass after a pause, an abort or a refusal): the deadline starts
    // again from now. setCondition keeps an identical condition, so move lastUpdateTime here.
    const next = set('True', Reason.ReplicaSetUpdated, message);
    return {
      ...unchanged,
      conditions:
        next === i.conditions
          ? i.conditions.map((c) =>
              c.type === ConditionType.Progressing ? { ...c, lastUpdateTime: nowIso } : c,
            )
          : next,
    };
  }
  if (!counting || current === undefined || i.indefiniteStep || i.waitingForScaleDown) {
    return unchanged;
  }
  const seconds = i.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  const deadline = Date.parse(current.lastUpdateTime) + seconds * 1000;
  if (!(i.now >= deadline)) {
    return Number.isNaN(deadline) ? unchanged : { ...unchanged, requeueAt: deadline };
  }
  const timedOut = `ReplicaSet "${i.rsName}" has timed out progressing.`;
  const events: Write[] = [warning(Reason.ProgressDeadlineExceeded, timedOut)];
  const abortNow = i.progressDeadlineAbort && !i.fullyPromoted;
  if (abortNow) {
    // The abort itself (steps reset, abortedAt, its event) is the planner's next pass.
    return {
      conditions: set('False', Reason.RolloutAborted, `${abortedMessage(i.revision)}: ${timedOut}`),
      abortNow,
      events,
    };
  }
  return { conditions: set('False', Reason.ProgressDeadlineExceeded, timedOut), abortNow, events };
}

function abortedMessage(revision: number): string {
  return `Rollout aborted update to revision ${revision}`;
}

function warning(reason: Reason, message: string): Write {
  return { kind: 'event', type: 'Warning', reason, message };
}
