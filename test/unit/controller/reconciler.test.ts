// The shell around the planner: writes in the planner's order, status applies guarded by the
// resourceVersion they planned from, a stale cache waited out, failures surfaced for backoff.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet, Rollout } from '../../../src/api/index.ts';
import { EXPECTATION_TTL_MS } from '../../../src/controller/expectations.ts';
import { RolloutReconciler } from '../../../src/controller/rollout-reconciler.ts';
import type { RolloutCache } from '../../../src/controller/rollout-reconciler.ts';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';

function setup(rollout: Rollout, replicaSets: ReplicaSet[] = []) {
  const api = new FakeKubeApi();
  api.seed(rollout);
  const events: string[] = [];
  /** What each pass told the metrics (onPhase). */
  const phases: (string | undefined)[] = [];
  let cached = rollout;
  let rss = replicaSets;
  const cache: RolloutCache = {
    rollout: () => cached,
    replicaSetsOf: () => rss,
    podsOf: () => [],
    service: () => undefined,
  };
  const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
  const reconciler = new RolloutReconciler({
    cache,
    api,
    events: { event: (_r, type, reason) => events.push(`${type} ${reason}`) },
    clock,
    log: silentLogger,
    onPhase: (r) => phases.push(r.status?.phase),
  });
  return {
    api,
    clock,
    events,
    phases,
    reconciler,
    setCached: (r: Rollout) => (cached = r),
    setReplicaSets: (list: ReplicaSet[]) => (rss = list),
    stored: () =>
      api.stored(
        {
          group: 'stepwise.dev',
          version: 'v1alpha1',
          kind: 'Rollout',
          plural: 'rollouts',
          namespaced: true,
        },
        'ns',
        'web',
      ) as Rollout,
  };
}

