/**
 * What an AnalysisRun's metric series say, as Argo Rollouts' collector says it
 * (controller/metrics/analysis.go): `analysis_run_info` (its phase), and per metric
 * `analysis_run_metric_type` (the provider, in Argo's words) and `analysis_run_metric_phase`.
 * Argo writes six metric_phase series per metric, five of them 0; we write the one that is 1
 * (as rollout_info does), so `== 1`, `sum` and `count` queries read the same. Pure.
 */
import type { AnalysisRun, Metric, MetricProvider } from '../api/index.ts';
import { dryRunMetrics } from '../analysis/index.ts';

/** Argo's provider type names (metricproviders.Type); ours are a subset. */
const PROVIDER_TYPES: Readonly<Record<keyof MetricProvider, string>> = {
  prometheus: 'Prometheus',
  web: 'Web',
  job: 'Job',
};

export function providerType(metric: Metric): string {
  const key = (Object.keys(PROVIDER_TYPES) as (keyof MetricProvider)[]).find(
    (k) => metric.provider[k] !== undefined,
  );
  return key === undefined ? 'Unknown Provider' : PROVIDER_TYPES[key];
}

export interface RunMetricSeries {
  readonly metric: string;
  /** Argo's provider type: Prometheus, Web, Job. */
  readonly type: string;
  /** "true" when a `dryRun` rule names the metric, as Argo prints a bool. */
  readonly dry_run: 'true' | 'false';
  /** The metric result's phase; Pending before its first measurement (Argo counts "" so). */
  readonly phase: string;
}

export interface AnalysisRunSeries {
  readonly namespace: string;
  readonly name: string;
  /** status.phase; Pending before the controller first wrote it. */
  readonly phase: string;
  readonly metrics: readonly RunMetricSeries[];
}

export function analysisRunSeries(run: AnalysisRun): AnalysisRunSeries {
  const dryRun = dryRunMetrics(run.spec);
  const results = new Map((run.status?.metricResults ?? []).map((r) => [r.name, r]));
  return {
    namespace: run.metadata.namespace ?? '',
    name: run.metadata.name ?? '',
    phase: run.status?.phase ?? 'Pending',
    metrics: run.spec.metrics.map((m) => ({
      metric: m.name,
      type: providerType(m),
      dry_run: dryRun.has(m.name) ? 'true' : 'false',
      phase: results.get(m.name)?.phase ?? 'Pending',
    })),
  };
}
