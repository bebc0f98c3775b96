// The prometheus provider against the real Prometheus of the test harness (issue 7 §2, §3, §8):
// the answers are what Prometheus itself computes, so the result shapes Argo hands to conditions
// (vector, scalar, matrix; NaN, ±Inf, empty) are checked against the server, not against our own
// idea of its JSON. No scrape targets: PromQL constants give every shape on an empty TSDB.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConditionEvaluator } from '../../src/analysis/expr/index.ts';
import { EgressPolicy, prometheusProvider } from '../../src/analysis/providers/index.ts';
import type { MeasureContext, SecretSource } from '../../src/analysis/providers/index.ts';
import type { ProviderOutcome } from '../../src/analysis/evaluate/index.ts';
import type { PrometheusMetric } from '../../src/api/index.ts';
import { startPrometheus } from '../prometheus/server.ts';
import type { RunningPrometheus } from '../prometheus/server.ts';

let prometheus: RunningPrometheus;
before(async () => (prometheus = await startPrometheus()));
after(() => prometheus?.stop());

const noSecrets: SecretSource = {
  secretValue: (ns, ref) => Promise.reject(new Error(`Secret "${ns}/${ref.name}" not found`)),
};
const context = (args: Record<string, string> = {}): MeasureContext => ({
  namespace: 'e2e',
  run: { name: 'run', uid: 'uid' },
  index: 1,
  args,
  secrets: noSecrets,
  signal: new AbortController().signal,
});

function measure(p: Partial<PrometheusMetric>, args?: Record<string, string>) {
  return prometheusProvider({ egress: new EgressPolicy({ allowed: ['127.0.0.0/8'] }) }).measure(
    { name: 'm', provider: { prometheus: { address: prometheus.url, query: 'up', ...p } } },
    context(args),
  );
}

function ok(o: ProviderOutcome): { result: unknown; value: string; metadata?: object } {
  assert.ok(o.ok === true, o.ok === false ? o.message : '');
  return o;
}

const condition = createConditionEvaluator();

describe('the prometheus provider against a real Prometheus', () => {
  const shapes: readonly [string, string, unknown, string][] = [
    ['a vector of one series', 'vector(0.97)', [0.97], '[0.97]'],
    [
      'a vector of two series, one number each',
      'sort(vector(1) or label_replace(vector(2), "series", "b", "", ""))',
      [1, 2],
      '[1,2]',
    ],
    ['a scalar', 'scalar(vector(42))', 42, '42'],
    ['an empty vector (no such series)', 'stepwise_no_such_metric', [], '[]'],
    ['NaN (0/0, as a canary with no traffic)', 'vector(0) / vector(0)', [NaN], '[NaN]'],
    ['+Inf', 'vector(1) / vector(0)', [Infinity], '[+Inf]'],
    ['-Inf', 'vector(-1) / vector(0)', [-Infinity], '[-Inf]'],
  ];
  for (const [name, query, result, value] of shapes) {
    it(name, async () => {
      const out = ok(await measure({ query }));
      assert.deepEqual(out.result, result);
      assert.equal(out.value, value);
    });
  }

  it('substitutes args and records the query it ran', async () => {
    const out = ok(await measure({ query: 'vector({{args.v}})' }, { v: '0.5' }));
    assert.deepEqual(out.result, [0.5]);
    assert.deepEqual(out.metadata, { resolvedPrometheusQuery: 'vector(0.5)' });
  });

  it('a rangeQuery flattens the matrix: one sample per step', async () => {
    const out = ok(
      await measure(
        {
          query: 'vector(3)',
          rangeQuery: { start: 'now() - duration("{{args.lookback}}")', end: 'now()', step: '15s' },
        },
        { lookback: '1m' },
      ),
    );
    // start..end inclusive at a 15 s step: 5 samples of the one series.
    assert.deepEqual(out.result, [3, 3, 3, 3, 3]);
  });

  it('a PromQL error is an Error with what Prometheus said', async () => {
    const out = await measure({ query: 'sum(' });
    assert.ok(out.ok === false);
    assert.match(out.message, /query failed \(HTTP 400, bad_data\)/);
  });

  it('Argo-style conditions judge what the real server answered', async () => {
    const nan = ok(await measure({ query: 'vector(0) / vector(0)' })).result;
    const empty = ok(await measure({ query: 'stepwise_no_such_metric' })).result;
    const good = ok(await measure({ query: 'vector(0.97)' })).result;
    assert.equal(condition('result[0] >= 0.95', nan), false);
    assert.equal(condition('isNaN(result[0])', nan), true);
    assert.equal(condition('all(result, # < 1)', nan), false);
    assert.equal(condition('len(result) == 0 || result[0] > 0.9', empty), true);
    assert.equal(condition('len(result) == 0 || result[0] > 0.9', good), true);
    assert.equal(condition('result[0] >= 0.95', good), true);
  });
});
