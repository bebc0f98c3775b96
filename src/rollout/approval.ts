/**
 * Approvals, pure. The RolloutApprovals people created (through the plugin) are checked against
 * the approval step the Rollout waits at and either recorded in `status.approvals` or refused
 * with a reason; then the records of the current revision and step judge the step: enough
 * distinct approvers and it completes, any rejection aborts, the timeout aborts or keeps it
 * waiting. Records from the approval endpoints (signed links, Slack) arrive already in
 * `status.approvals`, written there by the shell; to this module they are records like any other.
 */
import { ApprovalRefusal, MAX_APPROVAL_RECORDS, PauseReason, Reason } from '../api/index.ts';
import type {
  ApprovalRecord,
  ApprovalRefusal as RefusalReason,
  ApprovalStep,
  Approvers,
  Rollout,
  RolloutApproval,
  RolloutApprovalStatus,
} from '../api/index.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import type { EventWrite, Write } from './types.ts';

/** The approval step a Rollout waits at this pass. */
export interface ApprovalWait {
  readonly step: ApprovalStep;
  readonly index: number;
  readonly hash: string;
}

export interface RequestsInput {
  readonly rolloutName: string;
  /** RolloutApprovals naming this Rollout, in any phase. */
  readonly requests: readonly RolloutApproval[];
  readonly records: readonly ApprovalRecord[];
  readonly currentHash: string;
  readonly currentStep: number;
  /** Absent when the Rollout is not waiting for approval (steady, aborted, another step kind). */
  readonly waiting?: ApprovalWait;
  readonly now: number;
}

export interface RequestsResult {
  readonly records: readonly ApprovalRecord[];
  /** Status writes on the RolloutApprovals, each refusal with its event: after the Rollout's
   *  status (which holds the records) is written, whether or not that changed. */
  readonly answers: readonly Write[];
  /** Events of the decisions recorded: they describe the status write. */
  readonly events: readonly Write[];
}

const requestRef = (name: string): string => `RolloutApproval/${name}`;

/** Records and refuses the RolloutApprovals not yet answered. */
export function takeRequests(i: RequestsInput): RequestsResult {
  let records = i.records;
  const answers: Write[] = [];
  const events: Write[] = [];
  const at = new Date(i.now).toISOString();
  for (const request of pending(i.requests)) {
    const name = request.metadata.name ?? '';
    const ref = requestRef(name);
    const mark = (status: RolloutApprovalStatus): void => {
      answers.push({ kind: 'markApproval', name, status: { ...status, at } });
    };
    if (records.some((r) => r.ref === ref)) {
      // Recorded by an earlier pass whose mark did not land.
      mark({ phase: 'Recorded', reason: 'Recorded', message: 'recorded in the Rollout status' });
      continue;
    }
    const refusal = refuse(i, request, records);
    if (refusal !== undefined) {
      mark({ phase: 'Refused', reason: refusal.reason, message: refusal.message });
      answers.push({
        kind: 'event',
        type: 'Warning',
        reason: Reason.ApprovalRefused,
        message: `${request.spec.decision} by ${request.spec.approver} refused (${refusal.reason}): ${refusal.message}`,
      });
      continue;
    }
    const { spec } = request;
    const record: ApprovalRecord = {
      step: spec.step,
      revision: spec.revision,
      decision: spec.decision,
      by: spec.approver,
      via: 'plugin',
      at,
      ...(spec.comment ? { comment: spec.comment } : {}),
      ref,
    };
    records = [...records, record];
    mark({ phase: 'Recorded', reason: 'Recorded', message: 'recorded in the Rollout status' });
    events.push(recordEvent(record));
  }
  return { records: pruneRecords(records, i.currentHash), answers, events };
}

/** The event for a recorded decision (also used by the shell for link and Slack decisions). */
export function recordEvent(r: ApprovalRecord): EventWrite {
  const comment = r.comment ? `: ${r.comment}` : '';
  if (r.decision === 'Override') {
    return {
      kind: 'event',
      type: 'Warning',
      reason: Reason.ApprovalOverridden,
      message: `Approval overridden (break-glass) by ${r.by} via ${r.via} at step ${r.step + 1} of revision ${r.revision}${comment}`,
      subject: { step: r.step, revision: r.revision, record: r },
    };
  }
  const what = r.decision === 'Approve' ? 'Approved' : 'Rejected';
  return {
    kind: 'event',
    type: r.decision === 'Approve' ? 'Normal' : 'Warning',
    reason: r.decision === 'Approve' ? Reason.ApprovalRecorded : Reason.ApprovalRejected,
    message: `${what} by ${r.by} via ${r.via} at step ${r.step + 1} of revision ${r.revision}${comment}`,
    subject: { step: r.step, revision: r.revision, record: r },
  };
}

