/**
 * The client rate limit (--qps/--burst): a token bucket every API request of the process waits on.
 * Fake clock: the cap, the burst and the measured wait are exact.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { RestKubeApi } from '../../../src/kube/apply.ts';
import { requestMetrics } from '../../../src/kube/metrics.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { TokenBucket } from '../../../src/kube/throttle.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';
import { FakeTransport, StreamBody } from '../../fixtures/kube/fake-transport.ts';

/** Starts `n` waits and records the clock time at which each is let through. */
function startWaits(clock: FakeClock, bucket: TokenBucket, n: number): number[] {
  const released: number[] = [];
  for (let i = 0; i < n; i++) void bucket.wait().then(() => released.push(clock.now()));
  return released;
}

describe('TokenBucket', () => {
  test('a full bucket lets `burst` requests through at once, then `qps` per second', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const bucket = new TokenBucket(clock, { qps: 50, burst: 100 });
    const released = startWaits(clock, bucket, 400);
    await flush();
    assert.equal(released.length, 100, 'the burst goes at once');
    await clock.tick(1000);
    assert.equal(released.length, 150, 'then 50 more in the next second');
    await clock.tick(5000);
    assert.equal(released.length, 400);
    // The cap, over every 1 s window: never more than burst + qps; after the burst, qps.
    for (const start of released) {
      const inWindow = released.filter((t) => t >= start && t < start + 1000).length;
      assert.ok(inWindow <= 150, `${inWindow} requests in the second from ${start - t0} ms`);
    }
    const late = released.filter((t) => t >= t0 + 2000 && t < t0 + 3000).length;
    assert.equal(late, 50);
  });

  test('waiters are served in arrival order', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 10, burst: 1 });
    const order: number[] = [];
    for (let i = 0; i < 5; i++) void bucket.wait().then(() => order.push(i));
    await clock.tick(1000);
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
  });

  test('an idle bucket refills to `burst`, not beyond', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 5, burst: 3 });
    await clock.tick(60_000);
    const released = startWaits(clock, bucket, 5);
    await flush();
    assert.equal(released.length, 3);
  });

  test('wait resolves with the time waited', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 4, burst: 1 });
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) void bucket.wait().then((ms) => waits.push(ms));
    await clock.tick(1000);
    assert.deepEqual(waits, [0, 250, 500]);
  });

  test('an aborted wait rejects and gives its token back', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 1, burst: 1 });
    await bucket.wait();
    const ac = new AbortController();
    const aborted = bucket.wait(ac.signal);
    ac.abort(new Error('gone'));
    await assert.rejects(aborted, /gone/);
    const next: number[] = [];
    void bucket.wait().then((ms) => next.push(ms));
    await clock.tick(1000);
    assert.deepEqual(next, [1000], 'the next request waits one token, not two');
  });
});

describe('RestClient with a limiter', () => {
  test('every kind of request waits on the one shared bucket', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 1, burst: 1 });
    const t = new FakeTransport();
    const body = new StreamBody();
    t.respond = (req) => (req.query?.['watch'] ? body : { status: 200, body: {} });
    // Two clients, one bucket: the process-wide cap.
    const a = new RestKubeApi(new RestClient(t, { limiter: bucket }));
    const b = new RestKubeApi(new RestClient(t, { limiter: bucket }));
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'r', namespace: 'n' },
    };
    const calls: Promise<unknown>[] = [
      a.list(Resources.ReplicaSet, { namespace: 'n' }),
      a.watch(
        Resources.ReplicaSet,
        { namespace: 'n', resourceVersion: '1' },
        () => {},
        () => {},
      ),
      b.apply(rs),
      b.applyStatus(rs),
      a.patchMerge(Resources.ReplicaSet, 'n', 'r', { spec: {} }),
      b.delete(Resources.ReplicaSet, 'n', 'r'),
      a.evict('n', 'p'),
      b.create(rs),
    ];
    await flush();
    assert.equal(t.requests.length, 1, 'one token: one request sent');
    for (let sent = 2; sent <= calls.length; sent++) {
      await clock.tick(1000);
      assert.equal(t.requests.length, sent);
    }
    await Promise.all(calls);
    body.end();
  });

  test('the time each request waited is in the rate limiter histogram', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(clock, { qps: 2, burst: 1 });
    const t = new FakeTransport();
    const registry = new Registry();
    const api = new RestKubeApi(
      new RestClient(t, { limiter: bucket, onRequest: requestMetrics(registry) }),
    );
    const gets = [0, 1, 2].map(() => api.get(Resources.ReplicaSet, 'n', 'r'));
    await clock.tick(1000);
    await Promise.all(gets);
    const text = await registry.metrics();
    const labels = 'verb="get",resource="replicasets.apps"';
    assert.match(
      text,
      new RegExp(
        `^controller_clientset_k8s_rate_limiter_duration_seconds_count\\{${labels}\\} 3$`,
        'm',
      ),
    );
    assert.match(
      text,
      new RegExp(
        `^controller_clientset_k8s_rate_limiter_duration_seconds_sum\\{${labels}\\} 1.5$`,
        'm',
      ),
    );
  });
});
