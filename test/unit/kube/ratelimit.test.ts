import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BucketRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
} from '../../../src/kube/ratelimit.ts';
import { MinHeap } from '../../../src/kube/heap.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

describe('exponential backoff', () => {
  test('5 ms × 2 per failure, capped at 10 s, per key', () => {
    const l = new ExponentialBackoffRateLimiter<string>();
    const a = Array.from({ length: 13 }, () => l.when('a'));
    assert.deepEqual(a, [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10_000, 10_000]);
    assert.equal(l.when('b'), 5, 'keys are independent');
    assert.equal(l.numRequeues('a'), 13);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(l.when('a'), 5);
  });

  test('never exceeds the cap, however many failures', () => {
    const l = new ExponentialBackoffRateLimiter<string>({ baseMs: 5, maxMs: 10_000 });
    for (let i = 0; i < 2000; i++) assert.ok(l.when('k') <= 10_000);
  });

  test('rejects nonsense options', () => {
    assert.throws(() => new ExponentialBackoffRateLimiter({ baseMs: 0 }), RangeError);
    assert.throws(() => new ExponentialBackoffRateLimiter({ baseMs: 10, maxMs: 5 }), RangeError);
  });
});

describe('token bucket', () => {
  test('burst passes at once, then qps', () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter<string>(clock, { qps: 10, burst: 2 });
    assert.deepEqual([l.when('a'), l.when('b'), l.when('c'), l.when('d')], [0, 0, 100, 200]);
    clock.advance(1000);
    assert.equal(l.when('e'), 0, 'tokens refill over time');
  });

  test('max-of takes the longest delay and forgets in all', () => {
    const clock = new FakeClock();
    const l = new MaxOfRateLimiter<string>(
      new ExponentialBackoffRateLimiter(),
      new BucketRateLimiter(clock, { qps: 1, burst: 1 }),
    );
    assert.equal(l.when('a'), 5);
    assert.equal(l.when('a'), 1000);
    assert.equal(l.numRequeues('a'), 2);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
  });
});

test('min-heap pops in order', () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), (xs) => {
      const h = new MinHeap<number>((a, b) => a < b);
      for (const x of xs) h.push(x);
      const out: number[] = [];
      for (let x = h.pop(); x !== undefined; x = h.pop()) out.push(x);
      assert.deepEqual(
        out,
        [...xs].sort((a, b) => a - b),
      );
    }),
  );
});
