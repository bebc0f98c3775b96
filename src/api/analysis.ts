/**
 * The analysis API (`stepwise.dev/v1alpha1`): AnalysisTemplate, ClusterAnalysisTemplate and
 * AnalysisRun, from one schema source for the types, the runtime validation and the CRDs. Field
 * names and meanings follow Argo Rollouts' `argoproj.io/v1alpha1` analysis types
 * (pkg/apis/rollouts/v1alpha1/analysis_types.go). Providers: prometheus, web and job only.
 *
 * Secrets never sit in a spec. Argo's way is kept (an arg with `valueFrom.secretKeyRef`,
 * referenced as `{{args.name}}` in a header or `basicAuth`), and a provider can also point at a
 * Secret directly: `headers[].valueFrom.secretKeyRef`, `basicAuth.passwordSecretKeyRef`,
 * `bearer.tokenSecretKeyRef` (additions; Argo has no `bearer`).
 */
import Type, { type Static } from 'typebox';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { IntOrString, Opaque, StringEnum, StringMap, Strict, Time } from './schema.ts';

const Count = (description: string): ReturnType<typeof Type.Integer> =>
  Type.Integer({ minimum: 0, format: 'int32', description });

/** A list whose items server-side apply merges by `key` (Argo's patchMergeKey). */
const MapList = <T extends Parameters<typeof Type.Array>[0]>(items: T, key: string) =>
  Type.Array(items, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [key] });

export const SecretKeyRefSchema = Strict(
  {
    name: Type.String({ minLength: 1, description: 'Secret in the namespace of the run.' }),
    key: Type.String({ minLength: 1, description: 'Key in the Secret.' }),
  },
  { description: 'A value kept in a Secret, read when a measurement is taken.' },
);

export const FieldRefSchema = Strict({
  fieldPath: Type.String({
    description: "A field of the Rollout, e.g. metadata.labels['env'] or spec.replicas.",
  }),
});

export const PodTemplateHashValues = ['Stable', 'Latest'] as const;

export const ArgumentSchema = Strict({
  name: Type.String({ minLength: 1 }),
  value: Type.Optional(Type.String({ description: 'Referenced as {{args.<name>}}.' })),
  valueFrom: Type.Optional(
    Strict(
      {
        secretKeyRef: Type.Optional(SecretKeyRefSchema),
        fieldRef: Type.Optional(FieldRefSchema),
        podTemplateHashValue: Type.Optional(
          StringEnum(PodTemplateHashValues, {
            description: 'Supplied by a Rollout: the stable or latest ReplicaSet pod hash.',
          }),
        ),
      },
      { description: 'Where the value comes from, instead of value.' },
    ),
  ),
});

export const DryRunSchema = Strict({
  metricName: Type.String({ description: 'Regular expression over metric names (.* = all).' }),
});

export const MeasurementRetentionSchema = Strict({
  metricName: Type.String({ description: 'Regular expression over metric names.' }),
  limit: Type.Integer({ format: 'int32', description: 'Measurements kept; 0 keeps 10.' }),
});

export const WebMetricHeaderSchema = Strict(
  {
    key: Type.String({ minLength: 1 }),
    value: Type.Optional(Type.String()),
    valueFrom: Type.Optional(Strict({ secretKeyRef: SecretKeyRefSchema })),
  },
  { description: 'An HTTP header: value, or valueFrom.secretKeyRef (not both).' },
);

export const AuthenticationSchema = Strict(
  {
    basicAuth: Type.Optional(
      Strict({
        username: Type.Optional(Type.String()),
        password: Type.Optional(
          Type.String({ description: 'Only as {{args.<name>}} of a secretKeyRef arg.' }),
        ),
        usernameSecretKeyRef: Type.Optional(SecretKeyRefSchema),
        passwordSecretKeyRef: Type.Optional(SecretKeyRefSchema),
      }),
    ),
    bearer: Type.Optional(Strict({ tokenSecretKeyRef: SecretKeyRefSchema })),
  },
  { description: 'Credentials, from Secrets only.' },
);

export const PrometheusMetricSchema = Strict({
  address: Type.Optional(Type.String({ description: 'e.g. http://prometheus:9090' })),
  query: Type.Optional(Type.String({ description: 'PromQL; {{args.<name>}} substituted.' })),
  authentication: Type.Optional(AuthenticationSchema),
  timeout: Type.Optional(
    Type.Integer({ minimum: 0, format: 'int64', description: 'Seconds. Default 30.' }),
  ),
  insecure: Type.Optional(Type.Boolean({ description: 'Skip TLS verification.' })),
  headers: Type.Optional(Type.Array(WebMetricHeaderSchema)),
  rangeQuery: Type.Optional(
    Strict({
      start: Type.Optional(Type.String({ description: 'e.g. now() - duration("5m")' })),
      end: Type.Optional(Type.String({ description: 'e.g. now()' })),
      step: Type.Optional(Type.String({ description: 'Duration, e.g. "30s".' })),
    }),
  ),
});

export const WebMetricSchema = Strict({
  method: Type.Optional(StringEnum(['GET', 'POST', 'PUT'], { description: 'Default GET.' })),
  url: Type.String(),
  headers: Type.Optional(Type.Array(WebMetricHeaderSchema)),
  body: Type.Optional(Type.String({ description: 'POST/PUT body as text.' })),
  jsonBody: Type.Optional(Opaque<Record<string, unknown>>({ description: 'POST/PUT JSON body.' })),
  timeoutSeconds: Type.Optional(
    Type.Integer({ minimum: 0, format: 'int64', description: 'Default 10.' }),
  ),
  jsonPath: Type.Optional(Type.String({ description: 'Into the response. Default {$}.' })),
  insecure: Type.Optional(Type.Boolean({ description: 'Skip TLS verification.' })),
});

