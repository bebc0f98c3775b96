/**
 * Approvals, pure. The RolloutApprovals people created (through the plugin) are checked against
 * the approval step the Rollout waits at and either recorded in `status.approvals` or refused
 * with a reason; then the records of the current revision and step judge the step: enough
 * distinct approvers and it completes, any rejection aborts, the timeout aborts or keeps it
 * waiting. Records from the approval endpoints (signed links, Slack) arrive already in
 * `status.approvals`, written there by the shell; to this module they are records like any other.
 * Only records of the current wait, by someone the step admits now, count; they count people
 * (approval-people.ts), not channel identities.
 */
import { ApprovalRefusal, MAX_APPROVAL_RECORDS, PauseReason, Reason } from '../api/index.ts';
import type {
  ApprovalRecord,
  ApprovalRefusal as RefusalReason,
  ApprovalStep,
  Approvers,
  Person,
  Rollout,
  RolloutApproval,
  RolloutApprovalStatus,
} from '../api/index.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import { stripControlCharacters } from '../api/control-chars.ts';
import type { EventWrite, Write } from './types.ts';
import { approvalGateAt } from './approval-gates.ts';
import { admits, admitted, countingKey, distinctApprovers, personOf } from './approval-people.ts';
import type { Identity } from './approval-people.ts';

export { anyoneMay } from './approval-people.ts';

