/**
 * The step decision of a canary pass: setWeight and setCanaryScale steps complete once the
 * ReplicaSets are at their counts, pauses wait (for their duration or a person), analysis steps
 * for their run's verdict, approval steps for people (approval-step.ts); and the full promotion at the end (the canary becomes the stable).
 */
import { PauseReason, Reason } from '../api/index.ts';
import type { ApprovalRecord, CanaryStep, ReplicaSet } from '../api/index.ts';
import type { Verdict } from './analysis.ts';
import { approvalStepDecision } from './approval-step.ts';
import { parsePauseDuration } from './duration.ts';
import { normal, type Pass } from './pass.ts';
import type { EventWrite } from './types.ts';
import type { Progress } from './progress.ts';
import { rescaledBody } from './replicasets.ts';
import { stepLabel } from './steps.ts';

const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;

export function stepDecision(
  pass: Pass,
  p: Progress,
  steps: readonly CanaryStep[],
  atDesired: boolean,
  analysisVerdict: Verdict | undefined,
  approvals: { readonly hash: string; readonly records: readonly ApprovalRecord[] },
): Progress {
  const index = p.stepIndex;
  const step = steps[index];
  const completed = (): Progress => {
    pass.after.push({
      ...stepCompletedEvent(index, steps.length, stepLabel(step)),
      subject: { step: index, revision: approvals.hash },
    });
    return { ...p, stepIndex: index + 1 };
  };
  if (step?.analysis !== undefined) return analysisVerdict === 'passed' ? completed() : p;
  if (step?.approval !== undefined) {
    const wait = { step: step.approval, index, hash: approvals.hash };
    return approvalStepDecision(pass, p, wait, approvals.records, steps.length, completed);
  }
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

function stepCompletedEvent(index: number, count: number, label: string): EventWrite {
  return normal(
    Reason.RolloutStepCompleted,
    `Rollout step ${index + 1}/${count} completed (${label})`,
  );
}

export function promote(
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
