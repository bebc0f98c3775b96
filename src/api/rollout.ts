/**
 * The Rollout API (`stepwise.dev/v1alpha1`): one schema source for the TypeScript types, the
 * runtime validation and the CRD. Field names and meanings follow Argo Rollouts'
 * `argoproj.io/v1alpha1` Rollout, so a manifest converts by changing `apiVersion`. Every field a
 * user writes carries the description `kubectl explain` shows (test/unit/api/crd-explain.test.ts).
 */
import Type, { type Static } from 'typebox';
import type { V1ObjectMeta, V1PodTemplateSpec } from '@kubernetes/client-node';
import { Described, NonNegInt, Opaque, StringEnum, StringMap, Strict, Time } from './schema.ts';
import { BlueGreenStrategySchema, CanaryStrategySchema } from './rollout-strategy.ts';
import type { RolloutStatus } from './rollout-status.ts';

export * from './rollout-strategy.ts';
export * from './rollout-status.ts';

export const LabelSelectorSchema = Strict(
  {
    matchLabels: Type.Optional(
      Described(StringMap, 'Labels a pod must all carry, each with exactly this value.'),
    ),
    matchExpressions: Type.Optional(
      Type.Array(
        Strict(
          {
            key: Type.String({ description: 'The label key the requirement applies to.' }),
            operator: StringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist'], {
              description:
                "How the label's value relates to values: In, NotIn, Exists, DoesNotExist.",
            }),
            values: Type.Optional(
              Type.Array(Type.String(), {
                description:
                  'Values for In and NotIn (non-empty); empty for Exists and DoesNotExist.',
              }),
            ),
          },
          { description: 'A label requirement.' },
        ),
        { description: 'Label requirements a pod must all meet.' },
      ),
    ),
  },
  {
    description: 'Label selector for pods. Must match the template labels. Immutable.',
    'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'selector is immutable' }],
  },
);

/** The workload kinds a Rollout can take its pod template from (Argo's three). */
export const WORKLOAD_KINDS = ['Deployment', 'ReplicaSet', 'PodTemplate'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** What the controller does with the referenced Deployment's own pods once the Rollout runs. */
export const SCALE_DOWN_MODES = ['never', 'onsuccess', 'progressively'] as const;
export type ScaleDownMode = (typeof SCALE_DOWN_MODES)[number];

/** `spec.workloadRef` (Argo's ObjectRef plus scaleDown): the template is read from this object
 *  on every pass and never written into the Rollout. */
export const WorkloadRefSchema = Strict(
  {
    apiVersion: Type.String({
      description: 'apps/v1 (Deployment, ReplicaSet) or v1 (PodTemplate).',
    }),
    kind: StringEnum(WORKLOAD_KINDS, {
      description: 'Deployment, ReplicaSet or PodTemplate.',
    }),
    name: Type.String({
      minLength: 1,
      description: "The object's name, in the Rollout's namespace.",
    }),
    scaleDown: Type.Optional(
      StringEnum(SCALE_DOWN_MODES, {
        description:
          'Deployments only. never (default); onsuccess: to 0 once the Rollout is Healthy; ' +
          "progressively: down as the Rollout's pods become ready, 0 once Healthy.",
      }),
    ),
  },
  {
    description:
      'An existing workload whose pod template (and selector, when spec.selector is unset) the Rollout uses instead of spec.template.',
  },
);

export const RolloutSpecSchema = Strict({
  replicas: Type.Optional(NonNegInt('Desired pods. Default 1.')),
  selector: Type.Optional(LabelSelectorSchema),
  template: Type.Optional(
    Opaque<V1PodTemplateSpec>({
      description:
        'Pod template (as in a Deployment). Exactly one of template and workloadRef. Checked as a PodTemplateSpec: an unknown field makes the Rollout InvalidSpec.',
    }),
  ),
  workloadRef: Type.Optional(WorkloadRefSchema),
  minReadySeconds: Type.Optional(NonNegInt('Seconds a pod must be ready to count available.')),
  revisionHistoryLimit: Type.Optional(NonNegInt('Old ReplicaSets kept. Default 10.')),
  paused: Type.Optional(
    Type.Boolean({
      description: 'true: the rollout does not advance through its steps until it is false again.',
    }),
  ),
  progressDeadlineSeconds: Type.Optional(
    NonNegInt(
      'Seconds an update may go without progress before it is reported failed (ProgressDeadlineExceeded). Default 600.',
    ),
  ),
  progressDeadlineAbort: Type.Optional(
    Type.Boolean({
      description:
        'true: abort the update when progressDeadlineSeconds is exceeded. Default false.',
    }),
  ),
  restartAt: Type.Optional(
    Described(
      Time,
      'Restart every pod created before this time (RFC 3339), by eviction, at most maxUnavailable at a time.',
    ),
  ),
  analysis: Type.Optional(
    Strict(
      {
        successfulRunHistoryLimit: Type.Optional(
          NonNegInt('Successful AnalysisRuns kept. Default 5.'),
        ),
        unsuccessfulRunHistoryLimit: Type.Optional(
          NonNegInt('Failed, errored or inconclusive AnalysisRuns kept. Default 5.'),
        ),
      },
      { description: 'How many of its finished AnalysisRuns the Rollout keeps.' },
    ),
  ),
  strategy: Strict(
    {
      canary: Type.Optional(CanaryStrategySchema),
      blueGreen: Type.Optional(BlueGreenStrategySchema),
    },
    { minProperties: 1, maxProperties: 1, description: 'Exactly one of canary and blueGreen.' },
  ),
});

export type LabelSelector = Static<typeof LabelSelectorSchema>;
export type WorkloadRef = Static<typeof WorkloadRefSchema>;
export type RolloutSpec = Static<typeof RolloutSpecSchema>;

export interface Rollout {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: RolloutSpec;
  status?: RolloutStatus;
}
