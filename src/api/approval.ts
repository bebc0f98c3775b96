/**
 * The approval API (`stepwise.dev/v1alpha1`): the canary step `approval`, the records of who
 * approved in `status.approvals`, and `RolloutApproval`, the object a person creates (through
 * `kubectl stepwise approve`) to approve or reject a step. Names are fixed by design.md ("API
 * details that later work must keep to"). Argo Rollouts has none of this: all of it is an
 * addition, and a Rollout without approval steps reads exactly as in Argo.
 */
import Type, { type Static } from 'typebox';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Described, IntOrString, StringEnum, Strict, Time } from './schema.ts';

export const Decisions = ['Approve', 'Reject'] as const;
export type Decision = (typeof Decisions)[number];

/** What a RolloutApproval may ask and a record may hold. `Override` is break-glass: it passes the
 *  step without its approvers, from a user the API server found holding the `break-glass` verb on
 *  the Rollout (deploy/approvals/status-policy.yaml); links and Slack never carry it. */
export const RequestDecisions = [...Decisions, 'Override'] as const;
export type RequestDecision = (typeof RequestDecisions)[number];

/** How an approval reached the controller. */
export const ApprovalChannels = ['plugin', 'link', 'slack'] as const;
export type ApprovalChannel = (typeof ApprovalChannels)[number];

export const OnTimeoutActions = ['abort', 'pause'] as const;

const Names = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description }));

/** One person and the identities each channel knows them by: approvals count people, so
 *  Alice approving with kubectl and again in Slack is one approval, not two. */
export const PersonSchema = Strict(
  {
    name: Type.String({ minLength: 1, maxLength: 253, description: 'The person, as counted.' }),
    kubeUser: Type.Optional(
      Type.String({ minLength: 1, description: 'Their Kubernetes user name.' }),
    ),
    groups: Names('Kubernetes groups they are in (admits their Slack identity too).'),
    slackUser: Type.Optional(Type.String({ minLength: 1, description: 'Their Slack user ID.' })),
  },
  { description: 'A person and their identity in each channel.' },
);

export const ApproversSchema = Strict(
  {
    users: Names('Kubernetes user names (as the API server authenticates them).'),
    groups: Names('Kubernetes groups; a member of any of them may approve.'),
    slackUsers: Names('Slack user IDs (U…) allowed to press the Approve/Reject buttons.'),
    people: Type.Optional(
      Type.Array(PersonSchema, {
        description:
          'People who may approve, each with their identity per channel; they also map those identities to one person for counting (with the cluster-wide --approval-people).',
      }),
    ),
  },
  { description: 'Who may decide. Unset: anyone allowed to create a RolloutApproval.' },
);

export const ApprovalStepSchema = Strict(
  {
    timeout: Type.Optional(
      IntOrString({
        description:
          'How long to wait for the approvals (seconds or a duration such as "30m"). Unset: no limit.',
      }),
    ),
    onTimeout: Type.Optional(
      StringEnum(OnTimeoutActions, {
        description: 'abort (default): go back to stable; pause: keep waiting for a person.',
      }),
    ),
    minApprovals: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        format: 'int32',
        description:
          'Distinct people needed (identities mapped to one person count once). Default 1. Any rejection aborts.',
      }),
    ),
    countLinkApprovals: Type.Optional(
      Type.Boolean({
        description:
          'A signed link proves nobody: all link approvals together count as one anonymous approver, and only when minApprovals is 1 unless this is true. Default false.',
      }),
    ),
    approvers: Type.Optional(ApproversSchema),
    message: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Shown to the people asked.' }),
    ),
  },
  { description: 'Wait until people approve; a rejection or (by default) the timeout aborts.' },
);

