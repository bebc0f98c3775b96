// An AnalysisRun's phase from its metrics: Argo's assessRunStatus, IsTerminating,
// garbageCollectMeasurements and calculateNextReconcileTime (analysis/analysis.go,
// utils/analysis/helpers.go) and docs/features/analysis.md ("Dry-Run Mode", "Measurements
// Retention"). Each test names the rule it pins.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import {
  dueMeasurements,
  reconcileRun,
  type RunInput,
  type TakenMeasurement,
} from '../../../src/analysis/index.ts';
import type {
  AnalysisPhase,
  AnalysisRunSpec,
  Metric,
  MetricResult,
} from '../../../src/api/index.ts';
import { T0, at, deepFreeze, measurement, metric, resultOf } from '../../fixtures/analysis/runs.ts';

const every = { interval: '10s' };

function run(
  metrics: Partial<Metric>[],
  results: MetricResult[] = [],
  spec: Partial<AnalysisRunSpec> = {},
  phase?: AnalysisPhase,
): RunInput {
  return deepFreeze({
    spec: { metrics: metrics.map((m) => metric(m)), ...spec },
    status: { startedAt: at(0), metricResults: results, ...(phase ? { phase } : {}) },
  });
}

const took = (metricName: string, letter: string, ms: number): TakenMeasurement => ({
  metricName,
  kind: 'measure',
  measurement: measurement(letter, ms),
});

interface Row {
  readonly rule: string;
  readonly input: RunInput;
  readonly phase: AnalysisPhase;
  readonly message?: string;
}

const rows: readonly Row[] = [
  {
    rule: 'every metric Successful: Successful',
    input: run([{ name: 'a' }, { name: 'b' }], [resultOf('S', 'a'), resultOf('S', 'b')]),
    phase: 'Successful',
  },
  {
    rule: 'a metric still open: Running, with no message, even next to a Failed one',
    input: run(
      [{ name: 'a' }, { name: 'b', count: 3, ...every }],
      [resultOf('F', 'a'), resultOf('S', 'b')],
    ),
    phase: 'Running',
    message: undefined,
  },
  {
    rule: 'a metric not started yet (initialDelay): Running',
    input: run([{ name: 'a' }, { name: 'b', initialDelay: '1m' }], [resultOf('S', 'a')]),
    phase: 'Running',
  },
  {
    rule: 'worst wins: Failed over Successful, with the limit in the message',
    input: run(
      [{ name: 'a' }, { name: 'success-rate', count: 5, failureLimit: 3, ...every }],
      [resultOf('S', 'a'), resultOf('F F F F', 'success-rate')],
    ),
    phase: 'Failed',
    message: 'Metric "success-rate" assessed Failed due to failed (4) > failureLimit (3)',
  },
  {
    rule: 'worst wins: Error over Inconclusive',
    input: run(
      [{ name: 'a' }, { name: 'b', consecutiveErrorLimit: 0 }],
      [resultOf('I', 'a'), resultOf('E', 'b')],
    ),
    phase: 'Error',
    message: 'Metric "b" assessed Error due to consecutiveErrors (1) > consecutiveErrorLimit (0)',
  },
  {
    rule: 'worst wins: Failed over Error',
    input: run(
      [{ name: 'a', consecutiveErrorLimit: 0 }, { name: 'b' }],
      [resultOf('E', 'a'), resultOf('F', 'b')],
    ),
    phase: 'Failed',
  },
  {
    rule: 'Inconclusive when that is the worst (the Rollout pauses on it)',
    input: run([{ name: 'a' }, { name: 'b' }], [resultOf('S', 'a'), resultOf('I', 'b')]),
    phase: 'Inconclusive',
  },
  {
    rule: 'a dry-run metric that fails does not fail the run',
    input: run([{ name: 'a' }, { name: 'dry' }], [resultOf('S', 'a'), resultOf('F', 'dry')], {
      dryRun: [{ metricName: 'dry' }],
    }),
    phase: 'Successful',
  },
  {
    rule: 'every metric in dry run (".*"): Successful whatever they measure',
    input: run([{ name: 'a' }, { name: 'b' }], [resultOf('F', 'a'), resultOf('I', 'b')], {
      dryRun: [{ metricName: '.*' }],
    }),
    phase: 'Successful',
  },
  {
    rule: 'terminate before any measurement: Successful, "Run Terminated"',
    input: run([{ name: 'a', ...every }], [], { terminate: true }),
    phase: 'Successful',
    message: 'Run Terminated',
  },
  {
    rule: 'terminate an indefinite metric: Successful',
    input: run([{ name: 'a', ...every }], [resultOf('S S S', 'a')], { terminate: true }),
    phase: 'Successful',
    message: 'Run Terminated',
  },
  {
    rule: 'terminate keeps a failure already seen',
    input: run([{ name: 'a', ...every, failureLimit: 0 }], [resultOf('S F', 'a')], {
      terminate: true,
    }),
    phase: 'Failed',
  },
  {
    rule: 'a metric Failed in an earlier pass makes the run terminate: open metrics end Successful',
    input: run(
      [{ name: 'a', ...every }, { name: 'b' }],
      [resultOf('S', 'a'), resultOf('F', 'b', 'Failed')],
    ),
    phase: 'Failed',
  },
  {
    rule: 'an invalid spec ends the run in Error at once',
    input: run([{ name: 'a', count: 3 }]),
    phase: 'Error',
    message: 'Analysis spec invalid: metrics[0]: interval must be specified when count > 1',
  },
  {
    rule: 'a dryRun rule that matches no metric is an invalid spec',
    input: run([{ name: 'a' }], [], { dryRun: [{ metricName: 'latency' }] }),
    phase: 'Error',
    message: "Analysis spec invalid: dryRun[0]: Rule didn't match any metric name(s)",
  },
];

