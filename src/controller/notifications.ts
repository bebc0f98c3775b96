/**
 * From what the controller records (its events) to what people hear: a Rollout's notification
 * annotations say where and about what; an approval request gets signed Approve/Reject tokens
 * (Slack buttons) and links (when the step names no approvers and a public URL is set); a
 * decision closes the Slack message once it settles the step. Sending is the notifier's
 * business, in the background: nothing here waits on a network or throws into a reconcile.
 */
import { newTokenId, signApprovalToken } from '../approval/index.ts';
import type { Decision } from '../approval/index.ts';
import { Reason } from '../api/index.ts';
import type { ApprovalRecord, ApprovalStep, Person, Rollout } from '../api/index.ts';
import type { Logger } from '../kube/index.ts';
import {
  describeTarget,
  NotificationKind,
  parseSubscriptions,
  selectTargets,
} from '../notify/index.ts';
import type {
  Notification,
  NotificationTarget,
  Notifier,
  NotifyConfig,
  TargetPolicy,
} from '../notify/index.ts';
import { anyoneMay, countDecisions } from '../rollout/approval.ts';
import { approvalGateAt, approvalGates, stepCountOf } from '../rollout/index.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import type { EventSink, PlannedEvent } from './rollout-reconciler.ts';

export interface NotificationBridgeDeps {
  readonly notifier: Notifier;
  readonly config: NotifyConfig;
  /** How people reach the external port, e.g. https://stepwise.example.com (no trailing /). */
  readonly publicUrl?: string;
  /** How long an approval link stays valid at most (a shorter step timeout wins). */
  readonly linkTtlMs: number;
  /** Which targets each namespace may use (--notification-targets); undefined: any. */
  readonly targetPolicy?: TargetPolicy;
  /** --approval-people: who each identity is, for counting. */
  readonly people?: readonly Person[];
  readonly now: () => number;
  readonly events: EventSink;
  readonly log: Logger;
}

const KIND_OF: Readonly<Partial<Record<string, NotificationKind>>> = {
  [Reason.ApprovalRequested]: NotificationKind.AwaitingApproval,
  [Reason.RolloutStepCompleted]: NotificationKind.StepCompleted,
  [Reason.AnalysisRunFailed]: NotificationKind.AnalysisFailed,
  [Reason.AnalysisRunError]: NotificationKind.AnalysisFailed,
  [Reason.RolloutAborted]: NotificationKind.Aborted,
  [Reason.RolloutCompleted]: NotificationKind.Completed,
  [Reason.ApprovalRecorded]: NotificationKind.ApprovalRecorded,
  [Reason.ApprovalRejected]: NotificationKind.ApprovalRecorded,
};

export class NotificationBridge {
  readonly #d: NotificationBridgeDeps;
  /** Rollout uid → the annotation text last warned about (one Warning per bad version). */
  readonly #warned = new Map<string, string>();
  /** Rollout uid → the refused targets last warned about. */
  readonly #refusedWarned = new Map<string, string>();

  constructor(deps: NotificationBridgeDeps) {
    this.#d = deps;
  }

