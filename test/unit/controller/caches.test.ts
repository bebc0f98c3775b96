// A change to a child wakes the Rollout that owns it, and nothing else.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Rollout,
  Service,
} from '../../../src/api/index.ts';
import {
  analysisRunIndexers,
  podIndexers,
  replicaSetIndexers,
  rolloutCache,
  rolloutIndexers,
  templateIndexers,
  slimPod,
  slimService,
} from '../../../src/controller/caches.ts';
import { phaseChanged } from '../../../src/controller/watch.ts';
import {
  namingService,
  namingTemplate,
  ownerRollout,
  podsRollout,
} from '../../../src/controller/watches.ts';
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
    assert.equal(ownerRollout.keys(rs('a', 'h'))[0], 'ns/web');
    assert.equal(
      ownerRollout.keys(rs('a', 'h', [owner('Rollout', 'stepwise.dev/v1beta9')]))[0],
      'ns/web',
    );
    assert.equal(
      ownerRollout.keys(rs('a', 'h', [owner('Rollout', 'argoproj.io/v1alpha1')]))[0],
      undefined,
    );
    assert.equal(ownerRollout.keys(rs('a', 'h', [owner('Deployment', 'apps/v1')]))[0], undefined);
    assert.equal(
      ownerRollout.keys(rs('a', 'h', [owner('Rollout', 'stepwise.dev/v1alpha1', false)]))[0],
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
        // As the ReplicaSet controller writes it: the pod's controller reference.
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-h1', uid: 'r', controller: true },
        ],
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
    assert.deepEqual(podsRollout(stores).keys(pod), ['ns/web']);
    assert.deepEqual(
      namingService(stores).keys({ metadata: { name: 'web-stable', namespace: 'ns' } }),
      ['ns/web'],
    );
    assert.deepEqual(
      namingService(stores).keys({ metadata: { name: 'unrelated', namespace: 'ns' } }),
      [],
    );
  });
});

describe('AnalysisRuns in the Rollout cache', () => {
  const run = (
    name: string,
    phase?: 'Running' | 'Failed',
    refs = [owner('Rollout', 'stepwise.dev/v1alpha1')],
  ): AnalysisRun => ({
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name, namespace: 'ns', ownerReferences: refs },
    spec: { metrics: [] },
    ...(phase ? { status: { phase } } : {}),
  });

  it('lists a Rollout’s runs, and wakes it only when a run appears, goes or changes phase', () => {
    const analysisRuns = new Store<AnalysisRun>(analysisRunIndexers);
    analysisRuns.set('ns/web-1', run('web-1'));
    analysisRuns.set('ns/by-hand', run('by-hand', undefined, []));
    const stores = {
      rollouts: new Store<Rollout>(),
      replicaSets: new Store<ReplicaSet>(),
      pods: new Store<Pod>(),
      services: new Store<Service>(),
      analysisRuns,
    };
    const cache = rolloutCache(stores);
    assert.deepEqual(
      cache.analysisRunsOf?.(rolloutFixture()).map((r) => r.metadata.name),
      ['web-1'],
    );
    // What a run change wakes: its owner, on add, delete or a phase change (watches.ts).
    assert.ok(phaseChanged.added(run('web-1')));
    assert.ok(phaseChanged.deleted(run('web-1')));
    assert.deepEqual(ownerRollout.keys(run('web-1')), ['ns/web']);
    assert.equal(phaseChanged.updated(run('web-1', 'Running'), run('web-1', 'Running')), false);
    assert.ok(phaseChanged.updated(run('web-1', 'Running'), run('web-1', 'Failed')));
    assert.deepEqual(ownerRollout.keys(run('by-hand', 'Failed', [])), [undefined]);
  });
});

describe('slimmed caches', () => {
  it('keep what the planner and the owner mapping read of a pod, and drop its spec and status', () => {
    const created = new Date('2026-12-01T10:00:00Z');
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'ns',
        labels: { a: 'b' },
        annotations: { c: 'd' },
        creationTimestamp: created,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u' }],
      },
      spec: { containers: [{ name: 'x', image: 'y' }] },
      status: { phase: 'Running' },
    };
    const slim = slimPod(pod);
    assert.deepEqual(slim.metadata?.labels, { a: 'b' });
    assert.deepEqual(slim.metadata?.annotations, { c: 'd' });
    assert.equal(slim.metadata?.creationTimestamp, created);
    assert.equal(slim.metadata?.ownerReferences?.[0]?.name, 'rs');
    assert.equal(slim.spec, undefined);
    assert.equal(slim.status, undefined);
  });

  it('keep a Service’s selector and annotations only', () => {
    const slim = slimService({
      metadata: { name: 's', namespace: 'ns', annotations: { k: 'v' } },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    assert.deepEqual(slim.spec, { selector: { app: 'web' } });
    assert.deepEqual(slim.metadata?.annotations, { k: 'v' });
  });
});

describe('AnalysisTemplates in the Rollout cache', () => {
  const template = (name: string, namespace?: string): AnalysisTemplate => ({
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: namespace === undefined ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    spec: { metrics: [] },
  });

  it('gives the planner the templates of the Rollout’s namespace and the cluster ones by name', () => {
    const analysisTemplates = new Store<AnalysisTemplate>(templateIndexers);
    const clusterAnalysisTemplates = new Store<AnalysisTemplate>(templateIndexers);
    analysisTemplates.set('ns/rate', template('rate', 'ns'));
    analysisTemplates.set('other/rate', template('rate', 'other'));
    analysisTemplates.set('other/latency', template('latency', 'other'));
    clusterAnalysisTemplates.set('shared', template('shared'));
    const cache = rolloutCache({
      rollouts: new Store<Rollout>(),
      replicaSets: new Store<ReplicaSet>(),
      pods: new Store<Pod>(),
      services: new Store<Service>(),
      analysisTemplates,
      clusterAnalysisTemplates,
    });
    assert.deepEqual([...(cache.analysisTemplates?.('ns').keys() ?? [])], ['rate']);
    assert.equal(cache.analysisTemplates?.('ns').get('rate')?.metadata?.namespace, 'ns');
    assert.deepEqual([...(cache.analysisTemplates?.('empty').keys() ?? [])], []);
    assert.deepEqual([...(cache.clusterAnalysisTemplates?.().keys() ?? [])], ['shared']);
  });

  it('wakes the Rollouts that name a changed template, in its scope only', () => {
    const rollouts = new Store<Rollout>(rolloutIndexers);
    const analysis = (templateName: string, clusterScope?: boolean) => ({
      templates: [{ templateName, ...(clusterScope === undefined ? {} : { clusterScope }) }],
    });
    rollouts.set(
      'ns/web',
      rolloutFixture({
        strategy: {
          canary: {
            analysis: analysis('rate'),
            steps: [{ setWeight: 20 }, { analysis: analysis('shared', true) }],
          },
        },
      }),
    );
    const stores = {
      rollouts,
      replicaSets: new Store<ReplicaSet>(),
      pods: new Store<Pod>(),
      services: new Store<Service>(),
    };
    assert.deepEqual(namingTemplate(stores).keys(template('rate', 'ns')), ['ns/web']);
    assert.deepEqual(namingTemplate(stores).keys(template('rate', 'other')), []);
    assert.deepEqual(namingTemplate(stores).keys(template('shared')), ['ns/web']);
    assert.deepEqual(namingTemplate(stores).keys(template('rate')), []);
    assert.deepEqual(namingTemplate(stores).keys(template('latency', 'ns')), []);
  });
});
