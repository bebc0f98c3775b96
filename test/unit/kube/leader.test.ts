import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElector, leaderIdentity } from '../../../src/kube/leader.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';
import { FakeLeaseStore } from '../../fixtures/kube/fake-lease.ts';
import type { Lease } from '../../../src/kube/lease.ts';

function candidate(store: FakeLeaseStore, clock: FakeClock, identity: string) {
  const log: string[] = [];
  let signal: AbortSignal | undefined;
  const e = new LeaderElector({
    client: store.client(),
    namespace: 'sw',
    identity,
    clock,
    random: () => 0,
    onStartedLeading: (s) => {
      signal = s;
      log.push('started');
    },
    onStoppedLeading: () => log.push('stopped'),
    onNewLeader: (id) => log.push(`leader ${id ?? '-'}`),
  });
  const done = e.run();
  return { e, log, done, signal: () => signal };
}

describe('leader election', () => {
  test('acquires a missing Lease at once and renews it every retry period', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    assert.equal(a.e.isLeader(), true);
    assert.deepEqual(a.log, ['leader a', 'started']);
    const spec = store.lease?.spec;
    assert.equal(spec?.holderIdentity, 'a');
    assert.equal(spec?.leaseDurationSeconds, 15);
    assert.match(spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const first = spec?.renewTime;
    await clock.tick(2000);
    assert.notEqual(store.lease?.spec?.renewTime, first);
    assert.equal(store.lease?.spec?.acquireTime, spec?.acquireTime, 'acquireTime kept on renew');
    assert.equal(store.writes.length, 2);
    await clock.tick(20_000);
    assert.equal(store.writes.length, 12);
    await a.e.stop();
  });

  test('a second candidate waits while the holder renews', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const b = candidate(store, clock, 'b');
    await clock.tick(60_000);
    assert.equal(a.e.isLeader(), true);
    assert.equal(b.e.isLeader(), false);
    assert.equal(b.e.leader(), 'a');
    assert.deepEqual(b.log, ['leader a']);
    await a.e.stop();
    await b.e.stop();
  });

  test('takes over a Lease whose holder stopped renewing, after the lease duration by our clock', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    // The holder's renewTime is far in the past, but only our observation counts (clock skew).
    store.put({
      holderIdentity: 'dead',
      leaseDurationSeconds: 15,
      renewTime: '2000-01-01T00:00:00.000000Z',
      leaseTransitions: 3,
    });
    const b = candidate(store, clock, 'b');
    await flush();
    assert.equal(b.e.isLeader(), false);
    await clock.tick(14_000);
    assert.equal(b.e.isLeader(), false);
    await clock.tick(2_000);
    assert.equal(b.e.isLeader(), true);
    assert.equal(store.holder(), 'b');
    assert.equal(store.lease?.spec?.leaseTransitions, 4);
    await b.e.stop();
  });

  test('loses leadership when no renew succeeds within the renew deadline', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const signal = a.signal();
    store.down = true;
    await clock.tick(8_000);
    assert.equal(a.e.isLeader(), true, 'still within the deadline');
    await clock.tick(2_000);
    assert.equal(a.e.isLeader(), false);
    assert.deepEqual(a.log, ['leader a', 'started', 'stopped']);
    assert.equal(signal?.aborted, true);
    await a.done; // 10 s after the last renew: before a 15 s lease can expire for anyone else
  });

  test('a renew that hangs counts as failed at the deadline', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    store.hang = true;
    await clock.tick(10_000);
    assert.equal(a.e.isLeader(), false);
    assert.deepEqual(a.log.at(-1), 'stopped');
    await a.done;
  });

  test('one failed renew inside the deadline is survived', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    store.down = true;
    await clock.tick(4_000);
    store.down = false;
    await clock.tick(30_000);
    assert.equal(a.e.isLeader(), true);
    await a.e.stop();
  });

  test('another writer taking the Lease makes the leader step down', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const thief = () =>
      store.put({ holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: String(clock.now()) });
    for (let i = 0; i < 6; i++) {
      thief();
      await clock.tick(2_000);
    }
    assert.equal(a.e.isLeader(), false);
    assert.equal(a.e.leader(), 'x');
    await a.done;
  });

  test('stop releases the Lease and a standby takes over at its next retry, not after 15 s', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const b = candidate(store, clock, 'b');
    await clock.tick(1_000);
    await a.e.stop();
    assert.deepEqual(a.log, ['leader a', 'started', 'stopped', 'leader -']);
    assert.equal(store.holder(), '');
    assert.equal(store.lease?.spec?.leaseDurationSeconds, 1);
    await clock.tick(4_400);
    assert.equal(b.e.isLeader(), true);
    assert.equal(store.lease?.spec?.leaseTransitions, 1);
    await b.e.stop();
  });

  test('two candidates racing for a free Lease: exactly one wins (resourceVersion conflict)', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    store.put({ holderIdentity: '' });
    const a = candidate(store, clock, 'a');
    const b = candidate(store, clock, 'b');
    await flush();
    assert.equal(Number(a.e.isLeader()) + Number(b.e.isLeader()), 1);
    await clock.tick(30_000);
    assert.equal(Number(a.e.isLeader()) + Number(b.e.isLeader()), 1);
    await a.e.stop();
    await b.e.stop();
  });

  test('stop while campaigning resolves without callbacks or writes', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    store.put({ holderIdentity: 'other', leaseDurationSeconds: 15 });
    const b = candidate(store, clock, 'b');
    await clock.tick(3_000);
    const writes = store.writes.length;
    await b.e.stop();
    await b.done;
    assert.deepEqual(b.log, ['leader other']);
    assert.equal(store.writes.length, writes);
    assert.equal(clock.pending(), 0);
  });

  test('rejects inconsistent durations; identities are unique', () => {
    assert.throws(
      () =>
        new LeaderElector({
          client: new FakeLeaseStore().client(),
          namespace: 'sw',
          identity: 'a',
          renewDeadlineMs: 20_000,
          onStartedLeading: () => undefined,
          onStoppedLeading: () => undefined,
        }),
      RangeError,
    );
    assert.notEqual(leaderIdentity('pod'), leaderIdentity('pod'));
    assert.match(leaderIdentity('pod'), /^pod_/);
  });
});

