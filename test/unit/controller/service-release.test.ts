// A deleted Rollout's Services are released (our hash and mark off), but only for a deletion
// this controller saw: a key it merely does not cache may be another controller instance's
// Rollout (--instance-id), whose Services it must not touch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MANAGED_BY_ANNOTATION, POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { Service } from '../../../src/api/index.ts';
import { RolloutReconciler } from '../../../src/controller/rollout-reconciler.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import { T0 } from '../../fixtures/rollout/sim.ts';

const pinned: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'web-active',
    namespace: 'ns',
    annotations: { [MANAGED_BY_ANNOTATION]: 'web' },
  },
  spec: { selector: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'abc' } },
};

function setup() {
  const api = new FakeKubeApi();
  const reconciler = new RolloutReconciler({
    cache: {
      rollout: () => undefined,
      replicaSetsOf: () => [],
      podsOf: () => [],
      service: () => undefined,
      servicesManagedBy: (key) => (key === 'ns/web' ? [pinned] : []),
    },
    api,
    events: { event: () => undefined },
    clock: new FakeClock(T0),
    log: silentLogger,
  });
  const applies = () => api.writes().filter((w) => w.verb === 'apply');
  return { reconciler, applies };
}

describe('releasing a deleted Rollout’s Services', () => {
  it('releases them once after the informer saw the deletion', async () => {
    const t = setup();
    t.reconciler.rolloutDeleted('ns/web');
    await t.reconciler.reconcile('ns/web');
    const [release, ...more] = t.applies();
    assert.equal(more.length, 0);
    assert.deepEqual(release?.body, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web-active', namespace: 'ns' },
      spec: { selector: { app: 'web' } },
    });
    await t.reconciler.reconcile('ns/web');
    assert.equal(t.applies().length, 1);
  });

  it('leaves alone the Services of a Rollout it does not cache but never saw deleted', async () => {
    const t = setup();
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.applies(), []);
  });
});
