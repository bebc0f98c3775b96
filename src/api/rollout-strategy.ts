/**
 * The Rollout's strategies (`spec.strategy.canary` and `spec.strategy.blueGreen`) and what their
 * steps hold, as Argo Rollouts names them; part of the Rollout API (rollout.ts).
 */
import Type, { type Static } from 'typebox';
import { DryRunSchema, FieldRefSchema, MeasurementRetentionSchema } from './analysis.ts';
import { PodTemplateHashValues } from './analysis.ts';
import { Described, IntOrString, NonNegInt, StringEnum, StringMap, Strict } from './schema.ts';
import { SetHeaderRouteSchema, SetMirrorRouteSchema, TrafficRoutingSchema } from './traffic.ts';
import { ApprovalStepSchema } from './approval.ts';

/** Labels and annotations a strategy puts on the pods of one role (canary, stable, active,
 *  preview) while they hold it. */
export const PodMetadataSchema = Strict({
  labels: Type.Optional(Described(StringMap, 'Labels added to the pods.')),
  annotations: Type.Optional(Described(StringMap, 'Annotations added to the pods.')),
});

const podMetadata = (role: string) =>
  Type.Optional(
    Described(
      PodMetadataSchema,
      `Labels and annotations on the ${role} pods while they are the ${role}; replaced when the role changes.`,
    ),
  );

export const SetCanaryScaleSchema = Strict(
  {
    weight: Type.Optional(
      Type.Integer({
        format: 'int32',
        description: 'Scale the canary to this percentage of spec.replicas.',
      }),
    ),
    replicas: Type.Optional(
      Type.Integer({ format: 'int32', description: 'Scale the canary to exactly this many pods.' }),
    ),
    matchTrafficWeight: Type.Optional(
      Type.Boolean({
        description:
          'true: the canary again follows the traffic weight (as without setCanaryScale).',
      }),
    ),
  },
  {
    description:
      'Canary replica count independent of traffic weight (traffic routing only): exactly one field.',
  },
);

export const PauseSchema = Strict(
  {
    duration: Type.Optional(
      IntOrString({
        description:
          'Seconds, or a duration string such as "30s", "5m", "1h". Omitted: pause until promoted.',
      }),
    ),
  },
  { description: 'Pause the rollout: for duration, or until promoted when no duration is set.' },
);

/** An argument a Rollout gives its analysis: a value, the stable or latest pod hash, or a field
 *  of the Rollout (Argo's AnalysisRunArgument; Secrets are the template's business). */
export const RolloutAnalysisArgSchema = Strict(
  {
    name: Type.String({ minLength: 1, description: 'The name of the template argument.' }),
    value: Type.Optional(Type.String({ description: 'The value, as text.' })),
    valueFrom: Type.Optional(
      Strict(
        {
          podTemplateHashValue: Type.Optional(
            StringEnum(PodTemplateHashValues, {
              description: 'The pod-template hash of the Stable or the Latest (new) ReplicaSet.',
            }),
          ),
          fieldRef: Type.Optional(
            Described(FieldRefSchema, 'A field of this Rollout, read when the run is created.'),
          ),
        },
        {
          minProperties: 1,
          maxProperties: 1,
          description: 'Where the value comes from, instead of value. Exactly one source.',
        },
      ),
    ),
  },
  { description: 'A value for an argument of the templates.' },
);

const runMetadata = (what: string) =>
  Strict(
    {
      labels: Type.Optional(Described(StringMap, `Labels added to the ${what}.`)),
      annotations: Type.Optional(Described(StringMap, `Annotations added to the ${what}.`)),
    },
    { description: `Labels and annotations added to the ${what}.` },
  );

const analysisFields = {
  templates: Type.Array(
    Strict(
      {
        templateName: Type.String({
          minLength: 1,
          description:
            'The name of an AnalysisTemplate in the namespace, or of a ClusterAnalysisTemplate.',
        }),
        clusterScope: Type.Optional(
          Type.Boolean({
            description: 'A ClusterAnalysisTemplate rather than an AnalysisTemplate.',
          }),
        ),
      },
      { description: 'A template whose metrics the run measures.' },
    ),
    { minItems: 1, description: 'Templates merged into one AnalysisRun.' },
  ),
  args: Type.Optional(
    Type.Array(RolloutAnalysisArgSchema, {
      description: "Values for the templates' arguments; overrides a template's own value.",
    }),
  ),
  dryRun: Type.Optional(
    Type.Array(DryRunSchema, {
      description: 'Metrics measured and reported whose failure does not fail the run.',
    }),
  ),
  measurementRetention: Type.Optional(
    Type.Array(MeasurementRetentionSchema, {
      description: 'How many measurements the run keeps per metric (default 10).',
    }),
  ),
  analysisRunMetadata: Type.Optional(runMetadata('AnalysisRun')),
};

/** A step's analysis: the next step waits for its run to succeed. */
export const RolloutAnalysisSchema = Strict(analysisFields);

/** Background analysis: runs beside the steps from `startingStep` on. */
export const BackgroundAnalysisSchema = Strict(
  {
    ...analysisFields,
    startingStep: Type.Optional(NonNegInt('Step index at which the run starts. Default 0.')),
  },
  {
    description:
      'An AnalysisRun beside the steps, from startingStep until the update completes: Failed or Error aborts, Inconclusive pauses.',
  },
);

