/**
 * PURE: whom a Rollout waiting at an approval step asks, read as the controller reads it (the
 * planner's own gate and counting), so the list can say which Rollouts await the viewer's
 * approval.
 */
import { PauseReason } from '../../api/reasons.ts';
import type { Rollout } from '../../api/rollout.ts';
import { approvalGateAt, countDecisions } from '../../rollout/index.ts';
import type { ApprovalAsk } from './wire.ts';

export function approvalAsk(ro: Rollout): ApprovalAsk | undefined {
  const st = ro.status ?? {};
  const pause = st.pauseConditions?.find((c) => c.reason === PauseReason.AwaitingApproval);
  const index = st.currentStepIndex ?? 0;
  const step = approvalGateAt(ro, index);
  if (pause === undefined || step === undefined || st.abort === true) return undefined;
  const { by } = countDecisions(
    { step, index, hash: st.currentPodHash ?? '' },
    st.approvals ?? [],
    Date.parse(pause.startTime),
  );
  return {
    users: [...(step.approvers?.users ?? [])],
    groups: [...(step.approvers?.groups ?? [])],
    decided: by,
  };
}
