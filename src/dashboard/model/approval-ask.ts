/**
 * PURE: whom a Rollout waiting at an approval step asks, read as the controller reads it
 * (src/cli/approvals.ts), so the list can say which Rollouts await the viewer's approval.
 */
import type { Rollout } from '../../api/rollout.ts';
import { approvalGate, pendingApproval } from '../../cli/approvals.ts';
import type { ApprovalAsk } from './wire.ts';

export function approvalAsk(ro: Rollout, now: number): ApprovalAsk | undefined {
  const pending = pendingApproval(ro, now);
  const approvers = approvalGate(ro)?.step.approvers;
  if (pending === undefined) return undefined;
  return {
    users: [...(approvers?.users ?? [])],
    groups: [...(approvers?.groups ?? [])],
    decided: [...pending.approvedBy],
  };
}
