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
import type { ApprovalRecord, ApprovalStep, Rollout } from '../api/index.ts';
import type { Logger } from '../kube/index.ts';
import { NotificationKind, parseSubscriptions } from '../notify/index.ts';
import type { Notification, Notifier, NotifyConfig } from '../notify/index.ts';
import { anyoneMay } from '../rollout/approval.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import type { EventSink, PlannedEvent } from './rollout-reconciler.ts';

export interface NotificationBridgeDeps {
  readonly notifier: Notifier;
  readonly config: NotifyConfig;
  /** How people reach the external port, e.g. https://stepwise.example.com (no trailing /). */
  readonly publicUrl?: string;
  /** How long a link of an approval step without a timeout stays valid. */
  readonly linkTtlMs: number;
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
    const steps = rollout.spec.strategy.canary?.steps ?? [];
    const n: Notification = {
      kind,
      rollout: {
        namespace: rollout.metadata.namespace ?? '',
        name: rollout.metadata.name ?? '',
        uid: rollout.metadata.uid ?? '',
      },
      ...(e.subject !== undefined ? { revision: e.subject.revision, step: e.subject.step } : {}),
      stepCount: steps.length,
      message: e.message,
      at: new Date(this.#d.now()).toISOString(),
    };
    const step = e.subject === undefined ? undefined : steps[e.subject.step]?.approval;
    const approval =
      kind === NotificationKind.AwaitingApproval && step !== undefined && e.subject !== undefined
        ? this.#approvalRequest(rollout, step, e.subject)
        : undefined;
    this.#d.notifier.send(approval === undefined ? n : { ...n, approval }, subs.targets);
  }

  /** Signed tokens for the buttons and, when links count for this step, the links. */
  #approvalRequest(
    rollout: Rollout,
    step: ApprovalStep,
    subject: { readonly step: number; readonly revision: string },
  ): Notification['approval'] {
    const key = this.#d.config.approvalSigningKeys[0];
    if (key === undefined) return undefined;
    const timeout = step.timeout === undefined ? undefined : parsePauseDuration(step.timeout);
    const ttl = timeout?.ok === true ? timeout.value : this.#d.linkTtlMs;
    const expiresAt = Math.floor((this.#d.now() + ttl) / 1000);
    const token = (decision: Decision) =>
      signApprovalToken(
        {
          rolloutUid: rollout.metadata.uid ?? '',
          namespace: rollout.metadata.namespace ?? '',
          name: rollout.metadata.name ?? '',
          revision: subject.revision,
          step: subject.step,
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
    const step = rollout.spec.strategy.canary?.steps?.[record.step]?.approval;
    const earlier = (rollout.status?.approvals ?? []).filter(
      (r) => r.revision === record.revision && r.step === record.step && r.decision === 'Approve',
    );
    const approvers = new Set([...earlier.map((r) => r.by), record.by]);
    const settles = record.decision !== 'Approve' || approvers.size >= (step?.minApprovals ?? 1);
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
