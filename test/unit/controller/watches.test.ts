// What wakes what, row by row: each informer event goes through the controller's table (named
// predicate, then key mapping) and comes out as the keys that must take another look.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Rollout,
  RolloutApproval,
  Service,
} from '../../../src/api/index.ts';
import {
  analysisRunIndexers,
  approvalIndexers,
  podIndexers,
  replicaSetIndexers,
  rolloutIndexers,
  templateIndexers,
} from '../../../src/controller/caches.ts';
import { analysisRunWatches, rolloutWatches } from '../../../src/controller/watches.ts';
import type { WatchedInformers } from '../../../src/controller/watches.ts';
import type { EventHandler, IndexFunc, KubeObject } from '../../../src/kube/index.ts';
import { Store } from '../../../src/kube/store.ts';
import { trafficRefKeys } from '../../../src/traffic/index.ts';
import { rolloutFixture } from '../../fixtures/rollout/sim.ts';

/** A Store that tells its handlers, as an informer does. */
class FakeInformer<T extends KubeObject> extends Store<T> {
  readonly #handlers: EventHandler<T>[] = [];
  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    super(indexers);
  }
  addEventHandler(h: EventHandler<T>): void {
    this.#handlers.push(h);
  }
  add(o: T): void {
    this.set(`${o.metadata?.namespace}/${o.metadata?.name}`, o);
    for (const h of this.#handlers) h.onAdd?.(o);
  }
  update(old: T, o: T): void {
    this.set(`${o.metadata?.namespace}/${o.metadata?.name}`, o);
    for (const h of this.#handlers) h.onUpdate?.(old, o);
  }
  remove(o: T): void {
    this.delete(`${o.metadata?.namespace}/${o.metadata?.name}`);
    for (const h of this.#handlers) h.onDelete?.(o);
  }
}

const controllerOf = (apiVersion: string, kind: string, name: string) => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller: true,
});
const rolloutRef = controllerOf('stepwise.dev/v1alpha1', 'Rollout', 'web');
const runRef = controllerOf('stepwise.dev/v1alpha1', 'AnalysisRun', 'web-1');

function informers() {
  return {
    rollouts: new FakeInformer<Rollout>(rolloutIndexers),
    replicaSets: new FakeInformer<ReplicaSet>(replicaSetIndexers),
    pods: new FakeInformer<Pod>(podIndexers),
    services: new FakeInformer<Service>(),
    analysisRuns: new FakeInformer<AnalysisRun>(analysisRunIndexers),
    analysisTemplates: new FakeInformer<AnalysisTemplate>(templateIndexers),
    clusterAnalysisTemplates: new FakeInformer<AnalysisTemplate>(templateIndexers),
    approvals: new FakeInformer<RolloutApproval>(approvalIndexers),
    jobs: new FakeInformer<KubeObject>(),
  } satisfies WatchedInformers;
}

