/**
 * What the controller tells people about a Rollout, as plain values: the messages for Slack and
 * the webhook document are rendered from this, and nothing here knows about transports.
 */
import type { RequestDecision } from '../api/approval.ts';

export const NotificationKind = {
  AwaitingApproval: 'awaiting-approval',
  StepCompleted: 'step-completed',
  AnalysisFailed: 'analysis-failed',
  Aborted: 'aborted',
  Completed: 'completed',
  ApprovalRecorded: 'approval-recorded',
} as const;
export type NotificationKind = (typeof NotificationKind)[keyof typeof NotificationKind];
export const NOTIFICATION_KINDS: readonly NotificationKind[] = Object.values(NotificationKind);

export interface Approvers {
  readonly users: readonly string[];
  readonly groups: readonly string[];
  /** Slack user ids (U…/W…), mentioned in the message. */
  readonly slackUsers: readonly string[];
}

export interface ApprovalRequest {
  /** Signed links; GET shows a confirmation page, only POST acts. */
  readonly approveUrl?: string;
  readonly rejectUrl?: string;
  /** Slack button values (signed approval tokens). Never sent to generic webhooks. */
  readonly approveToken: string;
  readonly rejectToken: string;
  readonly approvers: Approvers;
  readonly minApprovals: number;
  /** RFC 3339. */
  readonly expiresAt?: string;
  /** The approval step's `message`. */
  readonly prompt?: string;
}

export interface Notification {
  readonly kind: NotificationKind;
  readonly rollout: { readonly namespace: string; readonly name: string; readonly uid: string };
  /** Pod-template hash. */
  readonly revision?: string;
  /** Canary step index (0-based, as in status.currentStepIndex). */
  readonly step?: number;
  readonly stepCount?: number;
  /** Human text, e.g. the Kubernetes event message. */
  readonly message: string;
  /** RFC 3339. */
  readonly at: string;
  /** Only for awaiting-approval. */
  readonly approval?: ApprovalRequest;
}

/** The decision that closes an awaiting-approval message. */
export interface ApprovalOutcome {
  readonly decision: RequestDecision;
  /** Who decided: a Kubernetes user, or a Slack user id for `via: 'slack'`. */
  readonly by: string;
  readonly via: 'plugin' | 'link' | 'slack';
  /** RFC 3339. */
  readonly at: string;
  readonly comment?: string;
}

/** Which awaiting-approval message: one per Rollout UID, revision and step. */
export interface ApprovalMessageKey {
  readonly uid: string;
  readonly revision: string;
  readonly step: number;
}

export function approvalMessageKey(n: Notification): ApprovalMessageKey | undefined {
  if (n.kind !== NotificationKind.AwaitingApproval) return undefined;
  if (n.revision === undefined || n.step === undefined) return undefined;
  return { uid: n.rollout.uid, revision: n.revision, step: n.step };
}
