/**
 * The step decision at an approval step: the Rollout pauses (reason AwaitingApproval) and says
 * who is asked; the recorded decisions then complete the step, or abort it (a rejection, or the
 * timeout with `onTimeout: abort`); `onTimeout: pause` keeps it waiting and says so once. A
 * promote that clears the pause does not count as an approval: the wait starts again.
 */
import { ConditionType, PauseReason, Reason } from '../api/index.ts';
import type { ApprovalRecord } from '../api/index.ts';
import { describeApprovers, judgeApproval } from './approval.ts';
import type { ApprovalWait } from './approval.ts';
import { getCondition } from './conditions.ts';
import { normal, warning } from './pass.ts';
import type { Pass } from './pass.ts';
import type { Progress } from './progress.ts';

export function approvalStepDecision(
  pass: Pass,
  p: Progress,
  w: ApprovalWait,
  records: readonly ApprovalRecord[],
  stepCount: number,
  completed: () => Progress,
): Progress {
  const { now } = pass.o;
  const at = `step ${w.index + 1}/${stepCount}`;
  const pause = p.pauseConditions.find((c) => c.reason === PauseReason.AwaitingApproval);
  const startedAt = pause === undefined ? now : Date.parse(pause.startTime);
  const outcome = judgeApproval(w, records, startedAt, now);
  const unpaused: Partial<Progress> = {
    controllerPause: false,
    pauseConditions: p.pauseConditions.filter((c) => c !== pause),
  };
  switch (outcome.kind) {
    case 'approved':
      if (pause !== undefined) {
        pass.after.push(
          normal(
            Reason.RolloutResumed,
            `Rollout is resumed (approved by ${outcome.by.join(', ')})`,
          ),
        );
      }
      return { ...completed(), ...unpaused };
    case 'rejected': {
      const r = outcome.record;
      pass.notes.abortMessage ??= `rejected by ${r.by} via ${r.via} at ${at}${r.comment ? `: ${r.comment}` : ''}`;
      return { ...p, ...unpaused, abort: true };
    }
    case 'timedOut': {
      const waited = Math.round((outcome.deadline - startedAt) / 1000);
      if (outcome.action === 'abort') {
        const message = `approval of ${at} timed out after ${waited}s without enough approvals`;
        pass.notes.abortMessage ??= message;
        pass.after.push(warning(Reason.ApprovalTimedOut, `${message}: aborting`));
        return { ...p, ...unpaused, abort: true };
      }
      const message = `approval of ${at} timed out after ${waited}s; still waiting for a person`;
      pass.notes.pausedMessage = `Rollout is paused: ${message}`;
      const stored = getCondition(pass.o.rollout.status?.conditions ?? [], ConditionType.Paused);
      if (stored?.message !== pass.notes.pausedMessage) {
        pass.after.push(warning(Reason.ApprovalTimedOut, message));
      }
      return p;
    }
    case 'waiting': {
      const needed = w.step.minApprovals ?? 1;
      pass.notes.pausedMessage = `Rollout is paused: awaiting approval at ${at} (${outcome.approvals} of ${needed})`;
      if (outcome.deadline !== undefined) pass.requeue.push(outcome.deadline);
      if (pause !== undefined) return p;
      const limit = w.step.timeout === undefined ? 'no timeout' : `timeout ${w.step.timeout}`;
      pass.after.push({
        kind: 'event',
        type: 'Normal',
        reason: Reason.ApprovalRequested,
        message: `Rollout is waiting for approval at ${at} of revision ${w.hash} (${needed} from ${describeApprovers(w.step.approvers ?? {})}; ${limit})${w.step.message ? `: ${w.step.message}` : ''}`,
        subject: { step: w.index, revision: w.hash },
      });
      return {
        ...p,
        controllerPause: true,
        pauseConditions: [
          ...p.pauseConditions,
          { reason: PauseReason.AwaitingApproval, startTime: new Date(now).toISOString() },
        ],
      };
    }
  }
}
