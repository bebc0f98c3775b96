// The workloadRef informers: no kind is watched until a Rollout references it; until its cache
// has synced, a Rollout's referent reads as "syncing" (not as missing), and the sync wakes every
// Rollout of that kind (a referent's own changes: test/e2e/workloadref.test.ts); the reconciler
// plans nothing while syncing, and builds the Rollout's ReplicaSet from the referent's template.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, Rollout } from '../../../src/api/index.ts';
import { RESTORE_WORKLOAD_FINALIZER } from '../../../src/api/index.ts';
import { rolloutIndexers } from '../../../src/controller/caches.ts';
import { RolloutReconciler } from '../../../src/controller/rollout-reconciler.ts';
import {
  slimWorkload,
  WorkloadInformers,
  workloadKey,
  workloadKindKey,
} from '../../../src/controller/workload-wiring.ts';
import type { WorkloadReading } from '../../../src/controller/workload-wiring.ts';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { deploymentFixture, referencing } from '../rollout/workload-ref/fixtures.ts';

const T0 = Date.parse('2026-12-01T10:00:00Z');

function informers(api = new FakeKubeApi()) {
  const wakes: string[] = [];
  const w = new WorkloadInformers({
    api,
    namespace: undefined,
    clock: new FakeClock(T0),
    log: silentLogger,
    onResumed: () => undefined,
  });
  w.onChange((k) => wakes.push(k));
  return { api, w, wakes };
}

/** Until `pred` holds, letting the informer's list and watch promises run. */
async function until(pred: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(pred(), 'never happened');
}

describe('WorkloadInformers', () => {
  it('watches nothing until a Rollout references a kind; then reads syncing, then the referent', async () => {
    const t = informers();
    t.api.seed(deploymentFixture());
    t.w.start();
    assert.equal(
      t.w.observe({ ...referencing(), spec: { ...referencing().spec, workloadRef: undefined } }),
      undefined,
    );
    assert.deepEqual(t.w.sizes(), {}, 'no informer for a Rollout without a workloadRef');
    const rollout: Rollout = referencing({ name: 'web-deploy' });
    assert.equal(t.w.observe(rollout), 'syncing');
    await until(() => t.wakes.includes(workloadKindKey('Deployment')));
    const read = t.w.observe(rollout) as Exclude<WorkloadReading, 'syncing'>;
    assert.equal(read.object?.metadata?.name, 'web-deploy');
    assert.deepEqual(Object.keys(t.w.sizes()), ['Deployment']);
    assert.deepEqual(t.w.observe(referencing({ name: 'other' })), {}, 'not found once synced');
    await t.w.stop();
  });

  it('a kind the controller cannot list: the Rollout is told so, not left waiting', async () => {
    const t = informers();
    t.api.failWith = (r) =>
      r.verb === 'list'
        ? apiStatusError(403, { reason: 'Forbidden', message: 'forbidden' })
        : undefined;
    t.w.start();
    const rollout = referencing();
    assert.equal(t.w.observe(rollout), 'syncing');
    await until(() => t.w.observe(rollout) !== 'syncing');
    assert.deepEqual(t.w.observe(rollout), {
      unreadable:
        'the controller cannot list deployments.apps (its log says why; does its RBAC grant get, list and watch?)',
    });
    await t.w.stop();
  });

  it('Rollouts are indexed by the referent and by its kind, so either wakes them', () => {
    const index = rolloutIndexers.byWorkload;
    assert.ok(index);
    assert.deepEqual(index(referencing()), [
      workloadKey('Deployment', 'ns', 'web-deploy'),
      workloadKindKey('Deployment'),
    ]);
    assert.deepEqual(
      index({ ...referencing(), spec: { ...referencing().spec, workloadRef: undefined } }),
      [],
    );
  });

  it('keeps of a Deployment what resolution and scale-down read, not its history', () => {
    const d: Deployment = {
      ...deploymentFixture(),
      metadata: { ...deploymentFixture().metadata, managedFields: [{ manager: 'x' }] },
      status: {
        ...deploymentFixture().status,
        conditions: [{ type: 'Available', status: 'True' }],
      },
    };
    const slim = slimWorkload(d);
    assert.deepEqual(slim.spec, {
      replicas: 3,
      selector: d.spec?.selector,
      template: d.spec?.template,
    });
    assert.equal(slim.metadata?.managedFields, undefined);
    assert.equal(slim.metadata?.generation, 1);
    assert.deepEqual(slim.status, { replicas: 3, readyReplicas: 3, availableReplicas: 3 });
  });
});

describe('RolloutReconciler with a workloadRef', () => {
  function setup(reading: WorkloadReading) {
    const api = new FakeKubeApi();
    // As its first pass leaves it: with our finalizer (workload-restore.ts), so this one plans.
    const ref = referencing({ scaleDown: 'onsuccess' });
    const held = {
      ...ref,
      metadata: { ...ref.metadata, finalizers: [RESTORE_WORKLOAD_FINALIZER] },
    };
    const rollout = api.seed(held) as Rollout;
    const reconciler = new RolloutReconciler({
      cache: {
        rollout: () => rollout,
        replicaSetsOf: () => [],
        podsOf: () => [],
        service: () => undefined,
        workloadOf: () => reading,
      },
      api,
      events: { event: () => undefined },
      clock: new FakeClock(T0),
      log: silentLogger,
    });
    return { api, reconciler };
  }

  it('plans nothing while the kind’s cache is still filling (the sync wakes it)', async () => {
    const t = setup('syncing');
    assert.deepEqual(await t.reconciler.reconcile('ns/web'), { requeueAfterMs: 1000 });
    assert.deepEqual(t.api.writes(), []);
  });

  it('a missing referent: only the status is written (Degraded), nothing created', async () => {
    const t = setup({});
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(
      t.api.writes().map((w) => `${w.verb} ${w.resource}`),
      ['applyStatus rollouts.stepwise.dev'],
    );
  });

  it('a referent found: the Rollout’s ReplicaSet is made from its template', async () => {
    const t = setup({ object: deploymentFixture() });
    await t.reconciler.reconcile('ns/web');
    const rs = t.api.writes().find((w) => w.resource === 'replicasets.apps');
    const body = rs?.body as {
      spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
    };
    assert.equal(body.spec?.template?.spec?.containers?.[0]?.image, 'web:1');
  });
});
