/**
 * The step decision of a canary pass, by how the step's kind completes (step-kinds.ts): at the
 * ReplicaSets' counts (setWeight, setCanaryScale, routes), when its pause ends (its duration or
 * a person), when its analysis run passed, when people approved (approval-decision.ts); and the full
 * promotion at the end (the canary becomes the stable). Each returns the progress after it and a Fragment
 * (its events, its requeue time, the old stable's hold on promotion).
 */
import { PauseReason, Reason } from '../../api/index.ts';
import type {
  ApprovalRecord,
  CanaryStep,
  Person,
  CanaryStrategy,
  ReplicaSet,
} from '../../api/index.ts';
import { parsePauseDuration } from '../../api/pause-duration.ts';
import type { Verdict } from '../analysis.ts';
import { normal } from '../events.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import { DEFAULT_SCALE_DOWN_DELAY_SECONDS, holdOldStable } from '../child-writes.ts';
import type { Condition } from '../../api/index.ts';
import type { EventWrite } from '../types.ts';
import { approvalGateDecision } from '../approval-decision.ts';
import { STEP_KINDS, kindOf, stepLabel } from './step-kinds.ts';

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

/** Completes the step in force: the next one is in force; `before` is said before the step's
 *  completion event, `more` changes the progress too. */
export type Complete = (before?: readonly EventWrite[], more?: Partial<Progress>) => StepOutcome;

export interface StepContext {
  readonly now: number;
  /** The stored status's conditions (a repeated message is not said twice). */
  readonly conditions: readonly Condition[];
  readonly hash: string;
  readonly records: readonly ApprovalRecord[];
  /** The cluster-wide mapping of people to identities (approvals count people). */
  readonly people: readonly Person[];
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
  const completed: Complete = (before = [], more = {}) => ({
    progress: { ...p, ...more, stepIndex: index + 1 },
    fragment: { events: [...before, stepCompleted] },
  });
  const stay: StepOutcome = { progress: p, fragment: {} };
  const kind = kindOf(step);
  const completes = kind === undefined ? 'atCounts' : STEP_KINDS[kind].completes;
  switch (completes) {
    case 'atCounts':
      return atDesired ? completed() : stay;
    case 'analysisPassed':
      return analysisVerdict === 'passed' ? completed() : stay;
    case 'approved': {
      if (step?.approval === undefined) return stay;
      const wait = { step: step.approval, index, hash: c.hash };
      return approvalGateDecision(c, p, wait, `step ${index + 1}/${steps.length}`, completed);
    }
    case 'pauseEnds':
      return step?.pause === undefined ? stay : pauseDecision(c, p, step.pause, completed);
  }
}

/** A pause step: paused on arrival; resumed by a person, or when its duration has passed. */
function pauseDecision(
  c: StepContext,
  p: Progress,
  pauseStep: { readonly duration?: number | string },
  completed: Complete,
): StepOutcome {
  const stay: StepOutcome = { progress: p, fragment: {} };
  const now = c.now;
  const { duration: spelled } = pauseStep;
  const duration = spelled === undefined ? undefined : parsePauseDuration(spelled);
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
  let fragment: Fragment = { events: [completed] };
  if (canary.stableService !== undefined) {
    const delay = canary.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
    fragment = { ...holdOldStable(previousStable, delay, now), events: [completed] };
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
