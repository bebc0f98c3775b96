import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimitingQueue, type QueueMetrics } from '../../../src/kube/workqueue.ts';
import { ExponentialBackoffRateLimiter } from '../../../src/kube/ratelimit.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';

type K = `${string}/${string}`;

function setup() {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<K>({ clock });
  return { clock, q };
}

/** Starts a get and reports whether it resolved, without blocking the test. */
function pending(q: RateLimitingQueue<K>) {
  const state: { done: boolean; key: K | undefined } = { done: false, key: undefined };
  void q.get().then((k) => {
    state.done = true;
    state.key = k;
  });
  return state;
}

describe('work queue: queue, dirty, processing', () => {
  test('hands out keys in order and collapses duplicate adds', async () => {
    const { q } = setup();
    q.add('ns/a');
    q.add('ns/b');
    q.add('ns/a');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'ns/a');
    assert.equal(await q.get(), 'ns/b');
    assert.equal(q.len(), 0);
  });

  test('a get waits for the next add', async () => {
    const { q } = setup();
    const g = pending(q);
    await flush();
    assert.equal(g.done, false);
    q.add('ns/a');
    await flush();
    assert.deepEqual(g, { done: true, key: 'ns/a' });
  });

  test('adds while in flight wait for done and collapse into one more pass', async () => {
    const { q } = setup();
    q.add('ns/a');
    const k = await q.get();
    assert.equal(k, 'ns/a');
    q.add('ns/a');
    q.add('ns/a');
    q.add('ns/a');
    assert.equal(q.len(), 0, 'an in-flight key is not queued');
    const g = pending(q);
    await flush();
    assert.equal(g.done, false, 'a second worker never gets the in-flight key');
    q.done('ns/a');
    await flush();
    assert.deepEqual(g, { done: true, key: 'ns/a' });
    q.done('ns/a');
    assert.equal(q.len(), 0, 'exactly one extra pass');
  });

  test('done without a new add does not requeue', async () => {
    const { q } = setup();
    q.add('ns/a');
    q.done((await q.get()) as K);
    assert.equal(q.len(), 0);
  });
});

describe('work queue: addAfter', () => {
  test('a delayed key appears at its deadline, not before', async () => {
    const { q, clock } = setup();
    q.addAfter('ns/a', 100);
    assert.equal(q.len(), 0);
    clock.advance(99);
    assert.equal(q.len(), 0);
    clock.advance(1);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'ns/a');
  });

  test('ms <= 0 adds at once', () => {
    const { q, clock } = setup();
    q.addAfter('ns/a', 0);
    q.addAfter('ns/b', -5);
    assert.equal(q.len(), 2);
    assert.equal(clock.pending(), 0);
  });

  test('the earliest deadline wins, and the key fires once', () => {
    const { q, clock } = setup();
    q.addAfter('ns/a', 100);
    q.addAfter('ns/a', 50);
    q.addAfter('ns/a', 70);
    clock.advance(50);
    assert.equal(q.len(), 1);
    clock.advance(100);
    assert.equal(q.len(), 1, 'the superseded deadlines add nothing');
    assert.equal(clock.pending(), 0);
  });

  test('one timer, armed for the earliest deadline; none when nothing waits', () => {
    const { q, clock } = setup();
    q.addAfter('ns/a', 300);
    q.addAfter('ns/b', 100);
    q.addAfter('ns/c', 200);
    assert.deepEqual(clock.pendingDelays(), [100]);
    clock.advance(100);
    assert.deepEqual(clock.pendingDelays(), [100]);
    clock.advance(100);
    assert.deepEqual(clock.pendingDelays(), [100]);
    clock.advance(100);
    assert.equal(clock.pending(), 0);
    assert.equal(q.len(), 3);
  });

  test('an earlier key re-arms the single timer', () => {
    const { q, clock } = setup();
    q.addAfter('ns/a', 1000);
    q.addAfter('ns/b', 10);
    assert.deepEqual(clock.pendingDelays(), [10]);
  });

  test('a dirty key is not scheduled: the pending pass re-derives its timers', () => {
    const { q, clock } = setup();
    q.add('ns/a');
    q.addAfter('ns/a', 100);
    assert.equal(clock.pending(), 0);
  });

  test("a worker's requeueAfter for the key it holds is kept, before or after done", async () => {
    const { q, clock } = setup();
    q.add('ns/a');
    q.add('ns/b');
    const a = (await q.get()) as K;
    const b = (await q.get()) as K;
    q.addAfter(a, 100);
    q.done(a);
    q.done(b);
    q.addAfter(b, 100);
    clock.advance(100);
    assert.equal(q.len(), 2);
  });

  test('a delayed key in flight when it fires gets one more pass after done', async () => {
    const { q, clock } = setup();
    q.add('ns/a');
    const k = (await q.get()) as K;
    q.addAfter(k, 10);
    clock.advance(10);
    assert.equal(q.len(), 0);
    q.done(k);
    assert.equal(q.len(), 1);
  });
});

