/**
 * The step decision of a canary pass: setWeight and setCanaryScale steps complete once the
 * ReplicaSets are at their counts, pauses wait (for their duration or a person), analysis steps
 * for their run's verdict, approval steps for people (approval-step.ts); and the full promotion
 * at the end (the canary becomes the stable). Each returns the progress after it and a Fragment
 * (its events, its requeue time, the old stable's hold on promotion).
 */
import { PauseReason, Reason } from '../../api/index.ts';
import type { ApprovalRecord, CanaryStep, CanaryStrategy, ReplicaSet } from '../../api/index.ts';
import { parsePauseDuration } from '../../api/pause-duration.ts';
import type { Verdict } from '../analysis.ts';
import { normal } from '../events.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import { rescaledBody } from '../replicasets.ts';
import type { Condition } from '../../api/index.ts';
import type { EventWrite } from '../types.ts';
import { approvalStepDecision } from './approval-step.ts';
import { stepLabel } from './steps.ts';

const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;

/** What the step decision has to tell the status: why it aborts, why it is paused. */
export interface StepNotes {
  readonly abortMessage?: string;
  readonly pausedMessage?: string;
}

/** A step decision: the progress after it, what it writes and when to look again. */
export interface StepOutcome {
  readonly progress: Progress;
  readonly fragment: Fragment;
  readonly notes?: StepNotes;
}

export interface StepContext {
  readonly now: number;
  /** The stored status's conditions (a repeated message is not said twice). */
  readonly conditions: readonly Condition[];
  readonly hash: string;
  readonly records: readonly ApprovalRecord[];
}

export function stepDecision(
  c: StepContext,
  p: Progress,
  steps: readonly CanaryStep[],
  atDesired: boolean,
  analysisVerdict: Verdict | undefined,
): StepOutcome {
  const index = p.stepIndex;
  const step = steps[index];
  const stepCompleted: EventWrite = {
    ...stepCompletedEvent(index, steps.length, stepLabel(step)),
    subject: { step: index, revision: c.hash },
  };
  /** The step is behind: the next one is in force; `before` is said first. */
  const completed = (before: readonly EventWrite[] = [], more: Partial<Progress> = {}) => ({
    progress: { ...p, ...more, stepIndex: index + 1 },
    fragment: { events: [...before, stepCompleted] },
  });
  const stay: StepOutcome = { progress: p, fragment: {} };
  if (step?.analysis !== undefined) return analysisVerdict === 'passed' ? completed() : stay;
  if (step?.approval !== undefined) {
    const wait = { step: step.approval, index, hash: c.hash };
    return approvalStepDecision(c, p, wait, steps.length, completed);
  }
  if (step?.pause === undefined) return atDesired ? completed() : stay;
  const now = c.now;
  const duration =
    step.pause.duration === undefined ? undefined : parsePauseDuration(step.pause.duration);
  const durationMs = duration?.ok === true ? duration.value : undefined;
  const pause = p.pauseConditions.find((x) => x.reason === PauseReason.CanaryPauseStep);
  const unpaused = {
    controllerPause: false,
    pauseConditions: p.pauseConditions.filter((x) => x !== pause),
  };
  if (pause === undefined && p.controllerPause && p.pauseConditions.length === 0) {
    // We paused, and someone cleared the pause conditions: promoted.
    return completed([normal(Reason.RolloutResumed, 'Rollout is resumed (promoted)')], unpaused);
  }
  if (pause === undefined) {
    if (durationMs === 0) return completed();
    const paused = normal(
      Reason.RolloutPaused,
      `Rollout is paused (${PauseReason.CanaryPauseStep})`,
    );
    return {
      progress: {
        ...p,
        controllerPause: true,
        pauseConditions: [
          ...p.pauseConditions,
          { reason: PauseReason.CanaryPauseStep, startTime: new Date(now).toISOString() },
        ],
      },
      fragment: {
        events: [paused],
        requeueAt: durationMs === undefined ? [] : [now + durationMs],
      },
    };
  }
  if (durationMs === undefined) return stay;
  const end = Date.parse(pause.startTime) + durationMs;
  if (now < end) return { progress: p, fragment: { requeueAt: [end] } };
  return completed([normal(Reason.RolloutResumed, 'Rollout is resumed (pause ended)')], unpaused);
}

function stepCompletedEvent(index: number, count: number, label: string): EventWrite {
  return normal(
    Reason.RolloutStepCompleted,
    `Rollout step ${index + 1}/${count} completed (${label})`,
  );
}

/** The canary becomes the stable; the old stable keeps its pods until its scale-down deadline
 *  while the stable Service switches and connections drain. */
export function promote(
  canary: CanaryStrategy,
  now: number,
  p: Progress,
  where: { readonly hash: string; readonly revision: number; readonly stable?: ReplicaSet },
  stepCount: number,
): StepOutcome {
  const { hash, revision, stable: previousStable } = where;
  const completed = normal(
    Reason.RolloutCompleted,
    `Rollout completed update to revision ${revision} (${hash})`,
  );
  const left = previousStable?.spec?.replicas ?? 0;
  let fragment: Fragment = { events: [completed] };
  if (previousStable !== undefined && left > 0 && canary.stableService !== undefined) {
    const delay = canary.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
    const deadline = new Date(now + delay * 1000).toISOString();
    fragment = {
      ...fragment,
      writes: {
        holdOldStable: [
          {
            kind: 'applyReplicaSet',
            reason: 'scale-down-delay',
            body: rescaledBody(previousStable, { replicas: left, scaleDownDeadline: deadline }),
          },
        ],
      },
      requeueAt: [now + delay * 1000],
    };
  }
  return {
    progress: {
      ...p,
      stableHash: hash,
      stepIndex: stepCount,
      promoteFull: false,
      pauseConditions: [],
      controllerPause: false,
    },
    fragment,
  };
}
