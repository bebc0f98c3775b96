// Argo's spec checks (utils/analysis/factory.go ValidateMetric / ValidateMetrics; dry-run and
// retention rules in utils/analysis/helpers.go), and the purity of the evaluation code.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analysisSpecProblems, metricProblems } from '../../../src/analysis/index.ts';
import type { Metric } from '../../../src/api/index.ts';
import { metric } from '../../fixtures/analysis/runs.ts';

const rows: readonly { rule: string; metric: Partial<Metric>; problems: string[] }[] = [
  { rule: 'defaults are valid', metric: {}, problems: [] },
  {
    rule: 'count > 1 needs an interval',
    metric: { count: 3 },
    problems: ['interval must be specified when count > 1'],
  },
  {
    rule: 'failureLimit below -1',
    metric: { failureLimit: -2 },
    problems: ['failureLimit must be >= 0, or -1 to be disabled'],
  },
  {
    rule: 'failureLimit -1 needs a consecutiveSuccessLimit',
    metric: { failureLimit: -1 },
    problems: ['failureLimit and consecutiveSuccessLimit cannot both be disabled'],
  },
  {
    rule: 'failureLimit -1 with consecutiveSuccessLimit is valid',
    metric: { failureLimit: -1, consecutiveSuccessLimit: 2, count: 3, interval: '1s' },
    problems: [],
  },
  {
    rule: 'count covers failureLimit + consecutiveSuccessLimit',
    metric: { count: 3, interval: '1s', failureLimit: 2, consecutiveSuccessLimit: 2 },
    problems: ['count (3) must be >= failureLimit + consecutiveSuccessLimit (2 + 2) if both >= 0'],
  },
  {
    rule: 'count covers inconclusiveLimit',
    metric: { count: 2, interval: '1s', inconclusiveLimit: 3 },
    problems: ['count must be >= inconclusiveLimit'],
  },
  {
    rule: 'negative consecutiveErrorLimit',
    metric: { consecutiveErrorLimit: -1 },
    problems: ['consecutiveErrorLimit must be >= 0'],
  },
  {
    rule: 'an interval that is not a duration',
    metric: { interval: '5 minutes' },
    problems: [
      'interval must be a duration such as "30s", "5m" or "1h30m" (unknown unit " minutes"), got "5 minutes"',
    ],
  },
  {
    rule: 'a limit string that is not a number (an unresolved arg)',
    metric: { failureLimit: '{{args.limit}}' },
    problems: ['failureLimit must be an integer, got "{{args.limit}}"'],
  },
  { rule: 'no provider', metric: { provider: {} }, problems: ['no provider specified'] },
  {
    rule: 'two providers',
    metric: { provider: { web: { url: 'http://x' }, job: { spec: {} } } },
    problems: ['multiple providers specified'],
  },
  {
    rule: 'a successCondition that does not parse, with the column of the fault',
    metric: { successCondition: 'result[0] >= ' },
    problems: ['successCondition "result[0] >= ": unexpected end of expression at column 14'],
  },
  {
    rule: 'a failureCondition naming a variable Argo does not give conditions',
    metric: { failureCondition: 'foo > 1' },
    problems: ['failureCondition "foo > 1": unknown name foo at column 1'],
  },
  {
    rule: 'an {{args.x}} placeholder stands in for a value; columns after it stay true',
    metric: { successCondition: 'result[0] >= {{args.min}} &&& true' },
    problems: [
      'successCondition "result[0] >= {{args.min}} &&& true": unexpected character "&" at column 29',
    ],
  },
  {
    rule: 'conditions with placeholders that parse are valid',
    metric: { successCondition: 'len(result) == 0 || result[0] >= {{ args.min }}' },
    problems: [],
  },
];

suite('metric checks (ValidateMetric)', () => {
  for (const row of rows) {
    test(row.rule, () => assert.deepEqual(metricProblems(metric(row.metric)), row.problems));
  }
});

test('spec checks: no metrics, duplicate names, dry-run and retention rules must match', () => {
  assert.deepEqual(analysisSpecProblems({ metrics: [] }), ['no metrics specified']);
  assert.deepEqual(
    analysisSpecProblems({
      metrics: [metric({ name: 'a' }), metric({ name: 'a' }), metric({ name: 'success-rate' })],
      dryRun: [{ metricName: 'success' }, { metricName: 'latency' }, { metricName: '(' }],
      measurementRetention: [
        { metricName: 'a', limit: 20 },
        { metricName: 'nope', limit: 1 },
      ],
    }),
    [
      "metrics[1]: duplicate name 'a'",
      "dryRun[1]: Rule didn't match any metric name(s)",
      'dryRun[2]: invalid regular expression "(": missing closing ): `(`',
      "measurementRetention[1]: Rule didn't match any metric name(s)",
    ],
  );
});

test('evaluation code is pure: evaluate/ and expr/ import only src/api, each other, and no clock', () => {
  const src = join(import.meta.dirname, '..', '..', '..', 'src', 'analysis');
  // regex.ts runs patterns on re2js, an RE2 port that only computes (no I/O, no clock).
  const allowed: Readonly<Record<string, readonly string[]>> = {
    evaluate: ['../../api/index.ts', '../expr/index.ts'],
    expr: ['../../api/index.ts', 're2js'],
  };
  const bad: string[] = [];
  for (const [part, imports] of Object.entries(allowed)) {
    for (const file of readdirSync(join(src, part))) {
      const text = readFileSync(join(src, part, file), 'utf8');
      for (const m of text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)) {
        const spec = m[1] ?? '';
        if (!spec.startsWith('./') && !imports.includes(spec)) bad.push(`${part}/${file}: ${spec}`);
      }
      if (/\bDate\.now\(|new Date\(\)|process\.|Math\.random/.test(text))
        bad.push(`${part}/${file}: clock/env/random`);
    }
  }
  assert.deepEqual(bad, []);
});
