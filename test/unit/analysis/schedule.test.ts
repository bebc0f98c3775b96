// When a metric is measured: Argo's generateMetricTasks (due now?) and
// calculateNextReconcileTime (when next?) in analysis/analysis.go. Times in ms after T0; the
// run started at T0; measurements in the fixtures start one second apart and finish at once.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import { dueNow, nextAt, parseDuration, recordMeasurement } from '../../../src/analysis/index.ts';
import type { Metric, MetricResult } from '../../../src/api/index.ts';
import { T0, measurement, metric, resultOf } from '../../fixtures/analysis/runs.ts';

interface Row {
  readonly rule: string;
  readonly metric?: Partial<Metric>;
  readonly result?: MetricResult;
  readonly now: number;
  readonly terminating?: boolean;
  readonly due: string | undefined;
  /** ms after T0, or undefined for "no wake-up needed" */
  readonly next: number | undefined;
}

const inFlight = (resumeAt?: number): MetricResult =>
  recordMeasurement(
    { name: 'm', phase: 'Running' },
    measurement(
      'R',
      0,
      resumeAt === undefined ? {} : { resumeAt: new Date(T0 + resumeAt).toISOString() },
    ),
    false,
  );

const rows: readonly Row[] = [
  { rule: 'first measurement: due as the run starts', now: 0, due: 'measure', next: 0 },
  {
    rule: 'initialDelay: not before it has passed',
    metric: { initialDelay: '30s' },
    now: 29_999,
    due: undefined,
    next: 30_000,
  },
  {
    rule: 'initialDelay: due once it has passed',
    metric: { initialDelay: '30s' },
    now: 30_000,
    due: 'measure',
    next: 30_000,
  },
  {
    rule: 'interval: next one interval after the last finished',
    metric: { interval: '1m', count: 3 },
    result: resultOf('S'),
    now: 59_999,
    due: undefined,
    next: 60_000,
  },
  {
    rule: 'interval: due when the interval has passed',
    metric: { interval: '1m', count: 3 },
    result: resultOf('S'),
    now: 60_000,
    due: 'measure',
    next: 60_000,
  },
  {
    rule: 'interval counts from the last measurement, not the run start',
    metric: { interval: '10s', count: 5 },
    result: resultOf('S S S'),
    now: 12_000,
    due: 'measure',
    next: 12_000,
  },
  {
    rule: 'after an Error: retried 10 s later, even when the interval is longer',
    metric: { interval: '5m', count: 3 },
    result: resultOf('E'),
    now: 10_000,
    due: 'measure',
    next: 10_000,
  },
  {
    rule: 'after an Error: retried 10 s later, even when the interval is shorter',
    metric: { interval: '1s', count: 3 },
    result: resultOf('E'),
    now: 5_000,
    due: undefined,
    next: 10_000,
  },
  {
    rule: 'a count-1 metric in Error is retried after 10 s',
    result: resultOf('E'),
    now: 10_000,
    due: 'measure',
    next: 10_000,
  },
  {
    rule: 'count reached: nothing more',
    metric: { interval: '1s', count: 2 },
    result: resultOf('S F'),
    now: 99_000,
    due: undefined,
    next: undefined,
  },
  {
    rule: 'interval only: measured forever',
    metric: { interval: '1s' },
    result: resultOf('S S S S S S S S S S S S'),
    now: 12_000,
    due: 'measure',
    next: 12_000,
  },
  {
    rule: 'a completed metric is never measured again',
    metric: { interval: '1s' },
    result: resultOf('F', 'm', 'Failed'),
    now: 99_000,
    due: undefined,
    next: undefined,
  },
  {
    rule: 'terminating: nothing new starts',
    metric: { interval: '1s' },
    result: resultOf('S'),
    now: 99_000,
    terminating: true,
    due: undefined,
    next: undefined,
  },
  {
    rule: 'terminating: a measurement in flight is terminated at once',
    result: inFlight(60_000),
    now: 1_000,
    terminating: true,
    due: 'terminate',
    next: 60_000,
  },
  {
    rule: 'in flight with resumeAt ahead: wait for it',
    result: inFlight(60_000),
    now: 1_000,
    due: undefined,
    next: 60_000,
  },
  {
    rule: 'in flight with resumeAt passed: resume',
    result: inFlight(60_000),
    now: 60_000,
    due: 'resume',
    next: 60_000,
  },
  {
    rule: 'in flight without resumeAt: resume now; an event brings it back, or a poll 10 s on',
    result: inFlight(),
    now: 1_000,
    due: 'resume',
    next: 11_000,
  },
];

suite('measurement schedule', () => {
  for (const row of rows) {
    test(row.rule, () => {
      const m = metric(row.metric);
      const ctx = { startedAt: T0, now: T0 + row.now, terminating: row.terminating ?? false };
      assert.equal(dueNow(m, row.result, ctx), row.due, 'due now');
      const next = nextAt(m, row.result, ctx);
      assert.equal(next === undefined ? undefined : next - T0, row.next, 'next at');
    });
  }
});

suite('durations (interval, initialDelay) as Go time.ParseDuration reads them', () => {
  const ok: readonly [string, number][] = [
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['0', 0],
  ];
  for (const [text, ms] of ok) {
    test(`${text} is ${ms} ms`, () =>
      assert.deepEqual(parseDuration(text), { ok: true, value: ms }));
  }
  for (const text of ['30', '5 m', '1d', '-1s', '']) {
    test(`${JSON.stringify(text)} is refused`, () => assert.equal(parseDuration(text).ok, false));
  }
});
