/**
 * PURE: an AnalysisRun's metrics as the page charts them: the measured values over time (the
 * first number of each value: `0.97`, `[0.97]`), each point's phase (failed ones are marked), the
 * success and failure conditions drawn as thresholds when they are a plain comparison of the
 * result with a number (`result[0] >= 0.95`; any other condition is shown as text), the query
 * and the last value.
 */
import type { AnalysisRun, Metric } from '../../api/analysis.ts';
import { toTime } from '../../cli/render/objects.ts';
import type { ChartPoint, MetricChart, Threshold } from './wire.ts';

/** At most this many points per chart: the newest. */
export const MAX_POINTS = 500;

const NUMBER = '(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)';
const RESULT = 'result(?:\\[0\\])?';
const OPS = '(<=|>=|<|>)';
const RESULT_FIRST = new RegExp(`^\\s*${RESULT}\\s*${OPS}\\s*${NUMBER}\\s*$`);
const NUMBER_FIRST = new RegExp(`^\\s*${NUMBER}\\s*${OPS}\\s*${RESULT}\\s*$`);
const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;
type Op = keyof typeof FLIP;

/** `result >= 0.95` as a line at 0.95; undefined for anything but a plain comparison. */
export function thresholdOf(
  kind: Threshold['kind'],
  condition: string | undefined,
): Threshold | undefined {
  if (condition === undefined) return undefined;
  const a = RESULT_FIRST.exec(condition);
  if (a) return { kind, op: a[1] as Op, value: Number(a[2]), text: condition };
  const b = NUMBER_FIRST.exec(condition);
  if (b) return { kind, op: FLIP[b[2] as Op], value: Number(b[1]), text: condition };
  return undefined;
}

/** The first number in a measured value, or undefined (text, an empty result). */
export function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  while (Array.isArray(parsed)) parsed = parsed[0];
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : undefined;
}

const queryOf = (metric: Metric | undefined): string | undefined =>
  metric?.provider.prometheus?.query ?? metric?.provider.web?.url;

export function metricCharts(run: AnalysisRun): MetricChart[] {
  const specs = new Map((run.spec?.metrics ?? []).map((m) => [m.name, m]));
  return (run.status?.metricResults ?? []).map((result): MetricChart => {
    const spec = specs.get(result.name);
    const measurements = result.measurements ?? [];
    const points: ChartPoint[] = [];
    for (const m of measurements.slice(-MAX_POINTS)) {
      const value = numberOf(m.value);
      const at = toTime(m.finishedAt ?? m.startedAt);
      if (value !== undefined && at !== undefined) points.push({ at, value, phase: m.phase });
    }
    const last = measurements.at(-1);
    const thresholds = [
      thresholdOf('success', spec?.successCondition),
      thresholdOf('failure', spec?.failureCondition),
    ].filter((t): t is Threshold => t !== undefined);
    const query = last?.metadata?.['resolvedPrometheusQuery'] ?? queryOf(spec);
    return {
      run: run.metadata.name ?? '',
      metric: result.name,
      phase: result.phase,
      points,
      thresholds,
      conditions: [spec?.successCondition, spec?.failureCondition].filter(
        (c): c is string => c !== undefined,
      ),
      ...(query !== undefined ? { query } : {}),
      ...(last?.value !== undefined ? { last: last.value } : {}),
      measurements: measurements.length,
    };
  });
}
