/**
 * blueGreen.approval: people approve the switch. Once the preview is up and pre-promotion
 * analysis passed, the Rollout waits (pause AwaitingApproval) for the approvals its gate asks
 * for, as at a canary's approval step (approval-decision.ts): enough of them pass the gate
 * (status.currentStepIndex 0 → 1), a rejection or the timeout (onTimeout: abort) aborts. Decisions
 * name gate 0. RolloutApprovals are answered in every state. Pure.
 */
import { PauseReason } from '../../api/index.ts';
import type { ApprovalRecord, BlueGreenStrategy } from '../../api/index.ts';
import { approvalGateDecision } from '../approval-decision.ts';
import type { GateOutcome } from '../approval-decision.ts';
import { takeRequests } from '../approval.ts';
import type { ApprovalWait } from '../approval.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import type { Observed } from '../types.ts';

/** The gate's index in decisions and in status.currentStepIndex. */
export const GATE = 0;
export const GATE_PLACE = 'the switch to the new version';

export interface TakenApprovals {
  readonly records: readonly ApprovalRecord[];
  readonly fragment: Fragment;
}

/** Answers the RolloutApprovals not yet answered; the records this pass judges and writes.
 *  `atGate`: the Rollout waits at the gate this pass (its wait has begun). */
export function takeBlueGreenApprovals(
  o: Observed,
  bg: BlueGreenStrategy,
  hash: string,
  progress: Progress,
  atGate: boolean,
): TakenApprovals {
  const pause = progress.pauseConditions.find((c) => c.reason === PauseReason.AwaitingApproval);
  const since = Date.parse(pause?.startTime ?? '');
  const waiting: ApprovalWait | undefined =
    atGate && bg.approval !== undefined && !Number.isNaN(since)
      ? { step: bg.approval, index: GATE, hash, since }
      : undefined;
  const taken = takeRequests({
    rolloutName: o.rollout.metadata.name ?? '',
    requests: o.approvals ?? [],
    records: o.rollout.status?.approvals ?? [],
    currentHash: hash,
    currentStep: progress.stepIndex,
    ...(waiting !== undefined ? { waiting } : {}),
    now: o.now,
    people: o.approvalPeople ?? [],
  });
  return { records: taken.records, fragment: { events: taken.events, answers: taken.answers } };
}

/** Whether the gate is still ahead of this revision. */
export function gateAhead(bg: BlueGreenStrategy, progress: Progress): boolean {
  return bg.approval !== undefined && progress.stepIndex <= GATE;
}

/** The decision at the gate this pass. */
export function approvalAtGate(
  o: Observed,
  bg: BlueGreenStrategy,
  hash: string,
  progress: Progress,
  records: readonly ApprovalRecord[],
): GateOutcome {
  if (bg.approval === undefined) return { progress, fragment: {} };
  return approvalGateDecision(
    {
      now: o.now,
      conditions: o.rollout.status?.conditions ?? [],
      records,
      people: o.approvalPeople ?? [],
    },
    progress,
    { step: bg.approval, index: GATE, hash },
    GATE_PLACE,
    (before = [], more = {}) => ({
      progress: { ...progress, ...more, stepIndex: GATE + 1 },
      fragment: { events: before },
    }),
  );
}