function pending(requests: readonly RolloutApproval[]): RolloutApproval[] {
  return requests
    .filter((r) => r.status?.phase === undefined && r.metadata.deletionTimestamp === undefined)
    .sort(
      (a, b) =>
        String(a.metadata.creationTimestamp ?? '').localeCompare(
          String(b.metadata.creationTimestamp ?? ''),
        ) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
}

/** Why a decision cannot count, if it cannot. Shared by every channel (plugin, link, Slack). */
export function refusalFor(
  d: {
    readonly revision: string;
    readonly step: number;
    readonly by: string;
    readonly allowed: (approvers: Approvers) => boolean;
  },
  ctx: {
    readonly rolloutName: string;
    readonly currentHash: string;
    readonly currentStep: number;
    readonly waiting?: ApprovalWait;
    readonly records: readonly ApprovalRecord[];
  },
): { readonly reason: RefusalReason; readonly message: string } | undefined {
  const name = ctx.rolloutName;
  if (d.revision !== ctx.currentHash) {
    return {
      reason: ApprovalRefusal.WrongRevision,
      message: `the decision is for revision ${d.revision}, but rollout '${name}' is at revision ${ctx.currentHash}`,
    };
  }
  if (ctx.waiting === undefined) {
    return {
      reason: ApprovalRefusal.NotAwaitingApproval,
      message: `rollout '${name}' is not waiting for approval (it is at step ${ctx.currentStep + 1})`,
    };
  }
  if (d.step !== ctx.waiting.index) {
    return {
      reason: ApprovalRefusal.WrongStep,
      message: `the decision is for step ${d.step + 1}, but rollout '${name}' waits for approval at step ${ctx.waiting.index + 1}`,
    };
  }
  const approvers = ctx.waiting.step.approvers ?? {};
  if (!d.allowed(approvers)) {
    return {
      reason: ApprovalRefusal.NotAnApprover,
      message: `${d.by} is not among the approvers of step ${d.step + 1} (${describeApprovers(approvers)})`,
    };
  }
  const earlier = ctx.records.find(
    (r) => r.revision === d.revision && r.step === d.step && r.by === d.by,
  );
  if (earlier !== undefined) {
    return {
      reason: ApprovalRefusal.AlreadyDecided,
      message: `${d.by} already decided ${earlier.decision} for step ${d.step + 1} at ${earlier.at}`,
    };
  }
  return undefined;
}

function refuse(
  i: RequestsInput,
  request: RolloutApproval,
  records: readonly ApprovalRecord[],
): { readonly reason: RefusalReason; readonly message: string } | undefined {
  const { spec } = request;
  return refusalFor(
    {
      revision: spec.revision,
      step: spec.step,
      by: spec.approver,
      // Override: the API server admitted it only from a holder of break-glass on the Rollout.
      allowed: (a) =>
        spec.decision === 'Override' ||
        kubeUserAllowed(a, spec.approver, spec.approverGroups ?? []),
    },
    // An approver who already approved may still override (their approval did not suffice).
    { ...i, records: spec.decision === 'Override' ? records.filter(isOverride) : records },
  );
}

const isOverride = (r: ApprovalRecord): boolean => r.decision === 'Override';

/** No approvers named: anyone who can reach a channel may decide (RBAC, a link, the Slack
 *  workspace). Once any are named, only they may, each through the channel that proves who they
 *  are; a signed link proves nobody, so it counts only when nobody is named. */
export function anyoneMay(a: Approvers): boolean {
  return !a.users?.length && !a.groups?.length && !a.slackUsers?.length;
}

/** A Kubernetes identity (the API server vouched for it) against `approvers`. */
export function kubeUserAllowed(a: Approvers, user: string, groups: readonly string[]): boolean {
  if (anyoneMay(a)) return true;
  const allowedGroups = a.groups ?? [];
  return (a.users ?? []).includes(user) || groups.some((g) => allowedGroups.includes(g));
}

/** A Slack user (Slack's signature vouched for it) against `approvers`. */
export function slackUserAllowed(a: Approvers, slackUser: string): boolean {
  return anyoneMay(a) || (a.slackUsers ?? []).includes(slackUser);
}

export function describeApprovers(a: Approvers): string {
  const parts = [
    ...(a.users?.length ? [`users: ${a.users.join(', ')}`] : []),
    ...(a.groups?.length ? [`groups: ${a.groups.join(', ')}`] : []),
    ...(a.slackUsers?.length ? [`Slack users: ${a.slackUsers.join(', ')}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'anyone allowed to approve';
}

/** Keeps every record of the current revision and the newest others, up to the cap. */
export function pruneRecords(
  records: readonly ApprovalRecord[],
  currentHash: string,
): readonly ApprovalRecord[] {
  if (records.length <= MAX_APPROVAL_RECORDS) return records;
  const current = records.filter((r) => r.revision === currentHash).length;
  let dropOthers = records.length - Math.max(MAX_APPROVAL_RECORDS, current);
  return records.filter((r) => {
    if (r.revision === currentHash || dropOthers <= 0) return true;
    dropOthers--;
    return false;
  });
}

export type ApprovalOutcome =
  | {
      readonly kind: 'approved';
      readonly by: readonly string[];
      /** Passed by break-glass (an Override record), not by its approvers. */
      readonly overridden?: boolean;
    }
  | { readonly kind: 'rejected'; readonly record: ApprovalRecord }
  | { readonly kind: 'waiting'; readonly approvals: number; readonly deadline?: number }
  | { readonly kind: 'timedOut'; readonly action: 'abort' | 'pause'; readonly deadline: number };

/** What the records say about the approval step `w`, waiting since `startedAt`. */
export function judgeApproval(
  w: ApprovalWait,
  records: readonly ApprovalRecord[],
  startedAt: number,
  now: number,
): ApprovalOutcome {
  const mine = records.filter((r) => r.revision === w.hash && r.step === w.index);
  const rejection = mine.find((r) => r.decision === 'Reject');
  if (rejection !== undefined) return { kind: 'rejected', record: rejection };
  const override = mine.find((r) => r.decision === 'Override');
  if (override !== undefined) return { kind: 'approved', by: [override.by], overridden: true };
  const by = [...new Set(mine.filter((r) => r.decision === 'Approve').map((r) => r.by))];
  if (by.length >= (w.step.minApprovals ?? 1)) return { kind: 'approved', by };
  const deadline = approvalDeadline(w.step, startedAt);
  if (deadline !== undefined && now >= deadline) {
    return { kind: 'timedOut', action: w.step.onTimeout ?? 'abort', deadline };
  }
  return { kind: 'waiting', approvals: by.length, ...(deadline !== undefined ? { deadline } : {}) };
}

/** When the wait that started at `startedAt` ends; undefined without (a valid) timeout. */
function approvalDeadline(step: ApprovalStep, startedAt: number): number | undefined {
  if (step.timeout === undefined) return undefined;
  const parsed = parsePauseDuration(step.timeout);
  return parsed.ok ? startedAt + parsed.value : undefined;
}

/**
 * What a stored Rollout says about the approval it waits for, for the approval endpoints (which
 * read status, not the pods): the hash, step and approval step, when status describes the
 * current spec, the rollout is in flight and the planner has entered the step.
 */
export function storedApprovalContext(r: Rollout): {
  readonly rolloutName: string;
  readonly currentHash: string;
  readonly currentStep: number;
  readonly waiting?: ApprovalWait;
  readonly records: readonly ApprovalRecord[];
} {
  const s = r.status ?? {};
  const currentHash = s.currentPodHash ?? '';
  const currentStep = s.currentStepIndex ?? 0;
  const step = r.spec.strategy.canary?.steps?.[currentStep]?.approval;
  const inForce =
    step !== undefined &&
    s.observedGeneration === String(r.metadata.generation ?? 0) &&
    currentHash !== s.stableRS &&
    s.abort !== true &&
    r.spec.paused !== true &&
    (s.pauseConditions ?? []).some((c) => c.reason === PauseReason.AwaitingApproval);
  return {
    rolloutName: r.metadata.name ?? '',
    currentHash,
    currentStep,
    ...(inForce ? { waiting: { step, index: currentStep, hash: currentHash } } : {}),
    records: s.approvals ?? [],
  };
}