describe('leader election with a watch on the Lease', () => {
  /** A candidate told of every Lease write, as an informer on the Lease would tell it. */
  function watching(store: FakeLeaseStore, clock: FakeClock, identity: string) {
    const listeners = new Set<(l: Lease | undefined) => void>();
    const started: string[] = [];
    const e = new LeaderElector({
      client: store.client(),
      namespace: 'sw',
      identity,
      clock,
      random: () => 0,
      onStartedLeading: () => started.push(identity),
      onStoppedLeading: () => undefined,
      leaseChanges: (onLease) => {
        listeners.add(onLease);
        return () => listeners.delete(onLease);
      },
    });
    const notify = () => {
      for (const l of listeners) l(store.lease);
    };
    return { e, done: e.run(), started, notify, listeners };
  }

  test('a standby takes a released Lease at once, not at its next retry', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const b = watching(store, clock, 'b');
    await clock.tick(1_000);
    assert.equal(b.e.isLeader(), false);
    await a.e.stop(); // releases: empty holder
    b.notify();
    await flush();
    assert.equal(b.e.isLeader(), true, 'no retry period waited');
    assert.equal(b.listeners.size, 0, 'the watch is given up once leading');
    await b.e.stop();
  });

  test('a renewal by the leader does not wake the standby', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    const a = candidate(store, clock, 'a');
    await flush();
    const b = watching(store, clock, 'b');
    await flush();
    const reads = store.reads;
    b.notify(); // a's renewal
    await flush();
    assert.equal(store.reads, reads, 'no extra request');
    await a.e.stop();
    await b.e.stop();
  });

  test('a restarted process with the same identity takes its Lease back at once', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore();
    store.put({
      holderIdentity: 'pod-1',
      leaseDurationSeconds: 15,
      renewTime: '2026-01-01T00:00:00.000000Z',
    });
    const again = watching(store, clock, 'pod-1');
    await flush();
    assert.equal(again.e.isLeader(), true, 'did not wait for the lease to expire');
    await again.e.stop();
  });
});
