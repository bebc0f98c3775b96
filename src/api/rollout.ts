/**
 * The Rollout API (`stepwise.dev/v1alpha1`): one schema source for the TypeScript types, the
 * runtime validation and the CRD. Field names and meanings follow Argo Rollouts'
 * `argoproj.io/v1alpha1` Rollout, so a manifest converts by changing `apiVersion`.
 */
import Type, { type Static } from 'typebox';
import type { V1ObjectMeta, V1PodTemplateSpec } from '@kubernetes/client-node';
import { DryRunSchema, FieldRefSchema, MeasurementRetentionSchema } from './analysis.ts';
import { PodTemplateHashValues } from './analysis.ts';
import { IntOrString, Opaque, StringEnum, StringMap, Strict, Time } from './schema.ts';
import { SetHeaderRouteSchema, SetMirrorRouteSchema, TrafficRoutingSchema } from './traffic.ts';
import { ApprovalRecordSchema, ApprovalStepSchema } from './approval.ts';

const NonNegInt = (description: string): ReturnType<typeof Type.Integer> =>
  Type.Integer({ minimum: 0, format: 'int32', description });

export const LabelSelectorSchema = Strict(
  {
    matchLabels: Type.Optional(StringMap),
    matchExpressions: Type.Optional(
      Type.Array(
        Strict({
          key: Type.String(),
          operator: StringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
          values: Type.Optional(Type.Array(Type.String())),
        }),
      ),
    ),
  },
  {
    description: 'Label selector for pods. Must match the template labels. Immutable.',
    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'selector is immutable' }],
  },
);

export const PodMetadataSchema = Strict({
  labels: Type.Optional(StringMap),
  annotations: Type.Optional(StringMap),
});

export const SetCanaryScaleSchema = Strict(
  {
    weight: Type.Optional(Type.Integer({ format: 'int32' })),
    replicas: Type.Optional(Type.Integer({ format: 'int32' })),
    matchTrafficWeight: Type.Optional(Type.Boolean()),
  },
  { description: 'Canary replica count independent of traffic weight: exactly one field.' },
);

export const PauseSchema = Strict({
  duration: Type.Optional(
    IntOrString({ description: 'Seconds, or a duration string such as "30s", "5m", "1h".' }),
  ),
});

/** An argument a Rollout gives its analysis: a value, the stable or latest pod hash, or a field
 *  of the Rollout (Argo's AnalysisRunArgument; Secrets are the template's business). */
export const RolloutAnalysisArgSchema = Strict({
  name: Type.String({ minLength: 1 }),
  value: Type.Optional(Type.String()),
  valueFrom: Type.Optional(
    Strict(
      {
        podTemplateHashValue: Type.Optional(StringEnum(PodTemplateHashValues)),
        fieldRef: Type.Optional(FieldRefSchema),
      },
      { minProperties: 1, maxProperties: 1, description: 'Exactly one source.' },
    ),
  ),
});

const analysisFields = {
  templates: Type.Array(
    Strict({
      templateName: Type.String({ minLength: 1 }),
      clusterScope: Type.Optional(
        Type.Boolean({ description: 'A ClusterAnalysisTemplate rather than an AnalysisTemplate.' }),
      ),
    }),
    { minItems: 1, description: 'Templates merged into one AnalysisRun.' },
  ),
  args: Type.Optional(Type.Array(RolloutAnalysisArgSchema)),
  dryRun: Type.Optional(Type.Array(DryRunSchema)),
  measurementRetention: Type.Optional(Type.Array(MeasurementRetentionSchema)),
  analysisRunMetadata: Type.Optional(
    Strict({ labels: Type.Optional(StringMap), annotations: Type.Optional(StringMap) }),
  ),
};

/** A step's analysis: the next step waits for its run to succeed. */
export const RolloutAnalysisSchema = Strict(analysisFields);

/** Background analysis: runs beside the steps from `startingStep` on. */
export const BackgroundAnalysisSchema = Strict({
  ...analysisFields,
  startingStep: Type.Optional(NonNegInt('Step index at which the run starts. Default 0.')),
});

export const CanaryStepSchema = Strict(
  {
    setWeight: Type.Optional(Type.Integer({ format: 'int32', description: 'Canary weight, %.' })),
    pause: Type.Optional(PauseSchema),
    setCanaryScale: Type.Optional(SetCanaryScaleSchema),
    analysis: Type.Optional(RolloutAnalysisSchema),
    setHeaderRoute: Type.Optional(SetHeaderRouteSchema),
    setMirrorRoute: Type.Optional(SetMirrorRouteSchema),
    approval: Type.Optional(ApprovalStepSchema),
  },
  { minProperties: 1, maxProperties: 1, description: 'One action per step.' },
);

