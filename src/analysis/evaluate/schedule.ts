/**
 * When a metric is measured, as Argo's `generateMetricTasks` (is it due now?) and
 * `calculateNextReconcileTime` (when should the run be looked at again?) in analysis/analysis.go
 * decide it. Times are epoch milliseconds.
 *
 * - A completed metric is never measured again.
 * - An unfinished measurement (an asynchronous provider such as a Job) is resumed once its
 *   `resumeAt` has passed (at once when it has none), or terminated at once when the run is
 *   terminating. Without `resumeAt` an event on what the provider made brings the run back; a
 *   pass every 10 s covers an event that never comes.
 * - Nothing new starts while the run is terminating.
 * - The first measurement waits for `initialDelay` after the run started.
 * - No new measurement once the effective count of measurements is reached.
 * - The next one is due `interval` after the last one finished; 10 s after one in Error,
 *   whatever the interval (Argo's DefaultErrorRetryInterval).
 * Argo measures when `now` is strictly after the due time; we measure at the due time itself, so
 * that a wake-up set for exactly that time finds the measurement due.
 */
import type { Measurement, Metric, MetricResult } from '../../api/index.ts';
import {
  ERROR_RETRY_INTERVAL_MS,
  IN_FLIGHT_POLL_MS,
  effectiveCount,
  initialDelayMs,
  intervalMs,
} from './defaults.ts';
import { isCompleted } from './metric.ts';

export interface ScheduleContext {
  /** When the run started (`status.startedAt`, or now on its first pass). */
  readonly startedAt: number;
  readonly now: number;
  readonly terminating: boolean;
}

export type DueKind =
  /** Take a new measurement. */
  | 'measure'
  /** Ask the provider about the unfinished last measurement. */
  | 'resume'
  /** Stop the unfinished last measurement: the run is terminating. */
  | 'terminate';

const time = (t: string | undefined): number | undefined => {
  if (t === undefined) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
};

function inFlight(m: Measurement | undefined): m is Measurement {
  return m !== undefined && m.finishedAt === undefined && !isCompleted(m.phase);
}

/** What, if anything, the metric needs at `ctx.now`. */
export function dueNow(
  metric: Metric,
  result: MetricResult | undefined,
  ctx: ScheduleContext,
): DueKind | undefined {
  if (isCompleted(result?.phase)) return undefined;
  const last = result?.measurements?.at(-1);
  if (inFlight(last)) {
    if (ctx.terminating) return 'terminate';
    const resumeAt = time(last.resumeAt);
    return resumeAt === undefined || resumeAt <= ctx.now ? 'resume' : undefined;
  }
  if (ctx.terminating) return undefined;
  const at = nextMeasurementAt(metric, result, last, ctx.startedAt);
  return at !== undefined && at <= ctx.now ? 'measure' : undefined;
}

/**
 * When the metric next needs attention, for the requeue; `undefined` when only an outside event
 * can move it (completed, count reached, or terminating).
 */
export function nextAt(
  metric: Metric,
  result: MetricResult | undefined,
  ctx: ScheduleContext,
): number | undefined {
  if (isCompleted(result?.phase)) return undefined;
  const last = result?.measurements?.at(-1);
  if (inFlight(last)) return time(last.resumeAt) ?? ctx.now + IN_FLIGHT_POLL_MS;
  if (ctx.terminating) return undefined;
  return nextMeasurementAt(metric, result, last, ctx.startedAt);
}

/** When the next new measurement is due, ignoring termination; undefined: never. */
function nextMeasurementAt(
  metric: Metric,
  result: MetricResult | undefined,
  last: Measurement | undefined,
  startedAt: number,
): number | undefined {
  if (last === undefined) {
    const delay = initialDelayMs(metric);
    return delay === undefined ? undefined : startedAt + delay;
  }
  const count = effectiveCount(metric);
  if (count !== undefined && (result?.count ?? 0) >= count) return undefined;
  const finishedAt = time(last.finishedAt) ?? time(last.startedAt);
  if (finishedAt === undefined) return undefined;
  if (last.phase === 'Error') return finishedAt + ERROR_RETRY_INTERVAL_MS;
  // No interval and the count not reached: unreachable for a valid spec (count > 1 needs an
  // interval); Argo's generateMetricTasks then also waits the 10 s default.
  if (!metric.interval) return finishedAt + ERROR_RETRY_INTERVAL_MS;
  const interval = intervalMs(metric);
  return interval === undefined ? undefined : finishedAt + interval;
}