describe('work queue: rate limiting', () => {
  test('addRateLimited backs off 5 ms doubling, capped at 10 s; forget resets', async () => {
    const { q, clock } = setup();
    const delays: number[] = [];
    for (let i = 0; i < 14; i++) {
      q.addRateLimited('ns/a');
      delays.push(clock.pendingDelays()[0] ?? -1);
      clock.advance(delays.at(-1) ?? 0);
      assert.equal(q.len(), 1);
      q.done((await q.get()) as K);
    }
    assert.deepEqual(
      delays,
      [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10_000, 10_000, 10_000],
    );
    assert.equal(q.numRequeues('ns/a'), 14);
    q.forget('ns/a');
    assert.equal(q.numRequeues('ns/a'), 0);
  });

  test('a custom limiter is used', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<K>({
      clock,
      rateLimiter: new ExponentialBackoffRateLimiter({ baseMs: 1000, maxMs: 2000 }),
    });
    q.addRateLimited('ns/a');
    assert.deepEqual(clock.pendingDelays(), [1000]);
  });
});

describe('work queue: shutDown', () => {
  test('waiting and later gets resolve undefined; adds are ignored; timers are cancelled', async () => {
    const { q, clock } = setup();
    const g = pending(q);
    q.addAfter('ns/later', 100);
    await q.shutDown();
    await flush();
    assert.deepEqual(g, { done: true, key: undefined });
    assert.equal(clock.pending(), 0);
    q.add('ns/a');
    q.addAfter('ns/b', 5);
    q.addRateLimited('ns/c');
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), undefined);
    assert.equal(q.shuttingDown, true);
  });

  test('queued keys are dropped at shutdown', async () => {
    const { q } = setup();
    q.add('ns/a');
    await q.shutDown();
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), undefined);
  });

  test('drain waits for keys in flight', async () => {
    const { q } = setup();
    q.add('ns/a');
    q.add('ns/b');
    const a = (await q.get()) as K;
    const b = (await q.get()) as K;
    let drained = false;
    const p = q.shutDown({ drain: true }).then(() => (drained = true));
    q.done(a);
    await flush();
    assert.equal(drained, false);
    q.done(b);
    await p;
    assert.equal(drained, true);
  });

  test('drain with nothing in flight resolves at once', async () => {
    const { q } = setup();
    await q.shutDown({ drain: true });
  });
});

describe('work queue: metrics', () => {
  test('reports depth, adds, queue latency, work duration and retries', async () => {
    const clock = new FakeClock();
    const seen = { depth: [] as number[], adds: 0, latency: [] as number[], work: [] as number[] };
    let retries = 0;
    const metrics: QueueMetrics = {
      depth: (n) => seen.depth.push(n),
      added: () => seen.adds++,
      queueLatency: (s) => seen.latency.push(s),
      workDuration: (s) => seen.work.push(s),
      retried: () => retries++,
    };
    const q = new RateLimitingQueue<K>({ clock, metrics });
    q.add('ns/a');
    q.add('ns/a'); // dirty: not an add
    q.add('ns/b');
    clock.advance(250);
    const k = (await q.get()) as K;
    clock.advance(1500);
    q.done(k);
    q.addRateLimited('ns/c');
    assert.equal(seen.adds, 2);
    assert.deepEqual(seen.depth, [1, 2, 1]);
    assert.deepEqual(seen.latency, [0.25]);
    assert.deepEqual(seen.work, [1.5]);
    assert.equal(retries, 1);
  });
});