  /** Told of every event the controller recorded about `rollout`. Never throws. */
  onEvent(rollout: Rollout, e: PlannedEvent): void {
    try {
      this.#onEvent(rollout, e);
    } catch (err) {
      this.#d.log.error('notification not made', {
        rollout: `${rollout.metadata.namespace}/${rollout.metadata.name}`,
        reason: e.reason,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #onEvent(rollout: Rollout, e: PlannedEvent): void {
    const kind = KIND_OF[e.reason];
    if (kind === undefined) return;
    const subs = this.#subscriptions(rollout);
    const record = e.subject?.record;
    if (record !== undefined) this.#maybeResolve(rollout, record);
    if (subs === undefined || subs.targets.length === 0 || !subs.kinds.includes(kind)) return;
    const targets = this.#permitted(rollout, subs.targets);
    if (targets.length === 0) return;
    const gates = approvalGates(rollout);
    const n: Notification = {
      kind,
      rollout: {
        namespace: rollout.metadata.namespace ?? '',
        name: rollout.metadata.name ?? '',
        uid: rollout.metadata.uid ?? '',
      },
      ...(e.subject !== undefined ? { revision: e.subject.revision, step: e.subject.step } : {}),
      stepCount: stepCountOf(rollout),
      message: e.message,
      at: new Date(this.#d.now()).toISOString(),
    };
    const step =
      e.subject === undefined
        ? undefined
        : gates.find((g) => g.index === e.subject?.step)?.approval;
    const approval =
      kind === NotificationKind.AwaitingApproval && step !== undefined && e.subject !== undefined
        ? this.#approvalRequest(rollout, step, e.subject)
        : undefined;
    this.#d.notifier.send(approval === undefined ? n : { ...n, approval }, targets);
  }

  /** Signed tokens for the buttons and, when links count for this step, the links. Bound to
   *  the wait the event announced: no wait, no tokens. */
  #approvalRequest(
    rollout: Rollout,
    step: ApprovalStep,
    subject: { readonly step: number; readonly revision: string; readonly waitStart?: number },
  ): Notification['approval'] {
    const key = this.#d.config.approvalSigningKeys[0];
    const waitStart = subject.waitStart;
    if (key === undefined || waitStart === undefined) return undefined;
    const timeout = step.timeout === undefined ? undefined : parsePauseDuration(step.timeout);
    // Links leak (logs, history, forwarded messages): never valid longer than the cap.
    const ttl = Math.min(timeout?.ok === true ? timeout.value : Infinity, this.#d.linkTtlMs);
    const expiresAt = Math.floor((this.#d.now() + ttl) / 1000);
    const token = (decision: Decision) =>
      signApprovalToken(
        {
          rolloutUid: rollout.metadata.uid ?? '',
          namespace: rollout.metadata.namespace ?? '',
          name: rollout.metadata.name ?? '',
          revision: subject.revision,
          step: subject.step,
          waitStart,
          decision,
          expiresAt,
          id: newTokenId(),
        },
        key,
      );
    const approveToken = token('Approve');
    const rejectToken = token('Reject');
    const approvers = step.approvers ?? {};
    const links = this.#d.publicUrl !== undefined && anyoneMay(approvers);
    return {
      approveToken,
      rejectToken,
      ...(links ? { approveUrl: `${this.#d.publicUrl}/approvals/${approveToken}` } : {}),
      ...(links ? { rejectUrl: `${this.#d.publicUrl}/approvals/${rejectToken}` } : {}),
      approvers: {
        users: approvers.users ?? [],
        groups: approvers.groups ?? [],
        slackUsers: approvers.slackUsers ?? [],
      },
      minApprovals: step.minApprovals ?? 1,
      expiresAt: new Date(expiresAt * 1000).toISOString(),
      ...(step.message ? { prompt: step.message } : {}),
    };
  }

  /** A decision that settles its step (a rejection, or the last approval needed) closes the
   *  posted Slack message: its buttons go, who decided is said. */
  #maybeResolve(rollout: Rollout, record: ApprovalRecord): void {
    const step = approvalGateAt(rollout, record.step);
    if (step === undefined) return;
    // Counted as the planner counts: a Slack press and its link are not two people.
    const pause = rollout.status?.pauseConditions?.find((p) => p.reason === 'AwaitingApproval');
    const records = [...(rollout.status?.approvals ?? []).filter((r) => r !== record), record];
    const counted = countDecisions(
      { step, index: record.step, hash: record.revision },
      records,
      Date.parse(pause?.startTime ?? record.at),
      this.#d.people ?? [],
    );
    // An Override (break-glass) passes the step whoever approved before.
    const settles =
      record.decision === 'Override' ||
      counted.rejection !== undefined ||
      counted.by.length >= (step.minApprovals ?? 1);
    if (!settles) return;
    this.#d.notifier.resolve(
      { uid: rollout.metadata.uid ?? '', revision: record.revision, step: record.step },
      {
        decision: record.decision,
        by: record.by,
        via: record.via,
        at: record.at,
        ...(record.comment ? { comment: record.comment } : {}),
      },
    );
  }

  /** The targets the administrator's map and the cap allow; the others are a Warning, once. */
  #permitted(rollout: Rollout, targets: readonly NotificationTarget[]): NotificationTarget[] {
    const { allowed, refused } = selectTargets(
      targets,
      rollout.metadata.namespace ?? '',
      this.#d.targetPolicy,
    );
    const uid = rollout.metadata.uid ?? '';
    if (refused.length === 0) {
      this.#refusedWarned.delete(uid);
      return [...allowed];
    }
    const text = refused.map((r) => `${describeTarget(r.target)} (${r.why})`).join('; ');
    if (this.#refusedWarned.get(uid) !== text) {
      this.#refusedWarned.set(uid, text);
      this.#d.events.event(
        rollout,
        'Warning',
        Reason.NotificationTargetRefused,
        `notifications not sent to: ${text}`,
      );
    }
    return [...allowed];
  }

  /** The Rollout's subscriptions; bad annotations are a Warning event once, and no sending. */
  #subscriptions(rollout: Rollout) {
    const annotations = rollout.metadata.annotations;
    const subs = parseSubscriptions(annotations);
    const uid = rollout.metadata.uid ?? '';
    if (subs.ok) {
      this.#warned.delete(uid);
      return subs;
    }
    const text = subs.problems.join('; ');
    if (this.#warned.get(uid) !== text) {
      this.#warned.set(uid, text);
      this.#d.events.event(
        rollout,
        'Warning',
        Reason.NotificationConfigInvalid,
        `notifications not sent: ${text}`,
      );
    }
    return undefined;
  }
}