describe('RolloutReconciler', () => {
  it('makes the planned writes in order: ReplicaSet, then status (with its resourceVersion), then events', async () => {
    const t = setup({
      ...rolloutFixture(),
      metadata: { ...rolloutFixture().metadata, resourceVersion: '7' },
    });
    const seeded = t.stored();
    t.setCached(seeded);
    await t.reconciler.reconcile('ns/web');
    const writes = t.api.writes().map((r) => `${r.verb} ${r.resource}`);
    assert.deepEqual(writes, ['apply replicasets.apps', 'applyStatus rollouts.stepwise.dev']);
    const statusWrite = t.api.writes()[1];
    const body = statusWrite?.body as Rollout | undefined;
    assert.equal(body?.metadata.resourceVersion, seeded.metadata.resourceVersion);
    assert.deepEqual(t.events, ['Normal NewReplicaSetCreated']);
    assert.equal(t.stored().status?.phase, 'Progressing');
  });

  it('waits out a cache that has not seen its own status write, without planning again', async () => {
    const t = setup(rolloutFixture());
    t.setCached(t.stored());
    await t.reconciler.reconcile('ns/web');
    const before = t.api.writes().length;
    const result = await t.reconciler.reconcile('ns/web'); // cache still holds the old object
    assert.equal(result.requeueAfterMs, 100);
    assert.equal(t.api.writes().length, before);
    t.setCached(t.stored()); // the informer caught up
    const next = await t.reconciler.reconcile('ns/web');
    assert.notEqual(next.requeueAfterMs, 100);
  });

  it('stops waiting for a write the cache never shows once its expectation expires', async () => {
    const t = setup(rolloutFixture());
    t.setCached(t.stored());
    await t.reconciler.reconcile('ns/web');
    assert.equal((await t.reconciler.reconcile('ns/web')).requeueAfterMs, 100);
    t.clock.advance(EXPECTATION_TTL_MS);
    // The cache never caught up: the pass plans again from it, and the status it writes on the
    // stale resourceVersion is refused (a Conflict, then backoff), never applied twice.
    await assert.rejects(t.reconciler.reconcile('ns/web'), { httpStatus: 409 });
  });

  it('waits out a ReplicaSet cache that has not seen its own scale, instead of scaling twice', async () => {
    const sim = new Sim(rolloutFixture());
    sim.run(); // deployed and Healthy at 4 replicas
    const rs = [...sim.replicaSets.values()][0] as ReplicaSet;
    const t = setup({ ...sim.rollout, spec: { ...sim.rollout.spec, replicas: 2 } });
    t.api.seed(rs);
    const rsType = {
      group: 'apps',
      version: 'v1',
      kind: 'ReplicaSet',
      plural: 'replicasets',
      namespaced: true,
    };
    const storedRs = {
      ...(t.api.stored(rsType, 'ns', rs.metadata?.name ?? '') as ReplicaSet),
      status: rs.status,
    };
    t.setReplicaSets([storedRs]);
    t.setCached(t.stored());
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(
      t.api.writes().map((w) => w.verb),
      ['apply', 'applyStatus'],
      'scaled to 2 once',
    );
    // The Rollout cache caught up with our status write; the ReplicaSet cache did not.
    t.setCached(t.stored());
    const result = await t.reconciler.reconcile('ns/web');
    assert.equal(result.requeueAfterMs, 100);
    assert.equal(t.api.writes().length, 2, 'no second scale');
  });

  it('surfaces a failed write so the worker backs off, and makes no later write of that pass', async () => {
    const t = setup(rolloutFixture());
    t.setCached(t.stored());
    t.api.failWith = (r) =>
      r.verb === 'apply'
        ? apiStatusError(500, {
            kind: 'Status',
            code: 500,
            reason: 'InternalError',
            message: 'boom',
          })
        : undefined;
    await assert.rejects(t.reconciler.reconcile('ns/web'), /boom/);
    assert.ok(
      !t.api.requests.some((r) => r.verb === 'applyStatus'),
      'status is not written after a failed write',
    );
  });

  it('a deleted Rollout is forgotten with no writes', async () => {
    const t = setup(rolloutFixture());
    let forgotten = '';
    const reconciler = new RolloutReconciler({
      cache: {
        rollout: () => undefined,
        replicaSetsOf: () => [],
        podsOf: () => [],
        service: () => undefined,
      },
      api: t.api,
      events: { event: () => undefined },
      clock: new FakeClock(0),
      log: silentLogger,
      onDeleted: (key) => (forgotten = key),
    });
    assert.deepEqual(await reconciler.reconcile('ns/gone'), {});
    assert.equal(forgotten, 'ns/gone');
    assert.equal(t.api.writes().length, 0);
  });

  it('a ReplicaSet the API server refuses: status says why (ReplicaFailure, Degraded), one Warning, then backoff', async () => {
    const t = setup(rolloutFixture());
    t.setCached(t.stored());
    const message =
      'ReplicaSet.apps "web-x" is invalid: spec.template.spec.containers: Required value';
    t.api.failWith = (r) =>
      r.verb === 'apply' && r.resource === 'replicasets.apps'
        ? apiStatusError(422, { kind: 'Status', code: 422, reason: 'Invalid', message })
        : undefined;
    await assert.rejects(t.reconciler.reconcile('ns/web'), { name: 'RefusedWriteError' });
    const status = t.stored().status;
    assert.equal(status?.phase, 'Degraded');
    const failure = status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    assert.equal(failure?.reason, 'ReplicaSetCreateError');
    assert.ok(failure?.message.includes(message));
    assert.deepEqual(
      t.events.filter((e) => e.startsWith('Warning')),
      ['Warning ReplicaSetCreateError'],
    );
    // Retried after backoff and refused again: no new status write, no new event.
    t.setCached(t.stored());
    const statusWrites = () => t.api.writes().filter((r) => r.verb === 'applyStatus').length;
    const before = statusWrites();
    await assert.rejects(t.reconciler.reconcile('ns/web'), { name: 'RefusedWriteError' });
    assert.equal(statusWrites(), before);
    assert.equal(t.events.filter((e) => e.startsWith('Warning')).length, 1);
    // Each refused pass still tells the metrics, so rollout_info says Degraded (Argo's Error).
    assert.deepEqual(t.phases, [undefined, 'Degraded']);
  });
});
