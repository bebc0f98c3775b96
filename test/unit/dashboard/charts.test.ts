// An AnalysisRun's metrics as charts: numbers out of measured values, thresholds out of plain
// comparisons only, failed points kept with their phase, the resolved query and the last value.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Measurement } from '../../../src/api/analysis.ts';
import { metricCharts, numberOf, thresholdOf } from '../../../src/dashboard/model/charts.ts';
import { analysisRun, ago, NOW } from '../cli/fixtures.ts';

describe('analysis charts', () => {
  it('reads the first number of a value, and nothing else', () => {
    assert.equal(numberOf('0.97'), 0.97);
    assert.equal(numberOf('[0.97, 3]'), 0.97);
    assert.equal(numberOf('[[12]]'), 12);
    for (const v of [undefined, '', '[]', 'NaN', '"0.9"', '{"a":1}', 'up', '[null]']) {
      assert.equal(numberOf(v), undefined, String(v));
    }
  });

  it('draws a threshold for a plain comparison of the result with a number, either way round', () => {
    assert.deepEqual(thresholdOf('success', 'result[0] >= 0.95'), {
      kind: 'success',
      op: '>=',
      value: 0.95,
      text: 'result[0] >= 0.95',
    });
    assert.equal(thresholdOf('failure', ' 100 < result ')?.op, '>');
    assert.equal(thresholdOf('failure', '1e3 <= result[0]')?.value, 1000);
    for (const c of [
      'result[0] >= 0.95 && result[1] < 2',
      'len(result) > 0',
      'result == 1',
      undefined,
    ]) {
      assert.equal(thresholdOf('success', c), undefined, String(c));
    }
  });

  it('charts each metric: points with their phase, thresholds, query, last value', () => {
    const values = ['[0.99]', '[0.91]', 'not a number', '[0.97]'];
    const measurements = values.map((value, i): Measurement => ({
      phase: value === '[0.91]' ? 'Failed' : 'Successful',
      value,
      finishedAt: ago(40 - i * 10),
      metadata: { resolvedPrometheusQuery: `sum(up{i="${i}"})` },
    }));
    const [chart, ...rest] = metricCharts(
      analysisRun('web-2-1', 'Running', [{ name: 'success-rate', phase: 'Running', measurements }]),
    );
    assert.equal(rest.length, 0);
    assert.deepEqual(chart?.points, [
      { at: NOW - 40_000, value: 0.99, phase: 'Successful' },
      { at: NOW - 30_000, value: 0.91, phase: 'Failed' },
      { at: NOW - 10_000, value: 0.97, phase: 'Successful' },
    ]);
    assert.deepEqual(
      chart?.thresholds.map((t) => [t.kind, t.op, t.value]),
      [['success', '>=', 0.95]],
    );
    assert.equal(chart?.query, 'sum(up{i="3"})');
    assert.equal(chart?.last, '[0.97]');
    assert.equal(chart?.measurements, 4);
  });

  it('keeps the newest points only, at most 500', () => {
    const measurements = Array.from({ length: 1000 }, (_, i): Measurement => ({
      phase: 'Successful',
      value: String(i),
      finishedAt: new Date(NOW + i * 1000).toISOString(),
    }));
    const [chart] = metricCharts(
      analysisRun('web-2-1', 'Running', [{ name: 'm', phase: 'Running', measurements }]),
    );
    assert.equal(chart?.points.length, 500);
    assert.equal(chart?.points[0]?.value, 500);
    assert.equal(chart?.query, 'up');
  });
});