export const CanaryStepSchema = Strict(
  {
    setWeight: Type.Optional(
      Type.Integer({
        format: 'int32',
        description:
          "The canary's traffic weight (0 to maxTrafficWeight, default 100) and, without setCanaryScale, its share of the pods.",
      }),
    ),
    pause: Type.Optional(PauseSchema),
    setCanaryScale: Type.Optional(SetCanaryScaleSchema),
    analysis: Type.Optional(
      Described(
        RolloutAnalysisSchema,
        'Run an analysis and wait for it: Successful continues, Failed or Error aborts, Inconclusive pauses.',
      ),
    ),
    setHeaderRoute: Type.Optional(SetHeaderRouteSchema),
    setMirrorRoute: Type.Optional(SetMirrorRouteSchema),
    approval: Type.Optional(ApprovalStepSchema),
  },
  { minProperties: 1, maxProperties: 1, description: 'One action per step.' },
);

export const CanaryStrategySchema = Strict(
  {
    steps: Type.Optional(
      Type.Array(CanaryStepSchema, {
        description: 'The steps of an update, in order. Omitted: straight to the new version.',
      }),
    ),
    maxSurge: Type.Optional(
      IntOrString({
        description:
          'Pods allowed above replicas during an update: a count or a percentage. Default 25%.',
      }),
    ),
    maxUnavailable: Type.Optional(
      IntOrString({
        description:
          'Pods that may be unavailable during an update: a count or a percentage. Default 25%.',
      }),
    ),
    canaryService: Type.Optional(
      Type.String({
        description:
          "A Service the controller points at the canary's pods (required with trafficRouting).",
      }),
    ),
    stableService: Type.Optional(
      Type.String({
        description:
          "A Service the controller points at the stable version's pods (required with trafficRouting).",
      }),
    ),
    trafficRouting: Type.Optional(TrafficRoutingSchema),
    scaleDownDelaySeconds: Type.Optional(
      NonNegInt(
        'Seconds the previous version keeps its pods after traffic has moved off it. Default 30. Traffic routing only.',
      ),
    ),
    scaleDownDelayRevisionLimit: Type.Optional(
      NonNegInt('Old ReplicaSets kept scaled up during their delay; the rest go at once.'),
    ),
    abortScaleDownDelaySeconds: Type.Optional(
      NonNegInt(
        'Seconds the canary keeps its pods after an abort. Traffic routing only. Default 30; 0 keeps the canary up until retry.',
      ),
    ),
    dynamicStableScale: Type.Optional(
      Type.Boolean({
        description:
          "Traffic routing only: scale the stable version down as the canary's weight grows, instead of keeping it at full size.",
      }),
    ),
    canaryMetadata: podMetadata('canary'),
    stableMetadata: podMetadata('stable'),
    analysis: Type.Optional(BackgroundAnalysisSchema),
  },
  {
    description:
      'Canary update: the new version comes up beside the stable one and takes over step by step.',
  },
);

/** Argo's anti-affinity for a blue-green update: the new pods avoid the nodes of the stable
 *  ones. Exactly one of the two. */
export const AntiAffinitySchema = Strict(
  {
    preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Strict(
        {
          weight: Type.Integer({
            minimum: 1,
            maximum: 100,
            format: 'int32',
            description: "The preference's weight among the pod's other preferences, 1-100.",
          }),
        },
        { description: 'The scheduler prefers other nodes but may use the same ones.' },
      ),
    ),
    requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
      Strict({}, { description: 'The new pods are never scheduled beside the old ones.' }),
    ),
  },
  {
    minProperties: 1,
    maxProperties: 1,
    description:
      "Keep the new version's pods off the nodes of the old version's: exactly one of the two.",
  },
);

const promotionAnalysis = (when: string) =>
  Type.Optional(Described(RolloutAnalysisSchema, `An analysis ${when}: Failed or Error aborts.`));

export const BlueGreenStrategySchema = Strict(
  {
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
    prePromotionAnalysis: promotionAnalysis(
      'once the preview is fully available, before the switch',
    ),
    postPromotionAnalysis: promotionAnalysis(
      'after the switch; the new version becomes stable only when it succeeds',
    ),
    antiAffinity: Type.Optional(AntiAffinitySchema),
    activeMetadata: podMetadata('active'),
    previewMetadata: podMetadata('preview'),
    abortScaleDownDelaySeconds: Type.Optional(
      NonNegInt('Default 30; 0 keeps the aborted version up until retried.'),
    ),
    maxUnavailable: Type.Optional(IntOrString({ description: 'Used by restartAt. Default 25%.' })),
    approval: Type.Optional(ApprovalStepSchema),
  },
  {
    description:
      'Blue-green update: the new version comes up behind the preview Service, then the active Service switches to it at once.',
  },
);

export type PodMetadata = Static<typeof PodMetadataSchema>;
export type CanaryStep = Static<typeof CanaryStepSchema>;
export type RolloutAnalysis = Static<typeof RolloutAnalysisSchema>;
export type BackgroundAnalysis = Static<typeof BackgroundAnalysisSchema>;
export type RolloutAnalysisArg = Static<typeof RolloutAnalysisArgSchema>;
export type CanaryStrategy = Static<typeof CanaryStrategySchema>;
export type BlueGreenStrategy = Static<typeof BlueGreenStrategySchema>;
export type AntiAffinity = Static<typeof AntiAffinitySchema>;
