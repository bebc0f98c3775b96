// How the plugin shows AnalysisRuns: in get rollout's tree, and one run in detail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnalysisRun, MetricResult } from '../../../src/api/analysis.ts';
import { analysisRunInfo } from '../../../src/cli/render/analysis.ts';
import { renderTree } from '../../../src/cli/render/tree.ts';
import { NOW, ago, analysisRun, canaryRS, pausedStatus, rollout, stableRS } from './fixtures.ts';
import { infoOf, renderRun } from './views.ts';

const failed: MetricResult = {
  name: 'success-rate',
  phase: 'Failed',
  failed: 1,
  successful: 2,
  measurements: [
    { phase: 'Successful', value: '[0.99]', startedAt: ago(90), finishedAt: ago(90) },
    { phase: 'Failed', value: '[0.42]', startedAt: ago(30), finishedAt: ago(30) },
  ],
};
const erroring: MetricResult = {
  name: 'latency',
  phase: 'Error',
  error: 5,
  measurements: [
    { phase: 'Error', message: 'Prometheus at http://prom:9090 unreachable: ECONNREFUSED' },
  ],
};
const dry: MetricResult = {
  name: 'p99',
  phase: 'Failed',
  failed: 1,
  dryRun: true,
  measurements: [{ phase: 'Failed', value: 'NaN' }],
};

describe('analysisRunInfo', () => {
  const rows: readonly [
    string,
    AnalysisRun,
    { health: string; counts: string; latest: string[] },
  ][] = [
    [
      'a failed run: counts and the failing value',
      analysisRun('r', 'Failed', [failed]),
      { health: 'Degraded', counts: '✔ 2,✖ 1', latest: ['[0.42]'] },
    ],
    [
      'an erroring metric shows its message',
      analysisRun('r', 'Error', [erroring]),
      {
        health: 'Degraded',
        counts: '⚠ 5',
        latest: ['Prometheus at http://prom:9090 unreachable: ECONNREFUSED'],
      },
    ],
    [
      'dry-run metrics do not count',
      analysisRun('r', 'Successful', [dry]),
      { health: 'Healthy', counts: '', latest: ['NaN'] },
    ],
    [
      'inconclusive waits for a person',
      analysisRun('r', 'Inconclusive', [{ name: 'm', phase: 'Inconclusive', inconclusive: 1 }]),
      { health: 'Paused', counts: '? 1', latest: [''] },
    ],
    [
      'no status yet: Pending',
      { ...analysisRun('r', 'Pending', []), status: undefined },
      { health: 'Progressing', counts: '', latest: [] },
    ],
  ];
  for (const [name, run, want] of rows) {
    it(name, () => {
      const info = analysisRunInfo(run);
      assert.equal(info.health, want.health);
      assert.equal(info.counts, want.counts);
      assert.deepEqual(
        info.metrics.map((m) => m.latest),
        want.latest,
      );
    });
  }

  it('a very long value is shortened to one line', () => {
    const long = {
      ...failed,
      measurements: [{ phase: 'Failed' as const, value: `[${'0.1,'.repeat(40)}0.1]` }],
    };
    const [m] = analysisRunInfo(analysisRun('r', 'Failed', [long])).metrics;
    assert.equal(m?.latest.length, 60);
    assert.ok(m?.latest.endsWith('…'));
  });
});

describe('get rollout shows the runs of each revision', () => {
  it('newest run first, each metric with phase and latest value; runs of other Rollouts left out', () => {
    const runs = [
      analysisRun('web-c4n4ry-2-1', 'Failed', [failed, dry], { created: 30 }),
      analysisRun(
        'web-c4n4ry-2',
        'Running',
        [{ name: 'bg', phase: 'Running', measurements: [{ phase: 'Successful', value: '[1]' }] }],
        { created: 120 },
      ),
      analysisRun('other-run', 'Failed', [failed], { owner: 'uid-other' }),
    ];
    const info = infoOf(rollout(pausedStatus), [stableRS, canaryRS], [], NOW, runs);
    const tree = renderTree(info, { now: NOW });
    assert.match(tree, /α web-c4n4ry-2-1 +AnalysisRun +✖ Failed +30s +✔ 2,✖ 1\n/);
    assert.match(tree, /success-rate +Metric +✖ Failed +\[0\.42\]/);
    assert.match(tree, /p99 \(dry run\) +Metric +✖ Failed +NaN/);
    assert.ok(tree.indexOf('web-c4n4ry-2-1') < tree.indexOf('web-c4n4ry-2 '), tree);
    assert.ok(!tree.includes('other-run'));
  });
});

describe('get analysisrun', () => {
  it('shows args (Secrets hidden), each metric, its conditions, limits and measurements', () => {
    const text = renderRun(analysisRun('web-c4n4ry-2-1', 'Failed', [failed, erroring]), NOW);
    assert.match(text, /^Name: +web-c4n4ry-2-1\nNamespace: +shop\nStatus: +✖ Failed\n/);
    assert.match(text, /canary-hash: +c4n4ry/);
    assert.match(text, /token: +<secret>/);
    assert.match(text, /Metric: +success-rate\n +Status: +✖ Failed\n +Provider: +prometheus/);
    assert.match(text, /Success: +result\[0\] >= 0\.95/);
    assert.match(text, /Limits: +interval 30s, failureLimit 0/);
    assert.match(text, /✖ Failed +\[0\.42\]/);
    assert.match(text, /✖ Error +Prometheus|unreachable: ECONNREFUSED/);
  });

  it('a metric without measurements says so', () => {
    const text = renderRun(analysisRun('r', 'Running', [{ name: 'm', phase: 'Pending' }]), NOW);
    assert.match(text, /\(no measurements yet\)/);
  });
});
