/**
 * The Rollout's status, as Argo Rollouts reports it (plus `approvals` and
 * `workloadObservedGeneration`); part of the Rollout API (rollout.ts). Written by the controller
 * only, through the status subresource.
 */
import Type, { type Static } from 'typebox';
import { Described, StringEnum, Strict, Time } from './schema.ts';
import { ApprovalRecordSchema } from './approval.ts';

export const ConditionSchema = Strict(
  {
    type: Type.String({
      description:
        'The kind of condition, e.g. Progressing, Available, Healthy, Paused, InvalidSpec.',
    }),
    status: StringEnum(['True', 'False', 'Unknown'], { description: 'True, False or Unknown.' }),
    reason: Type.String({ description: 'One CamelCase word: why the condition is as it is.' }),
    message: Type.String({ description: 'Details, for people.' }),
    lastUpdateTime: Described(Time, 'When the condition last changed in any way.'),
    lastTransitionTime: Described(Time, 'When status last changed.'),
  },
  { description: "An aspect of the Rollout's state." },
);

export const PauseConditionSchema = Strict(
  {
    reason: Type.String({
      description:
        'e.g. CanaryPauseStep, BlueGreenPause, InconclusiveAnalysisRun, AwaitingApproval.',
    }),
    startTime: Described(Time, 'When the pause began.'),
  },
  { description: 'Why the controller paused the rollout, and since when.' },
);

const WeightDestination = Strict({
  weight: Type.Integer({ format: 'int32', description: 'The weight set on the router.' }),
  serviceName: Type.Optional(Type.String({ description: 'The Service given that weight.' })),
  podTemplateHash: Type.Optional(
    Type.String({ description: 'The pod-template hash that Service selects.' }),
  ),
});

/** The AnalysisRun a rollout is waiting on, as Argo reports it. */
export const RolloutAnalysisRunStatusSchema = Strict(
  {
    name: Type.String({ description: "The AnalysisRun's name." }),
    status: Type.String({ description: 'The run phase.' }),
    message: Type.Optional(Type.String({ description: "The run's message." })),
  },
  { description: 'The AnalysisRun of this kind for the current update.' },
);

const count = (description: string) =>
  Type.Optional(Type.Integer({ format: 'int32', description }));

export const RolloutStatusSchema = Strict({
  phase: Type.Optional(
    StringEnum(['Healthy', 'Progressing', 'Paused', 'Degraded'], {
      description: 'Healthy, Progressing, Paused or Degraded, derived from the conditions.',
    }),
  ),
  message: Type.Optional(Type.String({ description: 'Why the Rollout is in its phase.' })),
  observedGeneration: Type.Optional(
    Type.String({ description: 'The metadata.generation this status was computed from.' }),
  ),
  workloadObservedGeneration: Type.Optional(
    Type.String({ description: "The referenced workload's metadata.generation last read." }),
  ),
  currentPodHash: Type.Optional(
    Type.String({ description: 'The pod-template hash of the desired (newest) version.' }),
  ),
  stableRS: Type.Optional(
    Type.String({ description: 'The pod-template hash of the stable (fully promoted) version.' }),
  ),
  currentStepIndex: count('The index of the current canary step (the step count when done).'),
  currentStepHash: Type.Optional(
    Type.String({ description: 'A hash of the steps: an edit restarts them.' }),
  ),
  replicas: count('Pods of all versions.'),
  updatedReplicas: count('Pods of the desired version.'),
  readyReplicas: count('Ready pods.'),
  availableReplicas: count('Available pods (ready for minReadySeconds).'),
  HPAReplicas: count('Pods counted by the scale subresource (what an autoscaler sees).'),
  selector: Type.Optional(
    Type.String({ description: "The scale subresource's label selector, as a string." }),
  ),
  collisionCount: count('Hash collisions met naming ReplicaSets; part of the next hash.'),
  pauseConditions: Type.Optional(
    Type.Array(PauseConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['reason'],
      description: 'Why the rollout is paused; removing them resumes it (promote).',
    }),
  ),
  controllerPause: Type.Optional(
    Type.Boolean({ description: 'The controller, not a person, paused the rollout.' }),
  ),
  abort: Type.Optional(
    Type.Boolean({ description: 'true: the update is aborted (set to abort, false to retry).' }),
  ),
  abortedAt: Type.Optional(Described(Time, 'When the controller acted on the abort.')),
  promoteFull: Type.Optional(
    Type.Boolean({ description: 'true: skip the remaining steps, pauses and analyses.' }),
  ),
  restartedAt: Type.Optional(Described(Time, 'The spec.restartAt of the last completed restart.')),
  canary: Type.Optional(
    Strict(
      {
        weights: Type.Optional(
          Strict(
            {
              canary: Described(WeightDestination, 'The canary side.'),
              stable: Described(WeightDestination, 'The stable side.'),
            },
            { description: 'The traffic weights last set on the router.' },
          ),
        ),
        currentStepAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
        currentBackgroundAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
      },
      { description: 'Canary state.' },
    ),
  ),
  blueGreen: Type.Optional(
    Strict(
      {
        activeSelector: Type.Optional(
          Type.String({ description: 'The hash the active Service selects, read back from it.' }),
        ),
        previewSelector: Type.Optional(
          Type.String({ description: 'The hash the preview Service selects, read back from it.' }),
        ),
        scaleUpPreviewCheckPoint: Type.Optional(
          Type.Boolean({
            description: 'The preview was scaled to full size for promotion (previewReplicaCount).',
          }),
        ),
        prePromotionAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
        postPromotionAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
      },
      { description: 'Blue-green state.' },
    ),
  ),
  conditions: Type.Optional(
    Type.Array(ConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      description: "The latest observations of the Rollout's state.",
    }),
  ),
  approvals: Type.Optional(
    Type.Array(ApprovalRecordSchema, {
      'x-kubernetes-list-type': 'atomic',
      description: 'Who approved or rejected which approval step of which revision, and how.',
    }),
  ),
});

export type RolloutAnalysisRunStatus = Static<typeof RolloutAnalysisRunStatusSchema>;
export type RolloutStatus = Static<typeof RolloutStatusSchema>;
export type Condition = Static<typeof ConditionSchema>;
export type PauseCondition = Static<typeof PauseConditionSchema>;
