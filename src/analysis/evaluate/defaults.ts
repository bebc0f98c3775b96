/**
 * Argo Rollouts' defaults for a metric, read once here so every rule below uses the same numbers.
 * Sources (argoproj/argo-rollouts): pkg/apis/rollouts/v1alpha1/analysis_types.go (`Metric`,
 * `EffectiveCount`), utils/defaults/defaults.go (`DefaultConsecutiveErrorLimit = 4`),
 * analysis/analysis.go (`DefaultMeasurementHistoryLimit = 10`, `DefaultErrorRetryInterval = 10s`,
 * `assessMetricFailureInconclusiveOrError`); docs/features/analysis.md.
 */
import type { Metric } from '../../api/index.ts';
import { parseDuration } from './duration.ts';

/** Measurements kept per metric unless `measurementRetention` says otherwise. */
export const DEFAULT_MEASUREMENT_RETENTION = 10;
/** After a measurement in Error, the next one is taken this much later (whatever the interval). */
export const ERROR_RETRY_INTERVAL_MS = 10_000;
/**
 * An unfinished measurement without `resumeAt` (a Job: its events wake the run) is still looked
 * at this often, in case an event is lost. Ours, not Argo's (Argo polls Jobs on a growing delay).
 */
export const IN_FLIGHT_POLL_MS = 10_000;
export const DEFAULT_FAILURE_LIMIT = 0;
export const DEFAULT_INCONCLUSIVE_LIMIT = 0;
export const DEFAULT_CONSECUTIVE_ERROR_LIMIT = 4;
/** 0 means off: the metric does not complete on a run of successes. */
export const DEFAULT_CONSECUTIVE_SUCCESS_LIMIT = 0;

/**
 * An IntOrString as Go's `intstr.IntValue()` reads it: a number as is, a string through
 * `strconv.Atoi` with errors ignored (so `"abc"` is 0). Templated values (`{{args.n}}`) must be
 * resolved before evaluation; validation reports strings that are not whole numbers.
 */
export function intValue(v: number | string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v === 'number') return Math.trunc(v);
  return /^[+-]?[0-9]+$/.test(v) ? Number.parseInt(v, 10) : 0;
}

/** The limits that decide a metric's phase, with Argo's defaults applied. */
export interface Limits {
  /** Negative: disabled (`-1`, only together with a consecutiveSuccessLimit). */
  readonly failureLimit: number;
  readonly inconclusiveLimit: number;
  readonly consecutiveErrorLimit: number;
  /** 0: disabled. */
  readonly consecutiveSuccessLimit: number;
}

export function limits(metric: Metric): Limits {
  return {
    failureLimit: intValue(metric.failureLimit, DEFAULT_FAILURE_LIMIT),
    inconclusiveLimit: intValue(metric.inconclusiveLimit, DEFAULT_INCONCLUSIVE_LIMIT),
    consecutiveErrorLimit: intValue(metric.consecutiveErrorLimit, DEFAULT_CONSECUTIVE_ERROR_LIMIT),
    consecutiveSuccessLimit: intValue(
      metric.consecutiveSuccessLimit,
      DEFAULT_CONSECUTIVE_SUCCESS_LIMIT,
    ),
  };
}

/**
 * Argo's `EffectiveCount`: the number of measurements after which the metric is done. Neither
 * count nor interval (or count 0): 1. Only interval: unbounded (`undefined`), the metric runs
 * until the run is terminated. Otherwise the count.
 */
export function effectiveCount(metric: Metric): number | undefined {
  const count = intValue(metric.count, 0);
  if (count === 0) return metric.interval ? undefined : 1;
  return count;
}

/** The metric's interval in ms; `undefined` when unset or unparsable (validation reports it). */
export function intervalMs(metric: Metric): number | undefined {
  return metric.interval ? okOrUndefined(parseDuration(metric.interval)) : undefined;
}

/** The metric's initial delay in ms; 0 when unset; `undefined` when unparsable. */
export function initialDelayMs(metric: Metric): number | undefined {
  return metric.initialDelay ? okOrUndefined(parseDuration(metric.initialDelay)) : 0;
}

function okOrUndefined(r: ReturnType<typeof parseDuration>): number | undefined {
  return r.ok ? r.value : undefined;
}