export const CanaryStrategySchema = Strict({
  steps: Type.Optional(Type.Array(CanaryStepSchema)),
  maxSurge: Type.Optional(IntOrString({ description: 'Default 25%.' })),
  maxUnavailable: Type.Optional(IntOrString({ description: 'Default 25%.' })),
  canaryService: Type.Optional(Type.String()),
  stableService: Type.Optional(Type.String()),
  trafficRouting: Type.Optional(TrafficRoutingSchema),
  scaleDownDelaySeconds: Type.Optional(NonNegInt('Default 30. Traffic routing only.')),
  scaleDownDelayRevisionLimit: Type.Optional(NonNegInt('Old ReplicaSets kept scaled up.')),
  abortScaleDownDelaySeconds: Type.Optional(
    NonNegInt('Traffic routing only. Default 30; 0 keeps the canary up until retry.'),
  ),
  dynamicStableScale: Type.Optional(Type.Boolean()),
  canaryMetadata: Type.Optional(PodMetadataSchema),
  stableMetadata: Type.Optional(PodMetadataSchema),
  analysis: Type.Optional(BackgroundAnalysisSchema),
});

/** Argo's anti-affinity for a blue-green update: the new pods avoid the nodes of the stable
 *  ones. Exactly one of the two. */
export const AntiAffinitySchema = Strict(
  {
    preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Strict({ weight: Type.Integer({ minimum: 1, maximum: 100, format: 'int32' }) }),
    ),
    requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(Strict({})),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of the two.' },
);

export const BlueGreenStrategySchema = Strict({
  activeService: Type.String({
    minLength: 1,
    description: 'The Service that serves users; switched to the new version on promotion.',
  }),
  previewService: Type.Optional(
    Type.String({ description: 'The Service that selects the new version before promotion.' }),
  ),
  autoPromotionEnabled: Type.Optional(
    Type.Boolean({ description: 'Default true. false: pause before the switch until promoted.' }),
  ),
  autoPromotionSeconds: Type.Optional(
    NonNegInt('Pause this long once the preview is ready, then promote (auto-promotion only).'),
  ),
  previewReplicaCount: Type.Optional(
    NonNegInt('Pods of the new version before promotion. Default: replicas.'),
  ),
  scaleDownDelaySeconds: Type.Optional(
    NonNegInt('Default 30. The old version keeps its pods this long after the switch.'),
  ),
  scaleDownDelayRevisionLimit: Type.Optional(
    NonNegInt('Old ReplicaSets kept up during their delay; the rest go at once.'),
  ),
  prePromotionAnalysis: Type.Optional(RolloutAnalysisSchema),
  postPromotionAnalysis: Type.Optional(RolloutAnalysisSchema),
  antiAffinity: Type.Optional(AntiAffinitySchema),
  activeMetadata: Type.Optional(PodMetadataSchema),
  previewMetadata: Type.Optional(PodMetadataSchema),
  abortScaleDownDelaySeconds: Type.Optional(
    NonNegInt('Default 30; 0 keeps the aborted version up until retried.'),
  ),
  maxUnavailable: Type.Optional(IntOrString({ description: 'Used by restartAt. Default 25%.' })),
  approval: Type.Optional(ApprovalStepSchema),
});

