/**
 * PURE: AnalysisRuns as the plugin shows them: in `get rollout`'s tree under their revision
 * (`α AnalysisRun  web-6cf78-2-1  ✖ Failed  ✔ 2,✖ 1`, then a line per metric with its phase
 * and latest value), and one run in detail for `get analysisrun NAME`.
 */
import type { AnalysisRun, Measurement, MetricResult } from '../../api/analysis.ts';
import { REVISION_ANNOTATION } from '../../api/keys.ts';
import { noColor, type Paint } from './color.ts';
import { age, columns } from './format.ts';
import { ICON, TONE, type IconHealth } from './icons.ts';
import type { Sanitised } from '../sanitise.ts';

export const ANALYSIS_RUN_ICON = 'α';
const MAX_VALUE_WIDTH = 60;

export interface MetricLine {
  name: string;
  phase: string;
  health: IconHealth;
  /** The latest measurement's value (or its message when it has none), shortened. */
  latest: string;
  dryRun: boolean;
}

export interface AnalysisRunInfo {
  name: string;
  revision: number | undefined;
  phase: string;
  health: IconHealth;
  /** Argo's counts: `✔ 2,✖ 1,⚠ 1,? 1` (successful, failed, error, inconclusive). */
  counts: string;
  created: number | undefined;
  metrics: MetricLine[];
}

/** Run and measurement phases on the plugin's icons. */
export function phaseHealth(phase: string | undefined): IconHealth {
  switch (phase) {
    case 'Successful':
      return 'Healthy';
    case 'Failed':
    case 'Error':
      return 'Degraded';
    case 'Inconclusive':
      return 'Paused';
    case 'Running':
    case 'Pending':
    case undefined:
      return 'Progressing';
    default:
      return 'Unknown';
  }
}

const shorten = (text: string): string =>
  text.length <= MAX_VALUE_WIDTH ? text : `${text.slice(0, MAX_VALUE_WIDTH - 1)}…`;

function latestOf(result: MetricResult): string {
  const last: Measurement | undefined = result.measurements?.at(-1);
  if (last === undefined) return '';
  if (last.value !== undefined && last.value !== '') return shorten(last.value);
  return shorten(last.message ?? '');
}

export function analysisRunInfo(run: AnalysisRun): AnalysisRunInfo {
  const results = run.status?.metricResults ?? [];
  const sum = (field: 'successful' | 'failed' | 'error' | 'inconclusive'): number =>
    results.reduce((n, r) => n + (r.dryRun === true ? 0 : (r[field] ?? 0)), 0);
  const counts = [
    [ICON.Healthy, sum('successful')],
    [ICON.Degraded, sum('failed')],
    ['⚠', sum('error')],
    ['?', sum('inconclusive')],
  ]
    .filter(([, n]) => n !== 0)
    .map(([icon, n]) => `${icon} ${n}`)
    .join(',');
  const revision = Number(run.metadata.annotations?.[REVISION_ANNOTATION]);
  const created = Date.parse(String(run.metadata.creationTimestamp ?? ''));
  return {
    name: run.metadata.name ?? '',
    revision: Number.isInteger(revision) ? revision : undefined,
    phase: run.status?.phase ?? 'Pending',
    health: phaseHealth(run.status?.phase),
    counts,
    created: Number.isNaN(created) ? undefined : created,
    metrics: results.map((r) => ({
      name: r.name,
      phase: r.phase,
      health: phaseHealth(r.phase),
      latest: latestOf(r),
      dryRun: r.dryRun === true,
    })),
  };
}

/** Keys in a column of 17, a long one (an arg's name) followed by one space. */
const label = (key: string): string => key.padEnd(Math.max(17, key.length + 1));

const badge = (paint: Paint, health: IconHealth, text: string): string =>
  paint(`${ICON[health]} ${text}`, TONE[health]);

/** One run in detail: `get analysisrun NAME`. */
export function renderAnalysisRun(
  run: Sanitised<AnalysisRun>,
  now: number,
  paint: Paint = noColor,
): string {
  const info = analysisRunInfo(run);
  const st = run.status ?? {};
  const head: [string, string][] = [
    ['Name:', info.name],
    ['Namespace:', run.metadata.namespace ?? ''],
    ['Status:', badge(paint, info.health, info.phase)],
  ];
  if (st.message) head.push(['Message:', st.message]);
  if (info.counts) head.push(['Measurements:', info.counts]);
  head.push(['Age:', age(info.created, now)]);
  if (st.startedAt) head.push(['Started:', st.startedAt]);
  if (st.completedAt) head.push(['Completed:', st.completedAt]);
  const args = run.spec.args ?? [];
  if (args.length > 0) {
    head.push(['Args:', '']);
    for (const a of args) {
      const shown = a.valueFrom?.secretKeyRef !== undefined ? '<secret>' : (a.value ?? '<unset>');
      head.push([`  ${a.name}:`, shown]);
    }
  }
  const out = [head.map(([k, v]) => (v ? label(k) + v : k)).join('\n')];
  for (const metric of run.spec.metrics) {
    const result = (st.metricResults ?? []).find((r) => r.name === metric.name);
    const provider = Object.keys(metric.provider).find(
      (k) => (metric.provider as Record<string, unknown>)[k] !== undefined,
    );
    const lines: [string, string][] = [
      ['Metric:', metric.name + (result?.dryRun === true ? ' (dry run)' : '')],
      ['  Status:', badge(paint, phaseHealth(result?.phase), result?.phase ?? 'Pending')],
      ['  Provider:', provider ?? '<none>'],
    ];
    if (result?.message) lines.push(['  Message:', result.message]);
    if (metric.successCondition) lines.push(['  Success:', metric.successCondition]);
    if (metric.failureCondition) lines.push(['  Failure:', metric.failureCondition]);
    const limits = [
      metric.interval && `interval ${metric.interval}`,
      metric.count !== undefined && `count ${metric.count}`,
      metric.failureLimit !== undefined && `failureLimit ${metric.failureLimit}`,
      metric.inconclusiveLimit !== undefined && `inconclusiveLimit ${metric.inconclusiveLimit}`,
      metric.consecutiveErrorLimit !== undefined &&
        `consecutiveErrorLimit ${metric.consecutiveErrorLimit}`,
    ].filter((x): x is string => typeof x === 'string');
    if (limits.length > 0) lines.push(['  Limits:', limits.join(', ')]);
    out.push(lines.map(([k, v]) => label(k) + v).join('\n'));
    const ms = result?.measurements ?? [];
    if (ms.length === 0) {
      out.push('  (no measurements yet)');
      continue;
    }
    const rows = [['  PHASE', 'VALUE', 'STARTED', 'FINISHED', 'MESSAGE']];
    for (const m of ms) {
      rows.push([
        `  ${badge(paint, phaseHealth(m.phase), m.phase)}`,
        shorten(m.value ?? ''),
        m.startedAt ?? '',
        m.finishedAt ?? '',
        m.message ?? '',
      ]);
    }
    out.push(columns(rows).join('\n'));
  }
  return `${out.join('\n\n')}\n`;
}
