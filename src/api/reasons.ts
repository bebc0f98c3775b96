/**
 * Condition types, condition reasons, pause reasons and event reasons. Argo Rollouts' strings
 * are kept exactly: notifications, Argo CD health checks and dashboards match on them.
 */
export const ConditionType = {
  Progressing: 'Progressing',
  Available: 'Available',
  Healthy: 'Healthy',
  Paused: 'Paused',
  InvalidSpec: 'InvalidSpec',
  Completed: 'Completed',
  ReplicaFailure: 'ReplicaFailure',
  /** Ours: whether the ReplicaSets Argo Rollouts left running were taken over (adoption/). */
  Adopted: 'Adopted',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

export const Reason = {
  // Progressing
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  RolloutUpdated: 'RolloutUpdated',
  RolloutPaused: 'RolloutPaused',
  RolloutResumed: 'RolloutResumed',
  RolloutAborted: 'RolloutAborted',
  RolloutRetry: 'RolloutRetry',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  ReplicaSetNotAvailable: 'ReplicaSetNotAvailable',
  ServiceReferenceError: 'ServiceReferenceError',
  ReconciliationError: 'ReconciliationError',
  ReplicaSetCreateError: 'ReplicaSetCreateError',
  // Available
  AvailableReason: 'AvailableReason',
  // Completed / Healthy
  RolloutCompleted: 'RolloutCompleted',
  RolloutNotCompleted: 'RolloutNotCompleted',
  RolloutHealthy: 'RolloutHealthy',
  // InvalidSpec
  InvalidSpec: 'InvalidSpec',
  // Event-only
  RolloutStepCompleted: 'RolloutStepCompleted',
  ScalingReplicaSet: 'ScalingReplicaSet',
  TrafficWeightUpdated: 'TrafficWeightUpdated',
  SwitchService: 'SwitchService',
  RolloutRestarted: 'RolloutRestarted',
  DeletedOldReplicaSet: 'DeletedOldReplicaSet',
  SkipSteps: 'SkipSteps',
  AnalysisRunFailed: 'AnalysisRunFailed',
  AnalysisRunError: 'AnalysisRunError',
  AnalysisRunInconclusive: 'AnalysisRunInconclusive',
  AnalysisRunSuccessful: 'AnalysisRunSuccessful',
  AnalysisRunRunning: 'AnalysisRunRunning',
  AnalysisTemplateNotFound: 'AnalysisTemplateNotFound',
  // Ours (not Argo's): approval steps.
  ApprovalRequested: 'ApprovalRequested',
  ApprovalRecorded: 'ApprovalRecorded',
  ApprovalRefused: 'ApprovalRefused',
  ApprovalRejected: 'ApprovalRejected',
  ApprovalTimedOut: 'ApprovalTimedOut',
  // Ours: a RolloutApproval refused because the identity policy did not vouch for it.
  IdentityPolicyMissing: 'IdentityPolicyMissing',
  PredatesIdentityPolicy: 'PredatesIdentityPolicy',
  ApprovalOverridden: 'ApprovalOverridden',
  // Ours: a Rollout's notification annotations cannot be read.
  NotificationConfigInvalid: 'NotificationConfigInvalid',
  // Ours: a notification target outside the administrator's map, or past the cap per Rollout.
  NotificationTargetRefused: 'NotificationTargetRefused',
  // Ours: a workloadRef's Deployment scaled down (scaleDown onsuccess/progressively).
  WorkloadScaledDown: 'WorkloadScaledDown',
  // Ours (not Argo's): the shell backed off a Rollout whose status kept being rewritten.
  StatusWriteStorm: 'StatusWriteStorm',
  // Ours: a deleted Rollout gave its workloadRef's Deployment its pre-migration replicas back,
  // or could not.
  WorkloadRestored: 'WorkloadRestored',
  WorkloadNotRestored: 'WorkloadNotRestored',
  // Ours: taking over what Argo Rollouts left running (src/rollout/adoption/).
  ReplicaSetsAdopted: 'ReplicaSetsAdopted',
  /** A ReplicaSet the Rollout selects is still controlled by an Argo Rollout. */
  ArgoRolloutStillOwns: 'ArgoRolloutStillOwns',
  /** A ReplicaSet the Rollout selects belongs to an Argo feature Stepwise lacks (Experiment). */
  ArgoFeatureUnsupported: 'ArgoFeatureUnsupported',
  /** No live ReplicaSet runs the Rollout's template. */
  NoMatchingReplicaSet: 'NoMatchingReplicaSet',
  /** The stable ReplicaSet the handed-over status names is not among the live ones. */
  StableReplicaSetMissing: 'StableReplicaSetMissing',
  /** Ours: an argoproj.io Rollout whose status Argo's controller wrote is served in place from
   *  where it stood (src/rollout/in-place/). */
  TakenOverInPlace: 'TakenOverInPlace',
  /** Ours: served in place while Argo's own controller holds its leader Lease: nothing written
   *  but this (src/rollout/in-place/argo-controller.ts). */
  ArgoRolloutsControllerRunning: 'ArgoRolloutsControllerRunning',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

export const PauseReason = {
  CanaryPauseStep: 'CanaryPauseStep',
  InconclusiveAnalysisRun: 'InconclusiveAnalysisRun',
  AwaitingApproval: 'AwaitingApproval',
  /** Blue-green: the preview is ready; the active Service switches on promote (or its timer). */
  BlueGreenPause: 'BlueGreenPause',
  /** Ours: `kubectl stepwise pause` (Argo writes spec.paused; we keep people out of spec). */
  PausedByUser: 'PausedByUser',
} as const;
export type PauseReason = (typeof PauseReason)[keyof typeof PauseReason];

export const Phase = {
  Healthy: 'Healthy',
  Progressing: 'Progressing',
  Paused: 'Paused',
  Degraded: 'Degraded',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