describe('what wakes what', () => {
  let s: ReturnType<typeof informers>;
  let rolloutKeys: string[];
  let runKeys: string[];
  let seen: number;
  let trafficChange: (objectKey: string) => void;
  const rollout = rolloutFixture({
    strategy: {
      canary: {
        canaryService: 'web-canary',
        stableService: 'web-stable',
        trafficRouting: { smi: {} },
        analysis: { templates: [{ templateName: 'rate' }] },
        steps: [{ analysis: { templates: [{ templateName: 'shared', clusterScope: true }] } }],
      },
    },
  });
  const rs: ReplicaSet = {
    metadata: { name: 'web-h1', namespace: 'ns', ownerReferences: [rolloutRef] },
  };
  const approval: RolloutApproval = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: { name: 'a1', namespace: 'ns' },
    spec: { rolloutName: 'web', revision: '1', step: 0, decision: 'Approve', approver: 'x' },
  };
  const run = (phase: 'Running' | 'Failed', generation = 1): AnalysisRun => ({
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name: 'web-1', namespace: 'ns', generation, ownerReferences: [rolloutRef] },
    spec: { metrics: [] },
    status: { phase },
  });

  beforeEach(() => {
    s = informers();
    rolloutKeys = [];
    runKeys = [];
    seen = 0;
    trafficChange = () => assert.fail('traffic not watched');
    const traffic = { onChange: (wake: (k: string) => void) => (trafficChange = wake) };
    for (const w of rolloutWatches(s, traffic))
      w.attach(
        (k) => rolloutKeys.push(k),
        () => seen++,
      );
    for (const w of analysisRunWatches(s))
      w.attach(
        (k) => runKeys.push(k),
        () => seen++,
      );
    s.rollouts.add(rollout);
    s.replicaSets.add(rs);
    rolloutKeys = [];
    runKeys = [];
    seen = 0;
  });

  it('a Rollout wakes itself; a ReplicaSet its owner; a pod its ReplicaSet’s owner', () => {
    s.rollouts.update(rollout, { ...rollout });
    s.replicaSets.update(rs, { ...rs });
    s.pods.add({
      metadata: {
        name: 'web-h1-x',
        namespace: 'ns',
        ownerReferences: [controllerOf('apps/v1', 'ReplicaSet', 'web-h1')],
      },
    });
    assert.deepEqual(rolloutKeys, ['ns/web', 'ns/web', 'ns/web']);
    assert.deepEqual(runKeys, []);
  });

  it('a Service or traffic object wakes the Rollouts naming it, and only those', () => {
    s.services.add({ metadata: { name: 'web-stable', namespace: 'ns' } });
    s.services.add({ metadata: { name: 'unrelated', namespace: 'ns' } });
    const [split] = trafficRefKeys(rollout);
    assert.ok(split !== undefined);
    trafficChange(split);
    trafficChange('elsewhere');
    assert.deepEqual(rolloutKeys, ['ns/web', 'ns/web']);
  });

  it('a template wakes the Rollouts that name it, in its scope', () => {
    const template = (name: string, namespace?: string): AnalysisTemplate => ({
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: namespace === undefined ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate',
      metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
      spec: { metrics: [] },
    });
    s.analysisTemplates.add(template('rate', 'ns'));
    s.analysisTemplates.add(template('rate', 'other'));
    s.clusterAnalysisTemplates.add(template('shared'));
    s.clusterAnalysisTemplates.add(template('rate'));
    assert.deepEqual(rolloutKeys, ['ns/web', 'ns/web']);
  });

  it('an AnalysisRun wakes its Rollout when its phase moves, and itself when its spec does', () => {
    s.analysisRuns.add(run('Running'));
    assert.deepEqual([rolloutKeys, runKeys], [['ns/web'], ['ns/web-1']]);
    s.analysisRuns.update(run('Running'), run('Running')); // a measurement: our status write
    assert.deepEqual([rolloutKeys, runKeys], [['ns/web'], ['ns/web-1']]);
    s.analysisRuns.update(run('Running'), run('Running', 2)); // terminate
    assert.deepEqual(runKeys, ['ns/web-1', 'ns/web-1']);
    s.analysisRuns.update(run('Running', 2), run('Failed', 2));
    assert.deepEqual(rolloutKeys, ['ns/web', 'ns/web']);
    s.analysisRuns.remove(run('Failed', 2));
    assert.deepEqual(rolloutKeys, ['ns/web', 'ns/web', 'ns/web']);
    assert.deepEqual(runKeys, ['ns/web-1', 'ns/web-1', 'ns/web-1']);
  });

  it('an approval wakes the Rollout it names when it appears, not when we answer it', () => {
    s.approvals.add(approval);
    s.approvals.update(approval, { ...approval, status: { phase: 'Recorded' } });
    s.approvals.remove(approval);
    assert.deepEqual(rolloutKeys, ['ns/web']);
  });

  it('a Job wakes the AnalysisRun that controls it', () => {
    s.jobs.add({ metadata: { name: 'web-1-m-1', namespace: 'ns', ownerReferences: [runRef] } });
    s.jobs.add({ metadata: { name: 'other', namespace: 'ns' } });
    assert.deepEqual(runKeys, ['ns/web-1']);
    assert.deepEqual(rolloutKeys, []);
  });

  it('every event counts as activity, whether or not it wakes anything', () => {
    s.approvals.remove(approval);
    s.services.add({ metadata: { name: 'unrelated', namespace: 'ns' } });
    assert.equal(seen, 2);
    assert.deepEqual(rolloutKeys, []);
  });

  it('describes each row: source, named predicate, keys', () => {
    const rows = rolloutWatches(s, { onChange: () => undefined }).map((w) => w.description);
    assert.ok(rows.includes('AnalysisRun -[phaseChanged]-> its owner Rollout'), rows.join('\n'));
    assert.ok(rows.includes('RolloutApproval -[added]-> the Rollout it names'));
    const runs = analysisRunWatches(s).map((w) => w.description);
    assert.deepEqual(runs, [
      'AnalysisRun -[generationChanged]-> itself',
      'Job -[anyChange]-> its owner AnalysisRun',
    ]);
  });
});