suite('run phase (assessRunStatus)', () => {
  for (const row of rows) {
    test(row.rule, () => {
      const { status } = reconcileRun(row.input, [], T0 + 60_000);
      assert.equal(status.phase, row.phase);
      if ('message' in row) assert.equal(status.message, row.message);
    });
  }
});

test('the measured error message is carried into the run message', () => {
  const failing = {
    ...resultOf('E E E E', 'prom'),
  };
  const input = run([{ name: 'prom', count: 2, ...every }], [failing]);
  const taken = {
    metricName: 'prom',
    kind: 'measure' as const,
    measurement: measurement('E', 40_000, { message: 'connect ECONNREFUSED 127.0.0.1:9090' }),
  };
  const { status } = reconcileRun(input, [taken], T0 + 40_000);
  assert.equal(status.phase, 'Error');
  assert.equal(
    status.message,
    'Metric "prom" assessed Error due to consecutiveErrors (5) > consecutiveErrorLimit (4): ' +
      '"Error Message: connect ECONNREFUSED 127.0.0.1:9090"',
  );
  assert.equal(status.metricResults?.[0]?.message, 'connect ECONNREFUSED 127.0.0.1:9090');
});

test('a completed run never changes', () => {
  const input = run([{ name: 'a' }], [resultOf('F', 'a', 'Failed')], {}, 'Failed');
  const out = reconcileRun(input, [took('a', 'S', 1000)], T0 + 1000);
  assert.equal(out.status, input.status);
  assert.deepEqual(out.events, []);
  assert.deepEqual(dueMeasurements(input, T0 + 99_000), []);
});

test('summaries: the run counts metrics that are not dry runs, dryRunSummary the others', () => {
  const input = run(
    [{ name: 'a' }, { name: 'b', consecutiveErrorLimit: 0 }, { name: 'dry1' }, { name: 'dry2' }],
    [resultOf('S', 'a'), resultOf('E', 'b'), resultOf('F', 'dry1'), resultOf('S', 'dry2')],
    { dryRun: [{ metricName: 'dry' }] },
  );
  const { status } = reconcileRun(input, [], T0);
  assert.deepEqual(status.runSummary, {
    count: 2,
    successful: 1,
    failed: 0,
    inconclusive: 0,
    error: 1,
  });
  assert.deepEqual(status.dryRunSummary, {
    count: 2,
    successful: 1,
    failed: 1,
    inconclusive: 0,
    error: 0,
  });
  const dry = status.metricResults?.find((r) => r.name === 'dry1');
  assert.equal(dry?.phase, 'Failed');
  assert.equal(dry?.message, 'Metric assessed Failed due to failed (1) > failureLimit (0)');
});

