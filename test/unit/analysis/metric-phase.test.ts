// A metric's phase from its measurements and limits: Argo's assessMetricStatus and
// assessMetricFailureInconclusiveOrError (analysis/analysis.go), docs/features/analysis.md
// ("Failure Conditions and Failure Limit", "ConsecutiveSuccessLimit and FailureLimit",
// "Inconclusive Runs", "Error Runs"). `measured` spells the measurements in order:
// S Successful, F Failed, I Inconclusive, E Error, R still running.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import { assessMetric, recordMeasurement } from '../../../src/analysis/index.ts';
import type { Metric } from '../../../src/api/index.ts';
import { measurement, metric, resultOf } from '../../fixtures/analysis/runs.ts';

interface Row {
  readonly rule: string;
  readonly metric?: Partial<Metric>;
  readonly measured: string;
  readonly terminating?: boolean;
  readonly phase: string;
  readonly reason?: string;
}

const every = { interval: '1m' };

const rows: readonly Row[] = [
  { rule: 'nothing measured yet: Pending', measured: '', phase: 'Pending' },
  {
    rule: 'nothing measured and the run is terminating: Successful',
    measured: '',
    terminating: true,
    phase: 'Successful',
  },
  {
    rule: 'last measurement still running: Running',
    measured: 'S R',
    metric: { count: 3, ...every },
    phase: 'Running',
  },
  {
    rule: 'running measurement holds even when terminating (it is terminated first)',
    measured: 'R',
    terminating: true,
    phase: 'Running',
  },
  // Defaults: count 1 without interval, failureLimit 0.
  {
    rule: 'no count, no interval: one Successful measurement completes it',
    measured: 'S',
    phase: 'Successful',
  },
  {
    rule: 'failureLimit defaults to 0: one failure fails it',
    measured: 'F',
    phase: 'Failed',
    reason: 'failed (1) > failureLimit (0)',
  },
  // failureLimit
  {
    rule: 'failures up to failureLimit are tolerated until count is reached',
    measured: 'F S F S F',
    metric: { count: 5, failureLimit: 3, ...every },
    phase: 'Successful',
  },
  {
    rule: 'failed > failureLimit: Failed at once, before count',
    measured: 'F F F F',
    metric: { count: 10, failureLimit: 3, ...every },
    phase: 'Failed',
    reason: 'failed (4) > failureLimit (3)',
  },
  {
    rule: 'failures need not be consecutive',
    measured: 'F S F S',
    metric: { count: 10, failureLimit: 1, ...every },
    phase: 'Failed',
    reason: 'failed (2) > failureLimit (1)',
  },
  {
    rule: 'failureLimit as a string counts like a number',
    measured: 'F F',
    metric: { count: 5, failureLimit: '1', ...every },
    phase: 'Failed',
    reason: 'failed (2) > failureLimit (1)',
  },
  // inconclusiveLimit
  {
    rule: 'inconclusiveLimit defaults to 0: one Inconclusive makes it Inconclusive',
    measured: 'I',
    phase: 'Inconclusive',
    reason: 'inconclusive (1) > inconclusiveLimit (0)',
  },
  {
    rule: 'inconclusive up to inconclusiveLimit is tolerated',
    measured: 'I S I',
    metric: { count: 3, inconclusiveLimit: 2, ...every },
    phase: 'Successful',
  },
  // consecutiveErrorLimit
  {
    rule: 'four errors in a row (default limit 4): still Running',
    measured: 'E E E E',
    phase: 'Running',
  },
  {
    rule: 'consecutiveError > consecutiveErrorLimit (default 4): Error',
    measured: 'E E E E E',
    phase: 'Error',
    reason: 'consecutiveErrors (5) > consecutiveErrorLimit (4)',
  },
  {
    rule: 'consecutiveErrorLimit 0: the first error ends it',
    measured: 'E',
    metric: { consecutiveErrorLimit: 0 },
    phase: 'Error',
    reason: 'consecutiveErrors (1) > consecutiveErrorLimit (0)',
  },
  {
    rule: 'a success resets the error run',
    measured: 'E E E E S E E E E',
    metric: { count: 5, ...every },
    phase: 'Running',
  },
  {
    rule: 'errors do not count toward count',
    measured: 'E S',
    metric: { count: 2, ...every },
    phase: 'Running',
  },
  {
    rule: 'one error then a success completes a count-1 metric',
    measured: 'E S',
    phase: 'Successful',
  },
  // Later checks override earlier ones.
  {
    rule: 'Inconclusive over Failed when both limits are past',
    measured: 'F I',
    metric: { count: 5, ...every },
    phase: 'Inconclusive',
    reason: 'inconclusive (1) > inconclusiveLimit (0)',
  },
  {
    rule: 'Error over Failed when both limits are past',
    measured: 'F E',
    metric: { count: 5, consecutiveErrorLimit: 0, ...every },
    phase: 'Error',
    reason: 'consecutiveErrors (1) > consecutiveErrorLimit (0)',
  },
  // consecutiveSuccessLimit
  {
    rule: 'consecutiveSuccessLimit reached: Successful before count',
    measured: 'F S S S',
    metric: { count: 10, failureLimit: 3, consecutiveSuccessLimit: 3, ...every },
    phase: 'Successful',
  },
  {
    rule: 'consecutiveSuccessLimit counts only an unbroken run',
    measured: 'S S F S',
    metric: { count: 10, failureLimit: 3, consecutiveSuccessLimit: 3, ...every },
    phase: 'Running',
  },
  {
    rule: 'count reached, consecutiveSuccessLimit missed, failureLimit applies: Inconclusive',
    measured: 'S S F S',
    metric: { count: 4, failureLimit: 1, consecutiveSuccessLimit: 3, ...every },
    phase: 'Inconclusive',
  },
  {
    rule: 'count reached, consecutiveSuccessLimit missed, failureLimit -1: Failed',
    measured: 'S F S F',
    metric: { count: 4, failureLimit: -1, consecutiveSuccessLimit: 3, ...every },
    phase: 'Failed',
  },
  {
    rule: 'failureLimit -1 disables the failure check',
    measured: 'F F F S S',
    metric: { count: 10, failureLimit: -1, consecutiveSuccessLimit: 2, ...every },
    phase: 'Successful',
  },
  // count and interval
  {
    rule: 'count reached: Successful',
    measured: 'S S S',
    metric: { count: 3, ...every },
    phase: 'Successful',
  },
  {
    rule: 'count as a string',
    measured: 'S S',
    metric: { count: '3', ...every },
    phase: 'Running',
  },
  {
    rule: 'count 0 with no interval means 1',
    measured: 'S',
    metric: { count: 0 },
    phase: 'Successful',
  },
  {
    rule: 'interval only: runs indefinitely',
    measured: 'S S S S S S S S S S S S',
    metric: every,
    phase: 'Running',
  },
  {
    rule: 'interval only, run terminating: Successful',
    measured: 'S S',
    metric: every,
    terminating: true,
    phase: 'Successful',
  },
  {
    rule: 'count not reached, run terminating: Successful',
    measured: 'S',
    metric: { count: 5, ...every },
    terminating: true,
    phase: 'Successful',
  },
];

