/**
 * An AnalysisRun's pass, pure: which measurements are due (`dueMeasurements`), then, with the
 * measurements the shell took, the next status (`reconcileRun`), following Argo's
 * `reconcileAnalysisRun` / `assessRunStatus` / `garbageCollectMeasurements` /
 * `calculateNextReconcileTime` (analysis/analysis.go):
 * - a completed run never changes;
 * - an invalid spec ends the run in Error ("Analysis spec invalid: …");
 * - the run is terminating when `spec.terminate` is set or a metric that is not a dry run has
 *   ended Failed, Error or Inconclusive; then nothing new is measured, in-flight measurements are
 *   terminated, and metrics still open end Successful;
 * - while any metric is open the run is Running; then it takes the worst phase of its metrics
 *   that are not dry runs (Successful < Running < Pending < Inconclusive < Error < Failed);
 *   dry-run metrics only count in `dryRunSummary`;
 * - each metric keeps its last 10 measurements, or `measurementRetention[].limit` when > 0.
 */
import type {
  AnalysisRunSpec,
  AnalysisRunStatus,
  Measurement,
  Metric,
  MetricResult,
} from '../../api/index.ts';
import { DEFAULT_MEASUREMENT_RETENTION } from './defaults.ts';
import { assessRun, completionEvent, type RunEvent } from './assess-run.ts';
import { isCompleted, newResult, recordMeasurement } from './metric.ts';
import { withMessage } from './message.ts';
import { dueNow, nextAt, type DueKind } from './schedule.ts';
import { analysisSpecProblems, metricNamePattern } from './validate.ts';

export type { RunEvent };

export interface RunInput {
  readonly spec: AnalysisRunSpec;
  readonly status?: AnalysisRunStatus;
}

export interface DueMeasurement {
  readonly metric: Metric;
  readonly kind: DueKind;
  /** The unfinished measurement to resume or terminate. */
  readonly inFlight?: Measurement;
}

/** A measurement the shell took (or resumed, or terminated) for a due metric. */
export interface TakenMeasurement {
  readonly metricName: string;
  readonly kind: DueKind;
  readonly measurement: Measurement;
  /** Provider metadata for the metric (e.g. the resolved query), kept on a new result. */
  readonly metricMetadata?: Readonly<Record<string, string>>;
}