/** One decision, as recorded in `status.approvals` (written by the controller only). */
export const ApprovalRecordSchema = Strict({
  step: Type.Integer({ minimum: 0, format: 'int32', description: 'The canary step index.' }),
  revision: Type.String({ description: 'Pod-template hash the decision is for.' }),
  decision: StringEnum(RequestDecisions, { description: 'Approve, Reject or Override.' }),
  by: Type.String({ description: 'User name, Slack user ID, or link:<token id>.' }),
  via: StringEnum(ApprovalChannels, {
    description: 'plugin (a RolloutApproval), link (a signed link) or slack.',
  }),
  at: Described(Time, 'When the controller recorded it.'),
  comment: Type.Optional(Type.String({ description: "The approver's comment." })),
  person: Type.Optional(
    Type.String({ description: 'The person `by` was mapped to when recorded, if any.' }),
  ),
  groups: Type.Optional(
    Type.Array(Type.String(), {
      description: "Plugin decisions: the approver's groups, as the identity policy checked them.",
    }),
  ),
  ref: Type.Optional(
    Type.String({
      description:
        'Where it came from: RolloutApproval/<name>, link:<token id>, slack:<token id>:<user>. One record per ref.',
    }),
  ),
});

export const RolloutApprovalSpecSchema = Strict(
  {
    rolloutName: Type.String({
      minLength: 1,
      maxLength: 253,
      description: 'The Rollout, in this namespace.',
    }),
    revision: Type.String({ minLength: 1, description: 'Pod-template hash being approved.' }),
    step: Type.Integer({ minimum: 0, format: 'int32', description: 'Canary step index.' }),
    decision: StringEnum(RequestDecisions, {
      description: 'Approve, Reject, or Override (break-glass: needs the break-glass right).',
    }),
    approver: Type.String({
      minLength: 1,
      description:
        'Must be the requesting user: the ValidatingAdmissionPolicy in deploy/ makes the API server refuse anything else.',
    }),
    approverGroups: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: "The approver's groups; the admission policy refuses any the user is not in.",
      }),
    ),
    comment: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Why; recorded with the decision.' }),
    ),
  },
  {
    description: 'A person approving or rejecting one step of one revision. Immutable.',
    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable' }],
  },
);

export const ApprovalPhases = ['Recorded', 'Refused'] as const;
export type ApprovalPhase = (typeof ApprovalPhases)[number];

export const RolloutApprovalStatusSchema = Strict({
  phase: Type.Optional(
    StringEnum(ApprovalPhases, {
      description: "Recorded (in the Rollout's status.approvals) or Refused.",
    }),
  ),
  reason: Type.Optional(
    Type.String({ description: 'Why it was refused, e.g. WrongRevision, NotAnApprover.' }),
  ),
  message: Type.Optional(Type.String({ description: 'Details, for people.' })),
  at: Type.Optional(Described(Time, 'When the controller recorded or refused it.')),
});

export type ApprovalStep = Static<typeof ApprovalStepSchema>;
export type Approvers = Static<typeof ApproversSchema>;
export type Person = Static<typeof PersonSchema>;
export type ApprovalRecord = Static<typeof ApprovalRecordSchema>;
export type RolloutApprovalSpec = Static<typeof RolloutApprovalSpecSchema>;
export type RolloutApprovalStatus = Static<typeof RolloutApprovalStatusSchema>;

export interface RolloutApproval {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: RolloutApprovalSpec;
  status?: RolloutApprovalStatus;
}

/** Why a RolloutApproval was refused (its `status.reason`). */
export const ApprovalRefusal = {
  WrongRevision: 'WrongRevision',
  WrongStep: 'WrongStep',
  NotAwaitingApproval: 'NotAwaitingApproval',
  NotAnApprover: 'NotAnApprover',
  AlreadyDecided: 'AlreadyDecided',
  /** Issued (a link) or created (a RolloutApproval) before the current wait began. */
  EarlierWait: 'EarlierWait',
  RolloutNotFound: 'RolloutNotFound',
  /** The identity policy is not in force (controller/identity-policy.ts). */
  IdentityPolicyMissing: 'IdentityPolicyMissing',
  /** Created before the identity policy's binding: nothing checked the approver. */
  PredatesIdentityPolicy: 'PredatesIdentityPolicy',
} as const;
export type ApprovalRefusal = (typeof ApprovalRefusal)[keyof typeof ApprovalRefusal];

/** Records kept in status.approvals: all of the current revision, and the newest of others. */
export const MAX_APPROVAL_RECORDS = 50;