suite('measurement retention', () => {
  const twelve = 'S S S S S S S S S S S S';
  test('the last 10 measurements are kept by default; the counters keep counting', () => {
    const input = run([{ name: 'a', ...every }], [resultOf(twelve, 'a')]);
    const r = reconcileRun(input, [], T0 + 12_000).status.metricResults?.[0];
    assert.equal(r?.measurements?.length, 10);
    assert.equal(r?.measurements?.[0]?.startedAt, at(2000), 'the oldest two are dropped');
    assert.equal(r?.count, 12);
  });
  test('measurementRetention[].limit keeps a different number', () => {
    const input = run([{ name: 'a', ...every }], [resultOf(twelve, 'a')], {
      measurementRetention: [{ metricName: 'a', limit: 3 }],
    });
    assert.equal(reconcileRun(input, [], T0).status.metricResults?.[0]?.measurements?.length, 3);
  });
  test('measurementRetention limit 0 keeps the default 10', () => {
    const input = run([{ name: 'a', ...every }], [resultOf(twelve, 'a')], {
      measurementRetention: [{ metricName: '.*', limit: 0 }],
    });
    assert.equal(reconcileRun(input, [], T0).status.metricResults?.[0]?.measurements?.length, 10);
  });
});

suite('a run from start to verdict', () => {
  test('first pass: startedAt set, every metric due, a new result per measurement', () => {
    const input = deepFreeze({ spec: { metrics: [metric({ name: 'a', count: 2, ...every })] } });
    const due = dueMeasurements(input, T0);
    assert.deepEqual(
      due.map((d) => [d.metric.name, d.kind]),
      [['a', 'measure']],
    );
    const out = reconcileRun(input, [took('a', 'S', 0)], T0);
    assert.equal(out.status.startedAt, at(0));
    assert.equal(out.status.phase, 'Running');
    assert.equal(out.status.metricResults?.[0]?.count, 1);
    assert.equal(out.requeueAt, T0 + 10_000, 'next measurement one interval later');
  });
  test('a metric that fails while another is open: Running, then Failed on the next pass', () => {
    const input = run(
      [
        { name: 'a', count: 1 },
        { name: 'b', ...every },
      ],
      [resultOf('S', 'b')],
    );
    const first = reconcileRun(input, [took('a', 'F', 5000)], T0 + 5000);
    assert.equal(first.status.phase, 'Running');
    assert.equal(first.requeueAt, T0 + 5000, 'terminating: look again at once');
    assert.deepEqual(
      first.events.map((e) => [e.type, e.reason]),
      [['Warning', 'MetricFailed']],
    );
    const next = deepFreeze({ spec: input.spec, status: first.status });
    assert.deepEqual(dueMeasurements(next, T0 + 5000), [], 'nothing new while terminating');
    const second = reconcileRun(next, [], T0 + 5000);
    assert.equal(second.status.phase, 'Failed');
    assert.equal(second.status.completedAt, at(5000));
    assert.equal(second.requeueAt, undefined);
    assert.deepEqual(
      second.events.map((e) => [e.type, e.reason]),
      [
        ['Normal', 'MetricSuccessful'],
        ['Warning', 'AnalysisRunFailed'],
      ],
    );
  });
  test('terminate with a measurement in flight: it is terminated, and "Metric Terminated" noted', () => {
    const input = run([{ name: 'job', ...every }], [resultOf('S R', 'job')], { terminate: true });
    const due = dueMeasurements(input, T0 + 2000);
    assert.deepEqual(
      due.map((d) => d.kind),
      ['terminate'],
    );
    assert.equal(due[0]?.inFlight?.phase, 'Running');
    const out = reconcileRun(
      input,
      [{ metricName: 'job', kind: 'terminate', measurement: measurement('S', 1000) }],
      T0 + 2000,
    );
    const r = out.status.metricResults?.[0];
    assert.equal(r?.measurements?.length, 2, 'the in-flight measurement is replaced');
    assert.equal(r?.measurements?.[1]?.message, 'Metric Terminated');
    assert.equal(out.status.phase, 'Successful');
    assert.equal(out.status.message, 'Run Terminated');
  });
  test("requeue: the earliest of the metrics' next measurements and initial delays", () => {
    const input = run(
      [
        { name: 'a', ...every },
        { name: 'b', interval: '3s' },
        { name: 'c', initialDelay: '2s' },
      ],
      [resultOf('S', 'a'), resultOf('S', 'b')],
    );
    assert.equal(reconcileRun(input, [], T0 + 1000).requeueAt, T0 + 2000);
  });
});