/** The workload kinds a Rollout can take its pod template from (Argo's three). */
export const WORKLOAD_KINDS = ['Deployment', 'ReplicaSet', 'PodTemplate'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** What the controller does with the referenced Deployment's own pods once the Rollout runs. */
export const SCALE_DOWN_MODES = ['never', 'onsuccess', 'progressively'] as const;
export type ScaleDownMode = (typeof SCALE_DOWN_MODES)[number];

/** `spec.workloadRef` (Argo's ObjectRef plus scaleDown): the template is read from this object
 *  on every pass and never written into the Rollout. */
export const WorkloadRefSchema = Strict({
  apiVersion: Type.String({ description: 'apps/v1 (Deployment, ReplicaSet) or v1 (PodTemplate).' }),
  kind: StringEnum(WORKLOAD_KINDS),
  name: Type.String({ minLength: 1 }),
  scaleDown: Type.Optional(
    StringEnum(SCALE_DOWN_MODES, {
      description:
        'Deployments only. never (default); onsuccess: to 0 once the Rollout is Healthy; ' +
        "progressively: down as the Rollout's pods become ready, 0 once Healthy.",
    }),
  ),
});

export const RolloutSpecSchema = Strict({
  replicas: Type.Optional(NonNegInt('Desired pods. Default 1.')),
  selector: Type.Optional(LabelSelectorSchema),
  template: Type.Optional(
    Opaque<V1PodTemplateSpec>({
      description: 'Pod template (as in a Deployment). Exactly one of template and workloadRef.',
    }),
  ),
  workloadRef: Type.Optional(WorkloadRefSchema),
  minReadySeconds: Type.Optional(NonNegInt('Seconds a pod must be ready to count available.')),
  revisionHistoryLimit: Type.Optional(NonNegInt('Old ReplicaSets kept. Default 10.')),
  paused: Type.Optional(Type.Boolean()),
  progressDeadlineSeconds: Type.Optional(NonNegInt('Default 600.')),
  progressDeadlineAbort: Type.Optional(Type.Boolean()),
  restartAt: Type.Optional(Time),
  analysis: Type.Optional(
    Strict({
      successfulRunHistoryLimit: Type.Optional(
        NonNegInt('Successful AnalysisRuns kept. Default 5.'),
      ),
      unsuccessfulRunHistoryLimit: Type.Optional(
        NonNegInt('Failed, errored or inconclusive AnalysisRuns kept. Default 5.'),
      ),
    }),
  ),
  strategy: Strict(
    {
      canary: Type.Optional(CanaryStrategySchema),
      blueGreen: Type.Optional(BlueGreenStrategySchema),
    },
    { minProperties: 1, maxProperties: 1, description: 'Exactly one of canary and blueGreen.' },
  ),
});

export const ConditionSchema = Strict({
  type: Type.String(),
  status: StringEnum(['True', 'False', 'Unknown']),
  reason: Type.String(),
  message: Type.String(),
  lastUpdateTime: Time,
  lastTransitionTime: Time,
});

export const PauseConditionSchema = Strict({ reason: Type.String(), startTime: Time });

const WeightDestination = Strict({
  weight: Type.Integer({ format: 'int32' }),
  serviceName: Type.Optional(Type.String()),
  podTemplateHash: Type.Optional(Type.String()),
});

/** The AnalysisRun a rollout is waiting on, as Argo reports it. */
export const RolloutAnalysisRunStatusSchema = Strict({
  name: Type.String(),
  status: Type.String({ description: 'The run phase.' }),
  message: Type.Optional(Type.String()),
});

export const RolloutStatusSchema = Strict({
  phase: Type.Optional(StringEnum(['Healthy', 'Progressing', 'Paused', 'Degraded'])),
  message: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(Type.String()),
  workloadObservedGeneration: Type.Optional(
    Type.String({ description: "The referenced workload's metadata.generation last read." }),
  ),
  currentPodHash: Type.Optional(Type.String()),
  stableRS: Type.Optional(Type.String()),
  currentStepIndex: Type.Optional(Type.Integer({ format: 'int32' })),
  currentStepHash: Type.Optional(Type.String()),
  replicas: Type.Optional(Type.Integer({ format: 'int32' })),
  updatedReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
  readyReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
  availableReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
  HPAReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
  selector: Type.Optional(Type.String()),
  collisionCount: Type.Optional(Type.Integer({ format: 'int32' })),
  pauseConditions: Type.Optional(
    Type.Array(PauseConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['reason'],
    }),
  ),
  controllerPause: Type.Optional(Type.Boolean()),
  abort: Type.Optional(Type.Boolean()),
  abortedAt: Type.Optional(Time),
  promoteFull: Type.Optional(Type.Boolean()),
  restartedAt: Type.Optional(Time),
  canary: Type.Optional(
    Strict({
      weights: Type.Optional(Strict({ canary: WeightDestination, stable: WeightDestination })),
      currentStepAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
      currentBackgroundAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
    }),
  ),
  blueGreen: Type.Optional(
    Strict({
      activeSelector: Type.Optional(
        Type.String({ description: 'The hash the active Service selects, read back from it.' }),
      ),
      previewSelector: Type.Optional(
        Type.String({ description: 'The hash the preview Service selects, read back from it.' }),
      ),
      scaleUpPreviewCheckPoint: Type.Optional(Type.Boolean()),
      prePromotionAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
      postPromotionAnalysisRunStatus: Type.Optional(RolloutAnalysisRunStatusSchema),
    }),
  ),
  conditions: Type.Optional(
    Type.Array(ConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
  approvals: Type.Optional(
    Type.Array(ApprovalRecordSchema, {
      'x-kubernetes-list-type': 'atomic',
      description: 'Who approved or rejected which approval step of which revision, and how.',
    }),
  ),
});

export type LabelSelector = Static<typeof LabelSelectorSchema>;
export type PodMetadata = Static<typeof PodMetadataSchema>;
export type CanaryStep = Static<typeof CanaryStepSchema>;
export type RolloutAnalysis = Static<typeof RolloutAnalysisSchema>;
export type BackgroundAnalysis = Static<typeof BackgroundAnalysisSchema>;
export type RolloutAnalysisArg = Static<typeof RolloutAnalysisArgSchema>;
export type RolloutAnalysisRunStatus = Static<typeof RolloutAnalysisRunStatusSchema>;
export type CanaryStrategy = Static<typeof CanaryStrategySchema>;
export type BlueGreenStrategy = Static<typeof BlueGreenStrategySchema>;
export type AntiAffinity = Static<typeof AntiAffinitySchema>;
export type WorkloadRef = Static<typeof WorkloadRefSchema>;
export type RolloutSpec = Static<typeof RolloutSpecSchema>;
export type RolloutStatus = Static<typeof RolloutStatusSchema>;
export type Condition = Static<typeof ConditionSchema>;
export type PauseCondition = Static<typeof PauseConditionSchema>;

export interface Rollout {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: RolloutSpec;
  status?: RolloutStatus;
}