export interface RunOutcome {
  readonly status: AnalysisRunStatus;
  /** Epoch ms at which the run needs another pass; absent: only a change can move it. */
  readonly requeueAt?: number;
  readonly events: readonly RunEvent[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Argo's `IsTerminating`. */
export function isTerminating(run: RunInput): boolean {
  if (run.spec.terminate === true) return true;
  return (run.status?.metricResults ?? []).some(
    (r) =>
      r.dryRun !== true &&
      (r.phase === 'Failed' || r.phase === 'Error' || r.phase === 'Inconclusive'),
  );
}

function startedAt(run: RunInput, now: number): number {
  const t = run.status?.startedAt ? Date.parse(run.status.startedAt) : NaN;
  return Number.isNaN(t) ? now : t;
}

function resultOf(status: AnalysisRunStatus | undefined, name: string): MetricResult | undefined {
  return status?.metricResults?.find((r) => r.name === name);
}

/** Argo's `generateMetricTasks`: the metrics to measure, resume or terminate at `now`. */
export function dueMeasurements(run: RunInput, now: number): DueMeasurement[] {
  if (isCompleted(run.status?.phase) || analysisSpecProblems(run.spec).length > 0) return [];
  const ctx = { startedAt: startedAt(run, now), now, terminating: isTerminating(run) };
  const due: DueMeasurement[] = [];
  for (const metric of run.spec.metrics) {
    const result = resultOf(run.status, metric.name);
    const kind = dueNow(metric, result, ctx);
    if (kind === undefined) continue;
    const last = result?.measurements?.at(-1);
    due.push(
      kind === 'measure' || last === undefined
        ? { metric, kind }
        : { metric, kind, inFlight: last },
    );
  }
  return due;
}

/** The metrics in dry-run mode: every metric some `dryRun[].metricName` pattern matches. */
export function dryRunMetrics(spec: Pick<AnalysisRunSpec, 'metrics' | 'dryRun'>): Set<string> {
  const patterns = (spec.dryRun ?? []).map((d) => metricNamePattern(d.metricName));
  return new Set(
    spec.metrics
      .map((m) => m.name)
      .filter((name) => patterns.some((re) => re?.test(name) === true)),
  );
}

/** Measurements kept for `name`: the last matching `measurementRetention` rule with limit > 0. */
export function retentionLimit(
  spec: Pick<AnalysisRunSpec, 'measurementRetention'>,
  name: string,
): number {
  let limit = DEFAULT_MEASUREMENT_RETENTION;
  for (const rule of spec.measurementRetention ?? []) {
    if (rule.limit > 0 && metricNamePattern(rule.metricName)?.test(name) === true)
      limit = rule.limit;
  }
  return limit;
}

/** The run's next status, given the measurements taken for what `dueMeasurements` returned. */
export function reconcileRun(
  run: RunInput,
  taken: readonly TakenMeasurement[],
  now: number,
): RunOutcome {
  const status = run.status ?? {};
  if (isCompleted(status.phase)) return { status, events: [] };
  const problems = analysisSpecProblems(run.spec);
  if (problems.length > 0) {
    return {
      status: {
        ...status,
        phase: 'Error',
        message: `Analysis spec invalid: ${problems.join('; ')}`,
        completedAt: status.completedAt ?? iso(now),
      },
      events: [completionEvent('Error')],
    };
  }
  const dryRun = dryRunMetrics(run.spec);
  const names = new Set(run.spec.metrics.map((m) => m.name));
  const recorded = record(status.metricResults ?? [], taken, names, dryRun);
  const withResults: RunInput = { spec: run.spec, status: { ...status, metricResults: recorded } };
  const terminating = isTerminating(withResults);
  const assessed = assessRun(run.spec, recorded, dryRun, terminating);
  const events = [...assessed.events];
  let next: AnalysisRunStatus = {
    ...status,
    startedAt: status.startedAt ?? iso(now),
    metricResults: assessed.results.map((r) => trim(r, retentionLimit(run.spec, r.name))),
    runSummary: assessed.runSummary,
    dryRunSummary: assessed.dryRunSummary,
  };
  if (assessed.phase !== status.phase) {
    next = withMessage({ ...next, phase: assessed.phase }, assessed.message);
    if (isCompleted(assessed.phase)) {
      next = { ...next, completedAt: status.completedAt ?? iso(now) };
      events.push(completionEvent(assessed.phase));
    }
  }
  if (isCompleted(next.phase)) return { status: next, events };
  return { status: next, events, ...requeue(run.spec, next, terminating, now) };
}

function record(
  results: readonly MetricResult[],
  taken: readonly TakenMeasurement[],
  specNames: ReadonlySet<string>,
  dryRun: ReadonlySet<string>,
): MetricResult[] {
  const out = [...results];
  for (const t of taken) {
    if (!specNames.has(t.metricName)) continue; // not ours to record
    const i = out.findIndex((r) => r.name === t.metricName);
    const base = out[i] ?? {
      ...newResult(t.metricName, dryRun.has(t.metricName)),
      ...(t.metricMetadata ? { metadata: { ...t.metricMetadata } } : {}),
    };
    const continuesLast = t.kind !== 'measure' && (base.measurements?.length ?? 0) > 0;
    // Argo's Terminate: a stopped measurement that still came out well says so.
    const terminated =
      t.kind === 'terminate' &&
      (t.measurement.phase === 'Successful' || t.measurement.phase === 'Inconclusive');
    const measurement = terminated
      ? { ...t.measurement, message: 'Metric Terminated' }
      : t.measurement;
    const next = recordMeasurement(base, measurement, continuesLast);
    if (i >= 0) out[i] = next;
    else out.push(next);
  }
  return out;
}

function trim(result: MetricResult, limit: number): MetricResult {
  const m = result.measurements ?? [];
  return m.length > limit ? { ...result, measurements: m.slice(m.length - limit) } : result;
}

/** Argo's `calculateNextReconcileTime`, plus an immediate pass once the run starts terminating
 *  (Argo gets that pass from the watch event of its own status write). */
function requeue(
  spec: AnalysisRunSpec,
  status: AnalysisRunStatus,
  wasTerminating: boolean,
  now: number,
): { requeueAt?: number } {
  const terminating = isTerminating({ spec, status });
  if (terminating && !wasTerminating) return { requeueAt: now };
  const ctx = { startedAt: startedAt({ spec, status }, now), now, terminating };
  let earliest: number | undefined;
  for (const metric of spec.metrics) {
    const at = nextAt(metric, resultOf(status, metric.name), ctx);
    if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest === undefined ? {} : { requeueAt: earliest };
}
