import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INSTANCE_ID_LABEL, POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import {
  cacheSpecs,
  controllerInformers,
  startedInformers,
} from '../../../src/controller/informers.ts';
import { silentLogger } from '../../../src/kube/index.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { slimPod, slimService } from '../../../src/controller/caches.ts';

type Row = { readonly name: string; readonly clusterWide?: boolean; readonly transform?: unknown };
const rows = (): Row[] => Object.values(cacheSpecs(undefined)) as Row[];

describe('the controller informer table', () => {
  it('takes only its own instance: Rollouts and runs with its label, or with none', () => {
    const unlabelled = cacheSpecs(undefined);
    const team = cacheSpecs('team-a');
    for (const kind of ['rollouts', 'analysisRuns'] as const) {
      assert.equal(unlabelled[kind].labelSelector, `!${INSTANCE_ID_LABEL}`, kind);
      assert.equal(team[kind].labelSelector, `${INSTANCE_ID_LABEL}=team-a`, kind);
    }
  });

  it('reads only ReplicaSets and pods with a template hash, never all of the cluster’s', () => {
    const specs = cacheSpecs(undefined);
    assert.equal(specs.replicaSets.labelSelector, POD_TEMPLATE_HASH_LABEL);
    assert.equal(specs.pods.labelSelector, POD_TEMPLATE_HASH_LABEL);
  });

  it('watches ClusterAnalysisTemplates cluster-wide, and nothing else', () => {
    const wide = rows()
      .filter((s) => s.clusterWide === true)
      .map((s) => s.name);
    assert.deepEqual(wide, ['clusteranalysistemplates']);
  });

  it('namespaced, starts every informer but the cluster-wide ones: a Role cannot grant them', () => {
    const informers = controllerInformers(cacheSpecs(undefined), {
      api: new FakeKubeApi(),
      namespace: 'team',
      clock: new FakeClock(0),
      log: silentLogger,
      onResumed: () => undefined,
    });
    const all = Object.values(informers);
    assert.deepEqual(startedInformers(informers, { namespaced: false }), all);
    assert.deepEqual(
      startedInformers(informers, { namespaced: true }),
      all.filter((i) => i !== informers.clusterAnalysisTemplates),
    );
  });

  it('keeps pods and Services slim (caches.ts), and every other kind whole', () => {
    const specs = cacheSpecs(undefined);
    assert.equal(specs.pods.transform, slimPod);
    assert.equal(specs.services.transform, slimService);
    const whole = rows()
      .filter((s) => s.transform === undefined)
      .map((s) => s.name);
    assert.equal(whole.length, Object.keys(specs).length - 2);
  });
});