suite('metric phase (assessMetricStatus)', () => {
  for (const row of rows) {
    test(row.rule, () => {
      const m = metric(row.metric);
      const got = assessMetric(m, resultOf(row.measured), row.terminating ?? false);
      assert.equal(got.phase, row.phase);
      assert.equal(got.reason, row.reason);
    });
  }
  test('a completed metric keeps its phase, even when its counters alone would say otherwise', () => {
    // Inconclusive because consecutiveSuccessLimit was missed at count; the spec changed since.
    const decided = resultOf('S', 'm', 'Inconclusive');
    assert.equal(assessMetric(metric(), decided, false).phase, 'Inconclusive');
    const more = recordMeasurement(decided, measurement('S', 5000), false);
    assert.equal(assessMetric(metric(), more, true).phase, 'Inconclusive');
  });
});

suite('counters (runMeasurements)', () => {
  test('count is Successful + Failed + Inconclusive; errors are counted apart', () => {
    const r = resultOf('S F I E S E');
    assert.deepEqual([r.count, r.successful, r.failed, r.inconclusive, r.error], [4, 2, 1, 1, 2]);
  });
  test('consecutiveError resets on any non-error; consecutiveSuccess on anything else', () => {
    const r = resultOf('E E S S');
    assert.deepEqual([r.consecutiveError, r.consecutiveSuccess], [0, 2]);
    const r2 = resultOf('S S E E');
    assert.deepEqual([r2.consecutiveError, r2.consecutiveSuccess], [2, 0]);
  });
  test('an unfinished measurement is listed but not counted; finishing it counts once', () => {
    const running = resultOf('S R');
    assert.equal(running.count, 1);
    assert.equal(running.measurements?.length, 2);
    const done = recordMeasurement(running, measurement('F', 1000), true);
    assert.equal(done.count, 2);
    assert.equal(done.failed, 1);
    assert.equal(done.measurements?.length, 2);
  });
});
