// Outcomes of a pass go back on the queue the way controller-runtime puts them: success forgets,
// requeueAfter schedules, an error backs off, a TerminalError is dropped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Key, Reconciler, Result } from '../../../src/controller/reconciler.ts';
import { TerminalError } from '../../../src/controller/reconciler.ts';
import { runWorkers } from '../../../src/controller/worker.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import { RateLimitingQueue } from '../../../src/kube/workqueue.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

function harness(outcomes: (() => Result)[]) {
  const clock = new FakeClock(0);
  const queue = new RateLimitingQueue<Key>({ clock });
  const calls: number[] = [];
  let i = 0;
  const reconciler: Reconciler = {
    reconcile: () => {
      calls.push(clock.now());
      const next = outcomes[Math.min(i++, outcomes.length - 1)];
      return Promise.resolve().then(() => (next ? next() : {}));
    },
  };
  const results: string[] = [];
  const done = runWorkers(queue, reconciler, 2, silentLogger, new AbortController().signal, {
    observe: (_s, r) => results.push(r),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { clock, queue, calls, results, done, settle };
}

describe('workers', () => {
  it('requeueAfter brings the key back exactly then', async () => {
    const h = harness([() => ({ requeueAfterMs: 5000 }), () => ({})]);
    h.queue.add('ns/a');
    await h.settle();
    assert.deepEqual(h.calls, [0]);
    h.clock.advance(4999);
    await h.settle();
    assert.deepEqual(h.calls, [0]);
    h.clock.advance(1);
    await h.settle();
    assert.deepEqual(h.calls, [0, 5000]);
    assert.deepEqual(h.results, ['requeue', 'success']);
    await h.queue.shutDown();
    await h.done;
  });

  it('errors back off exponentially; success resets the backoff', async () => {
    const boom = () => {
      throw new Error('boom');
    };
    const h = harness([boom, boom, () => ({})]);
    h.queue.add('ns/a');
    await h.settle();
    assert.equal(h.queue.numRequeues('ns/a'), 1);
    h.clock.advance(5);
    await h.settle();
    assert.equal(h.calls.length, 2);
    h.clock.advance(9);
    await h.settle();
    assert.equal(h.calls.length, 2, 'second retry waits 10 ms');
    h.clock.advance(1);
    await h.settle();
    assert.equal(h.calls.length, 3);
    assert.equal(h.queue.numRequeues('ns/a'), 0);
    assert.deepEqual(h.results, ['error', 'error', 'success']);
    await h.queue.shutDown();
    await h.done;
  });

  it('a TerminalError is not retried', async () => {
    const h = harness([
      () => {
        throw new TerminalError('invalid for good');
      },
    ]);
    h.queue.add('ns/a');
    await h.settle();
    h.clock.advance(60_000);
    await h.settle();
    assert.equal(h.calls.length, 1);
    assert.deepEqual(h.results, ['terminal']);
    await h.queue.shutDown();
    await h.done;
  });
});
