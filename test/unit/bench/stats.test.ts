import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stats } from '../../bench/harness.ts';

test('stats uses nearest-rank percentiles over unsorted samples', () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
  assert.deepEqual(stats(values), {
    samples: 100,
    min: 1,
    p50: 50,
    p90: 90,
    p95: 95,
    p99: 99,
    max: 100,
    mean: 50.5,
  });
});

test('stats of one sample is that sample everywhere', () => {
  const s = stats([2.5]);
  assert.equal(s.p50, 2.5);
  assert.equal(s.p99, 2.5);
});

test('stats refuses an empty sample set', () => {
  assert.throws(() => stats([]), /no samples/);
});
