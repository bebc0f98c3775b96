/**
 * The decision at an approval gate (a canary's approval step, blue-green's gate before the
 * switch): the Rollout pauses (reason AwaitingApproval) and says
 * who is asked; the recorded decisions then complete the step, or abort it (a rejection, or the
 * timeout with `onTimeout: abort`); `onTimeout: pause` keeps it waiting and says so once. A
 * promote that clears the pause does not count as an approval: the wait starts again. Returns
 * the progress, its events and deadline, and the notes for the status (why it aborts or waits).
 */
import { ConditionType, PauseReason, Reason } from '../api/index.ts';
import type { ApprovalRecord, Condition, Person } from '../api/index.ts';
import { describeApprovers, judgeApproval } from './approval.ts';
import type { ApprovalWait } from './approval.ts';
import { getCondition } from './conditions.ts';
import { normal, warning } from './events.ts';
import type { Fragment } from './order.ts';
import type { Progress } from './progress.ts';
import type { EventWrite } from './types.ts';

export interface GateContext {
  readonly now: number;
  /** The stored status's conditions (a repeated message is not said twice). */
  readonly conditions: readonly Condition[];
  readonly records: readonly ApprovalRecord[];
  /** The cluster-wide mapping of people to identities (approvals count people). */
  readonly people: readonly Person[];
}

/** The progress after the decision, what it writes, and what the status must say. */
export interface GateOutcome {
  readonly progress: Progress;
  readonly fragment: Fragment;
  readonly notes?: { readonly abortMessage?: string; readonly pausedMessage?: string };
}

/** Passes the gate: `before` is said first, `more` changes the progress too. */
export type PassGate = (before?: readonly EventWrite[], more?: Partial<Progress>) => GateOutcome;

/** `at`: where the gate is, for people (`step 2/4`, `the switch to the new version`). */
export function approvalGateDecision(
  c: GateContext,
  p: Progress,
  w: ApprovalWait,
  at: string,
  completed: PassGate,
): GateOutcome {
  const { now, records, people } = c;
  const pause = p.pauseConditions.find((c) => c.reason === PauseReason.AwaitingApproval);
  const startedAt = pause === undefined ? now : Date.parse(pause.startTime);
  const outcome = judgeApproval(w, records, startedAt, now, people);
  const unpaused: Partial<Progress> = {
    controllerPause: false,
    pauseConditions: p.pauseConditions.filter((c) => c !== pause),
  };
  switch (outcome.kind) {
    case 'approved': {
      const resumed = normal(
        Reason.RolloutResumed,
        `Rollout is resumed (${outcome.overridden ? 'approval overridden' : 'approved'} by ${outcome.by.join(', ')})`,
      );
      return completed(pause !== undefined ? [resumed] : [], unpaused);
    }
    case 'rejected': {
      const r = outcome.record;
      const abortMessage = `rejected by ${r.by} via ${r.via} at ${at}${r.comment ? `: ${r.comment}` : ''}`;
      return {
        progress: { ...p, ...unpaused, abort: true },
        fragment: {},
        notes: { abortMessage },
      };
    }
    case 'timedOut': {
      const waited = Math.round((outcome.deadline - startedAt) / 1000);
      if (outcome.action === 'abort') {
        const message = `approval of ${at} timed out after ${waited}s without enough approvals`;
        return {
          progress: { ...p, ...unpaused, abort: true },
          fragment: { events: [warning(Reason.ApprovalTimedOut, `${message}: aborting`)] },
          notes: { abortMessage: message },
        };
      }
      const message = `approval of ${at} timed out after ${waited}s; still waiting for a person`;
      const pausedMessage = `Rollout is paused: ${message}`;
      const stored = getCondition(c.conditions, ConditionType.Paused);
      const said = stored?.message === pausedMessage;
      return {
        progress: p,
        fragment: { events: said ? [] : [warning(Reason.ApprovalTimedOut, message)] },
        notes: { pausedMessage },
      };
    }
    case 'waiting': {
      const needed = w.step.minApprovals ?? 1;
      const notes = {
        pausedMessage: `Rollout is paused: awaiting approval at ${at} (${outcome.approvals} of ${needed})`,
      };
      const requeueAt = outcome.deadline === undefined ? [] : [outcome.deadline];
      if (pause !== undefined) return { progress: p, fragment: { requeueAt }, notes };
      const limit = w.step.timeout === undefined ? 'no timeout' : `timeout ${w.step.timeout}`;
      const requested: EventWrite = {
        kind: 'event',
        type: 'Normal',
        reason: Reason.ApprovalRequested,
        message: `Rollout is waiting for approval at ${at} of revision ${w.hash} (${needed} from ${describeApprovers(w.step.approvers ?? {})}; ${limit})${w.step.message ? `: ${w.step.message}` : ''}`,
        subject: { step: w.index, revision: w.hash, waitStart: now },
      };
      const progress: Progress = {
        ...p,
        controllerPause: true,
        pauseConditions: [
          ...p.pauseConditions,
          { reason: PauseReason.AwaitingApproval, startTime: new Date(now).toISOString() },
        ],
      };
      return { progress, fragment: { events: [requested], requeueAt }, notes };
    }
  }
}
