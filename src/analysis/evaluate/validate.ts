/**
 * Argo's checks on an analysis spec that a schema cannot express (utils/analysis/factory.go
 * `ValidateMetrics` / `ValidateMetric`; utils/analysis/helpers.go `GetDryRunMetrics`,
 * `GetMeasurementRetentionMetrics`). A run whose spec fails them ends in Error at once, with
 * "Analysis spec invalid: …". Messages keep Argo's wording where it has one.
 * Stricter than Argo: a limit or count given as a string that is not a whole number is an error
 * here (Go reads it as 0), and so is a `dryRun`/`measurementRetention` pattern that is not a
 * valid regular expression (Go ignores the error and then reports "didn't match").
 */
import type { AnalysisRunSpec, Metric } from '../../api/index.ts';
import { checkCondition, goRegexTest } from '../expr/index.ts';
import { intValue } from './defaults.ts';
import { parseDuration } from './duration.ts';

type Spec = Pick<AnalysisRunSpec, 'metrics' | 'dryRun' | 'measurementRetention'>;

/** Problems with the spec, one line each; empty when the run can proceed. */
export function analysisSpecProblems(spec: Spec): string[] {
  const problems: string[] = [];
  const metrics = spec.metrics ?? [];
  if (metrics.length === 0) problems.push('no metrics specified');
  const seen = new Set<string>();
  metrics.forEach((metric, i) => {
    if (seen.has(metric.name)) problems.push(`metrics[${i}]: duplicate name '${metric.name}'`);
    seen.add(metric.name);
    for (const p of metricProblems(metric)) problems.push(`metrics[${i}]: ${p}`);
  });
  const names = metrics.map((m) => m.name);
  (spec.dryRun ?? []).forEach((rule, i) =>
    problems.push(...ruleProblems(`dryRun[${i}]`, rule.metricName, names)),
  );
  (spec.measurementRetention ?? []).forEach((rule, i) =>
    problems.push(...ruleProblems(`measurementRetention[${i}]`, rule.metricName, names)),
  );
  return problems;
}

const LIMIT_FIELDS = [
  'count',
  'failureLimit',
  'inconclusiveLimit',
  'consecutiveErrorLimit',
  'consecutiveSuccessLimit',
] as const;

/** Argo's `ValidateMetric`, one metric. */
export function metricProblems(metric: Metric): string[] {
  const problems: string[] = [];
  for (const field of LIMIT_FIELDS) {
    const v = metric[field];
    if (typeof v === 'string' && !/^[+-]?[0-9]+$/.test(v)) {
      problems.push(`${field} must be an integer, got ${JSON.stringify(v)}`);
    }
  }
  const count = intValue(metric.count, 0);
  const failureLimit = intValue(metric.failureLimit, 0);
  const successLimit = intValue(metric.consecutiveSuccessLimit, 0);
  const inconclusiveLimit = intValue(metric.inconclusiveLimit, 0);
  if (count < 0) problems.push('count must be >= 0');
  if (successLimit < 0) problems.push('consecutiveSuccessLimit must be >= 0');
  if (failureLimit < -1) problems.push('failureLimit must be >= 0, or -1 to be disabled');
  if (successLimit === 0 && failureLimit === -1) {
    problems.push('failureLimit and consecutiveSuccessLimit cannot both be disabled');
  }
  if (inconclusiveLimit < 0) problems.push('inconclusiveLimit must be >= 0');
  if (intValue(metric.consecutiveErrorLimit, 0) < 0) {
    problems.push('consecutiveErrorLimit must be >= 0');
  }
  if (count > 0) {
    if (successLimit >= 0 && failureLimit >= 0 && count < failureLimit + successLimit) {
      problems.push(
        `count (${count}) must be >= failureLimit + consecutiveSuccessLimit ` +
          `(${failureLimit} + ${successLimit}) if both >= 0`,
      );
    } else if (successLimit >= 0 && failureLimit < 0 && count < successLimit) {
      problems.push('count must be >= consecutiveSuccessLimit');
    }
    if (count < inconclusiveLimit) problems.push('count must be >= inconclusiveLimit');
  }
  if (count > 1 && !metric.interval) problems.push('interval must be specified when count > 1');
  for (const field of ['interval', 'initialDelay'] as const) {
    const v = metric[field];
    if (!v) continue;
    const parsed = parseDuration(v);
    if (!parsed.ok) problems.push(`${field} ${parsed.error}`);
  }
  problems.push(...conditionProblems(metric));
  const providers = Object.values(metric.provider ?? {}).filter((p) => p !== undefined).length;
  if (providers === 0) problems.push('no provider specified');
  if (providers > 1) problems.push('multiple providers specified');
  return problems;
}

/**
 * Conditions that do not compile, with the column of the fault, so a bad expression stops the
 * run before anything is measured. `{{args.x}}` placeholders stand in as a number padded to their length (so columns stay true): they are
 * substituted when the run measures, and only the syntax around them is checked here.
 */
function conditionProblems(metric: Metric): string[] {
  const problems: string[] = [];
  for (const field of ['successCondition', 'failureCondition'] as const) {
    const source = metric[field];
    if (!source) continue;
    const fault = checkCondition(source.replace(ARG_PLACEHOLDER, (arg) => '0'.padEnd(arg.length)));
    if (fault !== undefined) problems.push(`${field} ${JSON.stringify(source)}: ${fault.message}`);
  }
  return problems;
}

const ARG_PLACEHOLDER = /\{\{\s*args\.[A-Za-z0-9_.-]+\s*\}\}/g;

/** A dryRun / measurementRetention rule: a regular expression that must match some metric. */
function ruleProblems(at: string, pattern: string, names: readonly string[]): string[] {
  const test = goRegexTest(pattern);
  if (typeof test === 'string') {
    return [`${at}: invalid regular expression ${JSON.stringify(pattern)}: ${test}`];
  }
  return names.some(test) ? [] : [`${at}: Rule didn't match any metric name(s)`];
}

/** A compiled dryRun / retention rule. */
export interface MetricNamePattern {
  test(name: string): boolean;
}

/**
 * Go's `regexp.MatchString(pattern, name)` on the same RE2 engine as `matches`: the pattern may
 * match anywhere in the name ("success" matches "success-rate"; ".*" matches all).
 */
export function metricNamePattern(pattern: string): MetricNamePattern | undefined {
  const test = goRegexTest(pattern);
  return typeof test === 'string' ? undefined : { test };
}
