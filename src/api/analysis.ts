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
import { Described, IntOrString, Opaque, StringEnum, StringMap, Strict, Time } from './schema.ts';

const Count = (description: string): ReturnType<typeof Type.Integer> =>
  Type.Integer({ minimum: 0, format: 'int32', description });

/** A list whose items server-side apply merges by `key` (Argo's patchMergeKey). */
const MapList = <T extends Parameters<typeof Type.Array>[0]>(
  items: T,
  key: string,
  description: string,
) =>
  Type.Array(items, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key],
    description,
  });

export const SecretKeyRefSchema = Strict(
  {
    name: Type.String({ minLength: 1, description: 'Secret in the namespace of the run.' }),
    key: Type.String({ minLength: 1, description: 'Key in the Secret.' }),
  },
  { description: 'A value kept in a Secret, read when a measurement is taken.' },
);

export const FieldRefSchema = Strict(
  {
    fieldPath: Type.String({
      description: "A field of the Rollout, e.g. metadata.labels['env'] or spec.replicas.",
    }),
  },
  { description: 'A field of the Rollout that creates the run.' },
);

export const PodTemplateHashValues = ['Stable', 'Latest'] as const;

export const ArgumentSchema = Strict({
  name: Type.String({ minLength: 1, description: 'Referenced in metrics as {{args.<name>}}.' }),
  value: Type.Optional(
    Type.String({ description: 'The value; unset: the Rollout (or run) must supply it.' }),
  ),
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

export const DryRunSchema = Strict(
  {
    metricName: Type.String({ description: 'Regular expression over metric names (.* = all).' }),
  },
  { description: 'Metrics whose failure does not fail the run; reported in dryRunSummary.' },
);

export const MeasurementRetentionSchema = Strict(
  {
    metricName: Type.String({ description: 'Regular expression over metric names.' }),
    limit: Type.Integer({ format: 'int32', description: 'Measurements kept; 0 keeps 10.' }),
  },
  { description: 'How many measurements the run keeps for the metrics matched.' },
);

export const WebMetricHeaderSchema = Strict(
  {
    key: Type.String({ minLength: 1, description: "The header's name." }),
    value: Type.Optional(
      Type.String({ description: "The header's value; {{args.<name>}} substituted." }),
    ),
    valueFrom: Type.Optional(
      Strict(
        { secretKeyRef: SecretKeyRefSchema },
        { description: "The header's value from a Secret, instead of value." },
      ),
    ),
  },
  { description: 'An HTTP header: value, or valueFrom.secretKeyRef (not both).' },
);

export const AuthenticationSchema = Strict(
  {
    basicAuth: Type.Optional(
      Strict(
        {
          username: Type.Optional(
            Type.String({ description: 'The user name, as text or {{args.<name>}}.' }),
          ),
          password: Type.Optional(
            Type.String({ description: 'Only as {{args.<name>}} of a secretKeyRef arg.' }),
          ),
          usernameSecretKeyRef: Type.Optional(SecretKeyRefSchema),
          passwordSecretKeyRef: Type.Optional(SecretKeyRefSchema),
        },
        { description: 'HTTP basic authentication.' },
      ),
    ),
    bearer: Type.Optional(
      Strict(
        { tokenSecretKeyRef: SecretKeyRefSchema },
        { description: 'An Authorization: Bearer token, from a Secret.' },
      ),
    ),
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
  headers: Type.Optional(
    Type.Array(WebMetricHeaderSchema, { description: 'HTTP headers sent with the query.' }),
  ),
  rangeQuery: Type.Optional(
    Strict(
      {
        start: Type.Optional(Type.String({ description: 'e.g. now() - duration("5m")' })),
        end: Type.Optional(Type.String({ description: 'e.g. now()' })),
        step: Type.Optional(Type.String({ description: 'Duration, e.g. "30s".' })),
      },
      { description: 'Run a range query over this window instead of an instant query.' },
    ),
  ),
});

export const WebMetricSchema = Strict({
  method: Type.Optional(StringEnum(['GET', 'POST', 'PUT'], { description: 'Default GET.' })),
  url: Type.String({ description: 'The URL to call; {{args.<name>}} substituted.' }),
  headers: Type.Optional(
    Type.Array(WebMetricHeaderSchema, { description: 'HTTP headers sent with the request.' }),
  ),
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
    Strict(
      {
        labels: Type.Optional(Described(StringMap, 'Labels added to the Job.')),
        annotations: Type.Optional(Described(StringMap, 'Annotations added to the Job.')),
      },
      { description: 'Labels and annotations added to the Job.' },
    ),
  ),
  spec: Opaque<Record<string, unknown>>({ description: 'A batch/v1 JobSpec.' }),
});

export const MetricProviderSchema = Strict(
  {
    prometheus: Type.Optional(
      Described(PrometheusMetricSchema, 'Measure with a Prometheus query.'),
    ),
    web: Type.Optional(
      Described(WebMetricSchema, 'Measure with an HTTP request: a value from its JSON response.'),
    ),
    job: Type.Optional(
      Described(
        JobMetricSchema,
        'Measure with a Kubernetes Job: Successful if it completes, Failed if it fails.',
      ),
    ),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one provider.' },
);

const Limit = (description: string) => Type.Optional(IntOrString({ description }));

export const MetricSchema = Strict({
  name: Type.String({ minLength: 1, description: "The metric's name, unique in the run." }),
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
  description: 'What to measure, how often, and what counts as success or failure.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
});

const specFields = {
  metrics: Metrics,
  args: Type.Optional(
    MapList(ArgumentSchema, 'name', 'Arguments the metrics use as {{args.<name>}}.'),
  ),
  dryRun: Type.Optional(
    MapList(DryRunSchema, 'metricName', 'Metrics measured whose failure does not fail the run.'),
  ),
  measurementRetention: Type.Optional(
    MapList(
      MeasurementRetentionSchema,
      'metricName',
      'How many measurements the run keeps per metric (default 10).',
    ),
  ),
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

export const MeasurementSchema = Strict(
  {
    phase: Described(Phase, 'Successful, Failed, Inconclusive, Error, or Running while under way.'),
    message: Type.Optional(Type.String({ description: 'Why, when it is Error or Failed.' })),
    startedAt: Type.Optional(Described(Time, 'When the measurement began.')),
    finishedAt: Type.Optional(Described(Time, 'When the measurement ended.')),
    value: Type.Optional(Type.String({ description: 'The measured value, as text.' })),
    metadata: Type.Optional(
      Described(StringMap, 'Provider details, e.g. the Job a job metric ran.'),
    ),
    resumeAt: Type.Optional(Described(Time, 'When a measurement still running is next looked at.')),
  },
  { description: 'One measurement of a metric.' },
);

/** Tallies by phase: of a metric's measurements, or of a run's metrics. */
const counters = (what: 'measurements' | 'metrics') => ({
  count: Type.Optional(
    Count(what === 'metrics' ? 'Metrics.' : 'Measurements: Successful + Failed + Inconclusive.'),
  ),
  successful: Type.Optional(Count(`Successful ${what}.`)),
  failed: Type.Optional(Count(`Failed ${what}.`)),
  inconclusive: Type.Optional(Count(`Inconclusive ${what}.`)),
  error: Type.Optional(Count(`${what === 'metrics' ? 'Metrics' : 'Measurements'} in Error.`)),
});

export const RunSummarySchema = Strict(counters('metrics'));

export const MetricResultSchema = Strict(
  {
    name: Type.String({ description: "The metric's name." }),
    phase: Described(Phase, "The metric's verdict so far."),
    measurements: Type.Optional(Type.Array(MeasurementSchema, { description: 'The latest ones.' })),
    message: Type.Optional(Type.String({ description: 'Why the metric is in its phase.' })),
    ...counters('measurements'),
    consecutiveError: Type.Optional(Count('Errors in a row; reset by any other phase.')),
    consecutiveSuccess: Type.Optional(Count('Successes in a row; reset by any other phase.')),
    dryRun: Type.Optional(
      Type.Boolean({ description: 'The metric is a dry run: it cannot fail the run.' }),
    ),
    metadata: Type.Optional(Described(StringMap, 'Provider details of the latest measurement.')),
  },
  { description: "One metric's measurements and verdict." },
);

export const AnalysisRunStatusSchema = Strict({
  phase: Type.Optional(
    Described(Phase, 'Pending, Running, Successful, Failed, Error or Inconclusive.'),
  ),
  message: Type.Optional(Type.String({ description: 'Why the run is in its phase.' })),
  startedAt: Type.Optional(Described(Time, 'When the run started.')),
  completedAt: Type.Optional(Described(Time, 'When the run reached its verdict.')),
  metricResults: Type.Optional(
    MapList(MetricResultSchema, 'name', "Each metric's measurements and verdict."),
  ),
  runSummary: Type.Optional(
    Described(RunSummarySchema, 'Metrics by phase, dry-run metrics excluded.'),
  ),
  dryRunSummary: Type.Optional(Described(RunSummarySchema, 'Dry-run metrics by phase.')),
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