/** The approval step a Rollout waits at this pass. */
export interface ApprovalWait {
  readonly step: ApprovalStep;
  readonly index: number;
  readonly hash: string;
  /** Epoch ms the current wait began (its AwaitingApproval pause); absent before it is set. */
  readonly since?: number;
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
  /** The cluster-wide mapping of people to their identities (--approval-people). */
  readonly people?: readonly Person[];
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
    const groups = spec.approverGroups ?? [];
    const person = personOf(
      { by: spec.approver, via: 'plugin' },
      i.waiting?.step.approvers ?? {},
      i.people ?? [],
    );
    const record: ApprovalRecord = {
      step: spec.step,
      revision: spec.revision,
      decision: spec.decision,
      by: spec.approver,
      via: 'plugin',
      at,
      ...(spec.comment ? { comment: stripControlCharacters(spec.comment) } : {}),
      ...(person !== undefined ? { person: person.name } : {}),
      ...(groups.length > 0 ? { groups } : {}),
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
    readonly identity: Identity;
    /** Links: the start of the wait the token was issued for (epoch ms), from its claims. */
    readonly waitStart?: number;
    /** RolloutApprovals: when it was created (epoch ms, whole seconds). */
    readonly createdAt?: number;
    /** A break-glass Override: the API server admitted it only from a holder of the right, so
     *  the step's approvers do not apply. */
    readonly override?: boolean;
  },
  ctx: {
    readonly rolloutName: string;
    readonly currentHash: string;
    readonly currentStep: number;
    readonly waiting?: ApprovalWait;
    readonly records: readonly ApprovalRecord[];
    readonly people?: readonly Person[];
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
  const since = ctx.waiting.since;
  const earlierWait = earlierWaitMessage(d, since);
  if (earlierWait !== undefined) {
    return { reason: ApprovalRefusal.EarlierWait, message: earlierWait };
  }
  const approvers = ctx.waiting.step.approvers ?? {};
  const people = ctx.people ?? [];
  const by = d.identity.by;
  const person = personOf(d.identity, approvers, people);
  if (d.override !== true && !admits(approvers, d.identity, person)) {
    return {
      reason: ApprovalRefusal.NotAnApprover,
      message: `${by} is not among the approvers of step ${d.step + 1} (${describeApprovers(approvers)})`,
    };
  }
  // One decision per person per wait; links are anonymous, each is single-use by its ref.
  const key = countingKey(d.identity, person);
  const earlier = ctx.records.find(
    (r) =>
      r.revision === d.revision &&
      r.step === d.step &&
      inWait(r, since) &&
      (r.by === by ||
        (d.identity.via !== 'link' && countingKey(r, personOf(r, approvers, people)) === key)),
  );
  if (earlier !== undefined) {
    const who = person === undefined ? by : `${by} (${person.name})`;
    return {
      reason: ApprovalRefusal.AlreadyDecided,
      message: `${who} already decided ${earlier.decision} for step ${d.step + 1} at ${earlier.at} via ${earlier.via}`,
    };
  }
  return undefined;
}

/** A record made during the wait that began at `since` (every record, before it is set). */
function inWait(r: ApprovalRecord, since: number | undefined): boolean {
  return since === undefined || Date.parse(r.at) >= since;
}

/** Why a decision asked for before the current wait began cannot count in it. */
function earlierWaitMessage(
  d: { readonly waitStart?: number; readonly createdAt?: number },
  since: number | undefined,
): string | undefined {
  if (since === undefined) return undefined;
  const began = new Date(since).toISOString();
  if (d.waitStart !== undefined && d.waitStart !== since) {
    return `the link was issued for an earlier wait at this step; the current wait began at ${began}`;
  }
  // creationTimestamp has whole seconds: compare at that precision.
  if (d.createdAt !== undefined && d.createdAt < Math.floor(since / 1000) * 1000) {
    return `the RolloutApproval was created before the current wait at this step began (${began})`;
  }
  return undefined;
}

function refuse(
  i: RequestsInput,
  request: RolloutApproval,
  records: readonly ApprovalRecord[],
): { readonly reason: RefusalReason; readonly message: string } | undefined {
  const { spec } = request;
  const created = Date.parse(String(request.metadata.creationTimestamp ?? ''));
  return refusalFor(
    {
      revision: spec.revision,
      step: spec.step,
      identity: { by: spec.approver, via: 'plugin', groups: spec.approverGroups ?? [] },
      ...(Number.isNaN(created) ? {} : { createdAt: created }),
      // Override: the API server admitted it only from a holder of break-glass on the Rollout.
      override: spec.decision === 'Override',
    },
    // An approver who already approved may still override (their approval did not suffice).
    { ...i, records: spec.decision === 'Override' ? records.filter(isOverride) : records },
  );
}

const isOverride = (r: ApprovalRecord): boolean => r.decision === 'Override';

export function describeApprovers(a: Approvers): string {
  const parts = [
    ...(a.users?.length ? [`users: ${a.users.join(', ')}`] : []),
    ...(a.groups?.length ? [`groups: ${a.groups.join(', ')}`] : []),
    ...(a.slackUsers?.length ? [`Slack users: ${a.slackUsers.join(', ')}`] : []),
    ...(a.people?.length ? [`people: ${a.people.map((p) => p.name).join(', ')}`] : []),
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

/**
 * What the records say about the approval step `w`, waiting since `startedAt`: only decisions
 * made during this wait, by someone the step admits now, count (not those of a wait before a
 * retry or a rollback, nor of approvers since removed), and approvals count people.
 */
export function judgeApproval(
  w: ApprovalWait,
  records: readonly ApprovalRecord[],
  startedAt: number,
  now: number,
  people: readonly Person[] = [],
): ApprovalOutcome {
  const { rejection, by } = countDecisions(w, records, startedAt, people);
  if (rejection !== undefined) return { kind: 'rejected', record: rejection };
  // Break-glass passes the step whoever approved (a rejection on record still wins).
  const override = records.find(
    (r) => isOverride(r) && r.revision === w.hash && r.step === w.index && inWait(r, startedAt),
  );
  if (override !== undefined) return { kind: 'approved', by: [override.by], overridden: true };
  if (by.length >= (w.step.minApprovals ?? 1)) return { kind: 'approved', by };
  const deadline = approvalDeadline(w.step, startedAt);
  if (deadline !== undefined && now >= deadline) {
    return { kind: 'timedOut', action: w.step.onTimeout ?? 'abort', deadline };
  }
  return { kind: 'waiting', approvals: by.length, ...(deadline !== undefined ? { deadline } : {}) };
}

/** The decisions that count in the wait begun at `startedAt`: the first admitted rejection,
 *  and the distinct approvers (people, the anonymous link approver where it counts). */
export function countDecisions(
  w: ApprovalWait,
  records: readonly ApprovalRecord[],
  startedAt: number,
  people: readonly Person[] = [],
): { readonly rejection?: ApprovalRecord; readonly by: string[] } {
  const mine = admitted(
    w.step,
    records.filter((r) => r.revision === w.hash && r.step === w.index && inWait(r, startedAt)),
    people,
  );
  const rejection = mine.find((c) => c.record.decision === 'Reject')?.record;
  const approvals = mine.filter((c) => c.record.decision === 'Approve');
  return {
    ...(rejection !== undefined ? { rejection } : {}),
    by: distinctApprovers(w.step, approvals),
  };
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
  const step = approvalGateAt(r, currentStep);
  const pause = (s.pauseConditions ?? []).find((c) => c.reason === PauseReason.AwaitingApproval);
  const since = Date.parse(pause?.startTime ?? '');
  const inForce =
    step !== undefined &&
    s.observedGeneration === String(r.metadata.generation ?? 0) &&
    currentHash !== s.stableRS &&
    s.abort !== true &&
    r.spec.paused !== true &&
    !Number.isNaN(since);
  return {
    rolloutName: r.metadata.name ?? '',
    currentHash,
    currentStep,
    ...(inForce ? { waiting: { step, index: currentStep, hash: currentHash, since } } : {}),
    records: s.approvals ?? [],
  };
}