export const JobMetricSchema = Strict({
  metadata: Type.Optional(
    Strict({ labels: Type.Optional(StringMap), annotations: Type.Optional(StringMap) }),
  ),
  spec: Opaque<Record<string, unknown>>({ description: 'A batch/v1 JobSpec.' }),
});

export const MetricProviderSchema = Strict(
  {
    prometheus: Type.Optional(PrometheusMetricSchema),
    web: Type.Optional(WebMetricSchema),
    job: Type.Optional(JobMetricSchema),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one provider.' },
);

const Limit = (description: string) => Type.Optional(IntOrString({ description }));

export const MetricSchema = Strict({
  name: Type.String({ minLength: 1 }),
  interval: Type.Optional(
    Type.String({ description: 'Between measurements, e.g. "30s". Omitted: one measurement.' }),
  ),
  initialDelay: Type.Optional(Type.String({ description: 'Before the first measurement.' })),
  count: Limit('Measurements to take. Default 1, or unbounded when only interval is set.'),
  successCondition: Type.Optional(Type.String({ description: 'e.g. result[0] >= 0.95' })),
  failureCondition: Type.Optional(Type.String({ description: 'e.g. result[0] < 0.9' })),
  failureLimit: Limit('Failed measurements allowed. Default 0; -1 disables.'),
  inconclusiveLimit: Limit('Inconclusive measurements allowed. Default 0.'),
  consecutiveErrorLimit: Limit('Errors in a row allowed. Default 4.'),
  consecutiveSuccessLimit: Limit('Successes in a row that complete the metric. Default 0 (off).'),
  provider: MetricProviderSchema,
});

const Metrics = Type.Array(MetricSchema, {
  minItems: 1,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
});

const specFields = {
  metrics: Metrics,
  args: Type.Optional(MapList(ArgumentSchema, 'name')),
  dryRun: Type.Optional(MapList(DryRunSchema, 'metricName')),
  measurementRetention: Type.Optional(MapList(MeasurementRetentionSchema, 'metricName')),
};

export const AnalysisTemplateSpecSchema = Strict(specFields);

export const AnalysisRunSpecSchema = Strict({
  ...specFields,
  terminate: Type.Optional(Type.Boolean({ description: 'Stop the run (status: Terminated).' })),
});

export const AnalysisPhases = [
  'Pending',
  'Running',
  'Successful',
  'Failed',
  'Error',
  'Inconclusive',
] as const;
const Phase = StringEnum(AnalysisPhases);

export const MeasurementSchema = Strict({
  phase: Phase,
  message: Type.Optional(Type.String()),
  startedAt: Type.Optional(Time),
  finishedAt: Type.Optional(Time),
  value: Type.Optional(Type.String({ description: 'The measured value, as text.' })),
  metadata: Type.Optional(StringMap),
  resumeAt: Type.Optional(Time),
});

const counters = {
  count: Type.Optional(Count('Successful + Failed + Inconclusive.')),
  successful: Type.Optional(Count('Successful measurements.')),
  failed: Type.Optional(Count('Failed measurements.')),
  inconclusive: Type.Optional(Count('Inconclusive measurements.')),
  error: Type.Optional(Count('Measurements in Error.')),
};

export const RunSummarySchema = Strict(counters);

export const MetricResultSchema = Strict({
  name: Type.String(),
  phase: Phase,
  measurements: Type.Optional(Type.Array(MeasurementSchema, { description: 'The latest ones.' })),
  message: Type.Optional(Type.String()),
  ...counters,
  consecutiveError: Type.Optional(Count('Errors in a row; reset by any other phase.')),
  consecutiveSuccess: Type.Optional(Count('Successes in a row; reset by any other phase.')),
  dryRun: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(StringMap),
});

export const AnalysisRunStatusSchema = Strict({
  phase: Type.Optional(Phase),
  message: Type.Optional(Type.String()),
  startedAt: Type.Optional(Time),
  completedAt: Type.Optional(Time),
  metricResults: Type.Optional(MapList(MetricResultSchema, 'name')),
  runSummary: Type.Optional(RunSummarySchema),
  dryRunSummary: Type.Optional(RunSummarySchema),
});

export type SecretKeyRef = Static<typeof SecretKeyRefSchema>;
export type Argument = Static<typeof ArgumentSchema>;
export type DryRun = Static<typeof DryRunSchema>;
export type MeasurementRetention = Static<typeof MeasurementRetentionSchema>;
export type WebMetricHeader = Static<typeof WebMetricHeaderSchema>;
export type Authentication = Static<typeof AuthenticationSchema>;
export type PrometheusMetric = Static<typeof PrometheusMetricSchema>;
export type WebMetric = Static<typeof WebMetricSchema>;
export type JobMetric = Static<typeof JobMetricSchema>;
export type MetricProvider = Static<typeof MetricProviderSchema>;
export type Metric = Static<typeof MetricSchema>;
export type AnalysisTemplateSpec = Static<typeof AnalysisTemplateSpecSchema>;
export type AnalysisRunSpec = Static<typeof AnalysisRunSpecSchema>;
export type AnalysisPhase = (typeof AnalysisPhases)[number];
export type Measurement = Static<typeof MeasurementSchema>;
export type RunSummary = Static<typeof RunSummarySchema>;
export type MetricResult = Static<typeof MetricResultSchema>;
export type AnalysisRunStatus = Static<typeof AnalysisRunStatusSchema>;

export interface AnalysisTemplate {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: AnalysisTemplateSpec;
}
/** The same spec, cluster-scoped. */
export type ClusterAnalysisTemplate = AnalysisTemplate;

export interface AnalysisRun {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: AnalysisRunSpec;
  status?: AnalysisRunStatus;
}
