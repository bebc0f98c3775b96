/**
 * PURE: the plugin's side of approval steps. What `approve`/`reject` create (a RolloutApproval
 * naming the step and revision the Rollout waits at, as the requesting user), and what
 * `get rollout` shows of a pending approval and of the decisions on record. Who may decide is
 * the API server's (admission policy, RBAC) and the controller's business, never the plugin's.
 */
import { API_VERSION, ROLLOUT_APPROVAL_KIND } from '../api/keys.ts';
import type {
  ApprovalRecord,
  ApprovalStep,
  RequestDecision,
  RolloutApproval,
} from '../api/approval.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import { PauseReason } from '../api/reasons.ts';
import type { Rollout } from '../api/rollout.ts';
import { approvalGateAt, countDecisions, gatePlace } from '../rollout/index.ts';

export interface Identity {
  readonly username: string;
  readonly groups: readonly string[];
}

export type ApprovalDecision =
  | { readonly kind: 'create'; readonly body: RolloutApproval }
  | { readonly kind: 'error'; readonly message: string };

/** The approval a Rollout meets where it stands (src/rollout/approval-gates.ts): a canary's
 *  approval step at the current step index, or blue-green's gate before the active Service
 *  switches (index 0; passed, the controller moves the index to 1). */
export interface ApprovalGate {
  readonly step: ApprovalStep;
  readonly index: number;
  /** Where it is, for people: `step 2/4`, `before the switch to the new version`. */
  readonly where: string;
}

export function approvalGate(ro: Rollout): ApprovalGate | undefined {
  const index = ro.status?.currentStepIndex ?? 0;
  const step = approvalGateAt(ro, index);
  if (step === undefined) return undefined;
  const place = gatePlace(ro, index);
  return {
    step,
    index,
    where: ro.spec.strategy.blueGreen !== undefined ? `before ${place}` : place,
  };
}

/** How a record's gate reads: `step 2`, or `before the switch` on a blue-green Rollout. */
export const recordWhere = (ro: Rollout, r: ApprovalRecord): string =>
  ro.spec.strategy.blueGreen !== undefined ? 'before the switch' : `step ${r.step + 1}`;

export interface PendingApproval {
  /** 1-based step number (what a RolloutApproval names, less one). */
  readonly step: number;
  /** `step 2/4`, `before the switch to the new version`. */
  readonly where: string;
  readonly revision: string;
  readonly needed: number;
  readonly approvedBy: readonly string[];
  readonly asked: string;
  readonly message?: string;
  /** Seconds left before the timeout; undefined without one. */
  readonly secondsLeft?: number;
  readonly onTimeout: 'abort' | 'pause';
}

/** The approval the Rollout waits for now, as the controller has recorded it in status. */
export function pendingApproval(ro: Rollout, now: number): PendingApproval | undefined {
  const st = ro.status ?? {};
  const pause = st.pauseConditions?.find((c) => c.reason === PauseReason.AwaitingApproval);
  const gate = approvalGate(ro);
  if (pause === undefined || gate === undefined || st.abort) return undefined;
  const { step, index } = gate;
  const revision = st.currentPodHash ?? '';
  // Counted as the controller counts (people, this wait only); without the cluster's people
  // mapping, which the controller recorded on each record as `person`.
  const { by: approvedBy } = countDecisions(
    { step, index, hash: revision },
    st.approvals ?? [],
    Date.parse(pause.startTime),
  );
  // Read as the controller reads it, so the countdown shown is the one it keeps.
  const timeout = step.timeout === undefined ? undefined : parsePauseDuration(step.timeout);
  const timeoutMs = timeout?.ok ? timeout.value : undefined;
  const a = step.approvers ?? {};
  const asked = [
    ...(a.users?.length ? [`users ${a.users.join(', ')}`] : []),
    ...(a.groups?.length ? [`groups ${a.groups.join(', ')}`] : []),
    ...(a.slackUsers?.length ? [`Slack ${a.slackUsers.join(', ')}`] : []),
  ];
  return {
    step: index + 1,
    where: gate.where,
    revision,
    needed: step.minApprovals ?? 1,
    approvedBy,
    asked: asked.length > 0 ? asked.join('; ') : 'anyone allowed to approve',
    ...(step.message ? { message: step.message } : {}),
    ...(timeoutMs === undefined
      ? {}
      : {
          secondsLeft: Math.max(
            0,
            Math.ceil((Date.parse(pause.startTime) + timeoutMs - now) / 1000),
          ),
        }),
    onTimeout: step.onTimeout ?? 'abort',
  };
}

/** What `approve`/`reject` create, or why not (the Rollout is not waiting for approval). */
export function decideApproval(
  ro: Rollout,
  who: Identity,
  decision: RequestDecision,
  comment: string | undefined,
  now: number,
): ApprovalDecision {
  const name = ro.metadata.name ?? '';
  const pending = pendingApproval(ro, now);
  if (
    ro.status?.observedGeneration === undefined ||
    ro.status.observedGeneration !== String(ro.metadata.generation ?? '')
  ) {
    return {
      kind: 'error',
      message: `the controller has not yet observed the latest spec of rollout '${name}'; try again in a moment`,
    };
  }
  if (pending === undefined) {
    return {
      kind: 'error',
      message: `rollout '${name}' is not waiting for approval (${ro.status.phase ?? 'Progressing'}${
        ro.status.message ? `: ${ro.status.message}` : ''
      })`,
    };
  }
  const body: RolloutApproval = {
    apiVersion: API_VERSION,
    kind: ROLLOUT_APPROVAL_KIND,
    metadata: {
      generateName: `${name.slice(0, 40)}-${decision.toLowerCase()}-`,
      ...(ro.metadata.namespace ? { namespace: ro.metadata.namespace } : {}),
      // Goes with its Rollout (garbage collection), and names it for people reading the list.
      ownerReferences: [
        {
          apiVersion: ro.apiVersion,
          kind: ro.kind,
          name,
          uid: ro.metadata.uid ?? '',
        },
      ],
    },
    spec: {
      rolloutName: name,
      revision: pending.revision,
      step: pending.step - 1,
      decision,
      approver: who.username,
      ...(who.groups.length > 0 ? { approverGroups: [...who.groups] } : {}),
      ...(comment ? { comment } : {}),
    },
  };
  return { kind: 'create', body };
}

/** One line per decision on record for the current revision, oldest first. */
export function recordedApprovals(ro: Rollout): ApprovalRecord[] {
  const revision = ro.status?.currentPodHash;
  return (ro.status?.approvals ?? []).filter((r) => r.revision === revision);
}

export function pendingText(p: PendingApproval): string {
  const left =
    p.secondsLeft === undefined
      ? 'no timeout'
      : `${formatSeconds(p.secondsLeft)} left, then ${p.onTimeout}`;
  return `${p.where}: ${p.approvedBy.length} of ${p.needed} from ${p.asked} (${left})`;
}

export function recordText(r: ApprovalRecord, where = `step ${r.step + 1}`): string {
  const what = { Approve: 'approved', Reject: 'rejected', Override: 'overridden (break-glass)' }[
    r.decision
  ];
  return `${where}: ${what} by ${r.by} via ${r.via} at ${r.at}${r.comment ? ` — ${r.comment}` : ''}`;
}

function formatSeconds(s: number): string {
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}
