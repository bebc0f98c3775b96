// A change to a child wakes the Rollout that owns it, and nothing else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ReplicaSet, Rollout, Service } from '../../../src/api/index.ts';
import {
  podIndexers,
  replicaSetIndexers,
  rolloutCache,
  rolloutIndexers,
  rolloutKeysForPod,
  rolloutKeysForService,
  rolloutOwnerKey,
} from '../../../src/controller/caches.ts';
import { Store } from '../../../src/kube/store.ts';
import { rolloutFixture } from '../../fixtures/rollout/sim.ts';

const owner = (kind: string, apiVersion: string, controller = true) => ({
  apiVersion,
  kind,
  name: 'web',
  uid: 'u',
  controller,
});

function rs(
  name: string,
  hash: string,
  refs = [owner('Rollout', 'stepwise.dev/v1alpha1')],
): ReplicaSet {
  return {
    metadata: {
      name,
      namespace: 'ns',
      labels: { 'rollouts-pod-template-hash': hash },
      ownerReferences: refs,
    },
  };
}

describe('owner mapping', () => {
  it('matches the controller ownerReference on group and kind, ignoring the version', () => {
    assert.equal(rolloutOwnerKey(rs('a', 'h')), 'ns/web');
    assert.equal(
      rolloutOwnerKey(rs('a', 'h', [owner('Rollout', 'stepwise.dev/v1beta9')])),
      'ns/web',
    );
    assert.equal(
      rolloutOwnerKey(rs('a', 'h', [owner('Rollout', 'argoproj.io/v1alpha1')])),
      undefined,
    );
    assert.equal(rolloutOwnerKey(rs('a', 'h', [owner('Deployment', 'apps/v1')])), undefined);
    assert.equal(
      rolloutOwnerKey(rs('a', 'h', [owner('Rollout', 'stepwise.dev/v1alpha1', false)])),
      undefined,
    );
  });

  it('finds a Rollout’s ReplicaSets and their pods, and wakes it for a pod or a Service', () => {
    const rollouts = new Store<Rollout>(rolloutIndexers);
    const replicaSets = new Store<ReplicaSet>(replicaSetIndexers);
    const pods = new Store<Pod>(podIndexers);
    const services = new Store<Service>();
    const rollout = rolloutFixture({ strategy: { canary: { stableService: 'web-stable' } } });
    rollouts.set('ns/web', rollout);
    replicaSets.set('ns/web-h1', rs('web-h1', 'h1'));
    replicaSets.set('ns/other', rs('other', 'h9', [owner('Deployment', 'apps/v1')]));
    const pod: Pod = {
      metadata: {
        name: 'web-h1-x',
        namespace: 'ns',
        labels: { 'rollouts-pod-template-hash': 'h1' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-h1', uid: 'r' }],
      },
    };
    pods.set('ns/web-h1-x', pod);
    const stores = { rollouts, replicaSets, pods, services };
    const cache = rolloutCache(stores);
    assert.deepEqual(
      cache.replicaSetsOf(rollout).map((r) => r.metadata?.name),
      ['web-h1'],
    );
    assert.deepEqual(
      cache.podsOf(cache.replicaSetsOf(rollout)).map((p) => p.metadata?.name),
      ['web-h1-x'],
    );
    assert.deepEqual(rolloutKeysForPod(stores, pod), ['ns/web']);
    assert.deepEqual(
      rolloutKeysForService(stores, { metadata: { name: 'web-stable', namespace: 'ns' } }),
      ['ns/web'],
    );
    assert.deepEqual(
      rolloutKeysForService(stores, { metadata: { name: 'unrelated', namespace: 'ns' } }),
      [],
    );
  });
});
