// A measurement's phase from its value, as Argo's EvaluateResult (utils/evaluate/evaluate.go)
// and docs/features/analysis.md describe it. One row per rule.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { finishMeasurement, judge } from '../../../src/analysis/index.ts';
import type { ConditionEvaluator } from '../../../src/analysis/index.ts';
import { T0, evaluate } from '../../fixtures/analysis/runs.ts';

const OK = 'result >= 0.95';
const BAD = 'result < 0.9';

interface Row {
  readonly rule: string;
  readonly successCondition?: string;
  readonly failureCondition?: string;
  readonly result: unknown;
  readonly phase: string;
  readonly message?: RegExp;
}

const rows: readonly Row[] = [
  { rule: 'no conditions: Successful whatever the value', result: 0.1, phase: 'Successful' },
  {
    rule: 'only success, holds: Successful',
    successCondition: OK,
    result: 0.99,
    phase: 'Successful',
  },
  {
    rule: 'only success, does not hold: Failed',
    successCondition: OK,
    result: 0.5,
    phase: 'Failed',
  },
  { rule: 'only failure, holds: Failed', failureCondition: BAD, result: 0.5, phase: 'Failed' },
  {
    rule: 'only failure, does not hold: Successful',
    failureCondition: BAD,
    result: 0.99,
    phase: 'Successful',
  },
  {
    rule: 'both, success holds: Successful',
    successCondition: OK,
    failureCondition: BAD,
    result: 0.99,
    phase: 'Successful',
  },
  {
    rule: 'both, failure holds: Failed',
    successCondition: OK,
    failureCondition: BAD,
    result: 0.5,
    phase: 'Failed',
  },
  {
    rule: 'both, neither holds: Inconclusive',
    successCondition: OK,
    failureCondition: BAD,
    result: 0.92,
    phase: 'Inconclusive',
  },
  {
    rule: 'failure checked even when success holds: Failed wins',
    successCondition: 'result >= 0.95',
    failureCondition: 'result >= 0.95',
    result: 0.99,
    phase: 'Failed',
  },
  {
    rule: 'a vector result (Prometheus): the condition indexes it',
    successCondition: 'result[0] >= 0.95',
    result: [0.97],
    phase: 'Successful',
  },
  {
    rule: 'an empty vector: Error saying no data came back',
    successCondition: 'result[0] >= 0.95',
    result: [],
    phase: 'Error',
    message:
      /^could not evaluate successCondition "result\[0\] >= 0.95": metric result is nil or empty: no data returned from the metric provider$/,
  },
  {
    rule: 'a condition that is not boolean: Error "expected bool"',
    failureCondition: 'result + 1',
    result: 2,
    phase: 'Error',
    message: /^could not evaluate failureCondition "result \+ 1": expected bool, but got number$/,
  },
  {
    rule: 'an evaluator error is passed on',
    successCondition: 'no such condition',
    result: 1,
    phase: 'Error',
    message: /could not evaluate successCondition "no such condition": unknown condition/,
  },
  {
    rule: 'an evaluator that throws is an Error, not a crash',
    successCondition: 'throws',
    result: 1,
    phase: 'Error',
    message: /evaluator bug/,
  },
];

suite('measurement phase from successCondition / failureCondition', () => {
  for (const row of rows) {
    test(row.rule, () => {
      const verdict = judge(row, row.result, evaluate);
      assert.equal(verdict.phase, row.phase);
      if (row.message) assert.match(verdict.message ?? '', row.message);
      else assert.equal(verdict.message, undefined);
    });
  }
});

test('a provider error is a measurement in Error with its message, and no value', () => {
  const m = finishMeasurement(
    { successCondition: OK },
    { ok: false, message: 'Post "http://127.0.0.1:9/api/v1/query": connection refused' },
    evaluate,
    T0,
    T0 + 25,
  );
  assert.deepEqual(m, {
    phase: 'Error',
    message: 'Post "http://127.0.0.1:9/api/v1/query": connection refused',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:00.025Z',
  });
});

test('a judged measurement keeps the value text and provider metadata', () => {
  const m = finishMeasurement(
    { successCondition: 'result[0] >= 0.95' },
    { ok: true, result: [0.97], value: '[0.97]', metadata: { query: 'sum(up)' } },
    evaluate,
    T0,
    T0 + 1,
  );
  assert.equal(m.phase, 'Successful');
  assert.equal(m.value, '[0.97]');
  assert.deepEqual(m.metadata, { query: 'sum(up)' });
});

test('property: judging never throws and always gives one of the four measured phases', () => {
  const evaluator = fc.oneof(
    fc.constant<ConditionEvaluator>(() => true),
    fc.constant<ConditionEvaluator>(() => false),
    fc.constant<ConditionEvaluator>(() => new Error('bad')),
    fc.anything().map(
      (v): ConditionEvaluator =>
        () =>
          v as boolean,
    ),
    fc.anything().map((v): ConditionEvaluator => () => {
      throw v;
    }),
  );
  fc.assert(
    fc.property(
      fc.option(fc.string(), { nil: undefined }),
      fc.option(fc.string(), { nil: undefined }),
      fc.anything(),
      evaluator,
      (successCondition, failureCondition, result, ev) => {
        const v = judge({ successCondition, failureCondition }, result, ev);
        assert.ok(['Successful', 'Failed', 'Inconclusive', 'Error'].includes(v.phase));
        assert.equal(v.phase === 'Error', v.message !== undefined);
      },
    ),
  );
});
