/**
 * A metric's result: counters kept across measurements, and its phase from those counters and
 * the limits, as Argo's `runMeasurements` and `assessMetricStatus` /
 * `assessMetricFailureInconclusiveOrError` (analysis/analysis.go) compute them. The counters,
 * not the measurement list, decide: measurements are trimmed to the retention limit, the
 * counters never are.
 */
import type { AnalysisPhase, Measurement, Metric, MetricResult } from '../../api/index.ts';
import { effectiveCount, limits } from './defaults.ts';

const COMPLETED: ReadonlySet<AnalysisPhase> = new Set([
  'Successful',
  'Failed',
  'Error',
  'Inconclusive',
]);

export function isCompleted(phase: AnalysisPhase | undefined): boolean {
  return phase !== undefined && COMPLETED.has(phase);
}

/** Argo's order from best to worst (utils/analysis/helpers.go `analysisStatusOrder`). */
const ORDER: readonly AnalysisPhase[] = [
  'Successful',
  'Running',
  'Pending',
  'Inconclusive',
  'Error',
  'Failed',
];

export function isWorse(current: AnalysisPhase, next: AnalysisPhase): boolean {
  return ORDER.indexOf(next) > ORDER.indexOf(current);
}

/** An empty result for a metric about to be measured for the first time. */
export function newResult(name: string, dryRun: boolean): MetricResult {
  return { name, phase: 'Running', ...(dryRun ? { dryRun: true } : {}) };
}

/**
 * Adds `measurement` to `result` (or replaces the last one, when it continues that in-flight
 * measurement) and, once it has finished, counts it: Successful, Failed and Inconclusive count
 * toward `count`; Error does not. Any non-Error resets `consecutiveError`; anything but
 * Successful resets `consecutiveSuccess`.
 */
export function recordMeasurement(
  result: MetricResult,
  measurement: Measurement,
  continuesLast: boolean,
): MetricResult {
  const previous = result.measurements ?? [];
  const measurements = continuesLast
    ? [...previous.slice(0, -1), measurement]
    : [...previous, measurement];
  const next: MetricResult = { ...result, measurements };
  if (!isCompleted(measurement.phase)) return next;
  const n = (v: number | undefined): number => v ?? 0;
  if (measurement.phase === 'Error') {
    return {
      ...next,
      error: n(result.error) + 1,
      consecutiveError: n(result.consecutiveError) + 1,
      consecutiveSuccess: 0,
    };
  }
  const counted = { ...next, count: n(result.count) + 1, consecutiveError: 0 };
  if (measurement.phase === 'Successful') {
    return {
      ...counted,
      successful: n(result.successful) + 1,
      consecutiveSuccess: n(result.consecutiveSuccess) + 1,
    };
  }
  return measurement.phase === 'Failed'
    ? { ...counted, failed: n(result.failed) + 1, consecutiveSuccess: 0 }
    : { ...counted, inconclusive: n(result.inconclusive) + 1, consecutiveSuccess: 0 };
}

export interface MetricAssessment {
  readonly phase: AnalysisPhase;
  /** Why a limit decided it, e.g. `failed (4) > failureLimit (3)`; absent otherwise. */
  readonly reason?: string;
}

/**
 * Argo's `assessMetricFailureInconclusiveOrError`: the limit a metric has gone past, if any.
 * When several are past, the later check wins (Error over Inconclusive over Failed).
 */
export function limitBreached(metric: Metric, result: MetricResult): MetricAssessment | undefined {
  const l = limits(metric);
  let breach: MetricAssessment | undefined;
  const failed = result.failed ?? 0;
  if (l.failureLimit >= 0 && failed > l.failureLimit) {
    breach = { phase: 'Failed', reason: `failed (${failed}) > failureLimit (${l.failureLimit})` };
  }
  const inconclusive = result.inconclusive ?? 0;
  if (inconclusive > l.inconclusiveLimit) {
    breach = {
      phase: 'Inconclusive',
      reason: `inconclusive (${inconclusive}) > inconclusiveLimit (${l.inconclusiveLimit})`,
    };
  }
  const errors = result.consecutiveError ?? 0;
  if (errors > l.consecutiveErrorLimit) {
    breach = {
      phase: 'Error',
      reason: `consecutiveErrors (${errors}) > consecutiveErrorLimit (${l.consecutiveErrorLimit})`,
    };
  }
  return breach;
}

/**
 * Argo's `assessMetricStatus`. In order: a completed metric keeps its phase; no measurement yet
 * is Pending (Successful when the run is terminating); an unfinished last measurement is
 * Running; a breached limit decides (see {@link limitBreached}); `consecutiveSuccessLimit`
 * reached is Successful; the effective count reached is Successful, unless a
 * consecutiveSuccessLimit was set and not reached: then Inconclusive when failureLimit also
 * applies (≥ 0), else Failed; an unbounded metric is Running (Successful when terminating).
 */
export function assessMetric(
  metric: Metric,
  result: MetricResult,
  terminating: boolean,
): MetricAssessment {
  if (isCompleted(result.phase)) return { phase: result.phase };
  const measurements = result.measurements ?? [];
  const last = measurements.at(-1);
  if (last === undefined) return { phase: terminating ? 'Successful' : 'Pending' };
  if (!isCompleted(last.phase)) return { phase: 'Running' };
  const breach = limitBreached(metric, result);
  if (breach) return breach;
  const l = limits(metric);
  const successApplies = l.consecutiveSuccessLimit > 0;
  if (successApplies && (result.consecutiveSuccess ?? 0) >= l.consecutiveSuccessLimit) {
    return { phase: 'Successful' };
  }
  const count = effectiveCount(metric);
  if (count !== undefined && (result.count ?? 0) >= count) {
    if (!successApplies) return { phase: 'Successful' };
    return { phase: l.failureLimit >= 0 ? 'Inconclusive' : 'Failed' };
  }
  return { phase: terminating ? 'Successful' : 'Running' };
}
