// Taking over from the real Argo Rollouts controller (issue 22 items 8 and 9): Argo, built from
// its Go module (test/cluster/argo/), walks Rollouts in this file's namespace to the states a
// takeover must keep; then it is stopped and the live objects are what Stepwise inherits. The
// same objects, trimmed, are test/fixtures/argo/*.json: each run checks that Argo still writes
// those shapes (STEPWISE_RECORD_ARGO_FIXTURES=1 records them again).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { ARGO_API, startArgo } from './support/argo.ts';
import type { ArgoController } from './support/argo.ts';
import { RECORD_ENV, readFixture, shape, snapshot, writeFixture } from './support/argo-fixtures.ts';
import {
  createService,
  getService,
  http,
  replicaSets,
  rolloutBody,
  waitFor,
} from './support/rollouts.ts';

const HASH = 'rollouts-pod-template-hash';
const recording = process.env[RECORD_ENV] === '1';

// At the top level, so that the namespace lives as long as the file (in a hook, until its end).
const ns = await testNamespace('argo-takeover');
let argo: ArgoController;

before(async () => {
  argo = await startArgo(ns);
});
after(() => argo.stop());

/** An argoproj.io Rollout: image `registry.invalid/app:1`, the given strategy and replicas. */
function argoRollout(name: string, strategy: Rollout['spec']['strategy'], replicas = 4): Rollout {
  return { ...rolloutBody(name, { strategy, replicas }), apiVersion: 'argoproj.io/v1alpha1' };
}

async function createArgoRollout(body: Rollout): Promise<void> {
  await http.json('POST', `${ARGO_API}/namespaces/${ns}/rollouts`, body);
}

async function setArgoImage(name: string, image: string): Promise<void> {
  await http.json(
    'PATCH',
    `${ARGO_API}/namespaces/${ns}/rollouts/${name}?fieldManager=kubectl`,
    {
      spec: {
        template: { spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] } },
      },
    },
    'application/merge-patch+json',
  );
}

/**
 * Waits until Argo reports `phase` for the latest spec, settled (the condition of the same name
 * True: Argo sets it in a later write than the phase), and `extra` holds.
 */
function waitForArgo(
  name: string,
  what: string,
  phase: 'Healthy' | 'Paused',
  extra: (r: Rollout) => boolean = () => true,
): Promise<Rollout> {
  return waitFor(
    `Argo: ${name} ${what}`,
    `${ARGO_API}/namespaces/${ns}/rollouts`,
    name,
    (r: Rollout) =>
      r.status?.phase === phase &&
      r.status.observedGeneration === String(r.metadata.generation) &&
      r.status.conditions?.some((c) => c.type === phase && c.status === 'True') === true &&
      extra(r),
  );
}

/** Waits until Service `name` selects pods of hash `hash` (Argo switches them after status). */
async function waitForSelector(name: string, hash: string | undefined): Promise<void> {
  await waitFor(
    `Service ${name} selecting ${hash}`,
    `/api/v1/namespaces/${ns}/services`,
    name,
    (svc: { spec?: { selector?: Record<string, string> } }) => svc.spec?.selector?.[HASH] === hash,
  );
}

/** [spec.replicas, readyReplicas] of the ReplicaSet with pod-template hash `hash`. */
function counts(rss: readonly ReplicaSet[], hash: string | undefined): [number, number] {
  const rs = rss.find((r) => r.metadata?.labels?.[HASH] === hash);
  return [rs?.spec?.replicas ?? -1, rs?.status?.readyReplicas ?? 0];
}

/** Records the scenario, or checks that Argo's live objects still have the recorded shapes. */
async function recordOrCompare(scenario: string, name: string): Promise<void> {
  const live = await snapshot(ns, name);
  if (recording) writeFixture(scenario, live);
  // As text, so that a failure shows the lines that differ.
  else
    assert.equal(
      JSON.stringify(shape(live), null, 1),
      JSON.stringify(shape(readFixture(scenario)), null, 1),
      `Argo's ${scenario} objects drifted from test/fixtures/argo/${scenario}.json`,
    );
}

/** The Argo Rollouts, as Argo left them before it was stopped (filled in by `before`). */
const left: Record<'canary' | 'steady' | 'bluegreen', { stable: string; current: string }> = {
  canary: { stable: '', current: '' },
  steady: { stable: '', current: '' },
  bluegreen: { stable: '', current: '' },
};
const CANARY_STEPS = [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }];

/** Argo: a canary, first version Healthy, then a second version to its first pause. */
async function canaryToFirstPause(): Promise<void> {
  await createService(ns, 'web-canary', 'web');
  await createService(ns, 'web-stable', 'web');
  await createArgoRollout(
    argoRollout('web', {
      canary: { canaryService: 'web-canary', stableService: 'web-stable', steps: CANARY_STEPS },
    }),
  );
  await waitForArgo('web', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 4);
  await setArgoImage('web', 'app:2');
  const paused = await waitForArgo(
    'web',
    'paused at step 1 with 4 available',
    'Paused',
    (r) => r.status?.currentStepIndex === 1 && r.status.availableReplicas === 4,
  );
  await waitForSelector('web-canary', paused.status?.currentPodHash);
  await waitForSelector('web-stable', paused.status?.stableRS);
  left.canary = {
    stable: paused.status?.stableRS ?? '',
    current: paused.status?.currentPodHash ?? '',
  };
}

/**
 * Argo: a canary whose second version walks its one step to Healthy, the first ReplicaSet at 0.
 * No pause: a `promote --full` (promoteFull: true on status) sent within a second of Argo's
 * pause was lost about one time in three (Argo v1.9.2 logged no event for it and never went
 * on), and a takeover test must not hang on Argo.
 */
async function canaryCompleted(): Promise<void> {
  await createService(ns, 'steady-canary', 'steady');
  await createService(ns, 'steady-stable', 'steady');
  await createArgoRollout(
    argoRollout('steady', {
      canary: {
        canaryService: 'steady-canary',
        stableService: 'steady-stable',
        steps: [{ setWeight: 50 }],
      },
    }),
  );
  await waitForArgo('steady', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 4);
  await setArgoImage('steady', 'app:2');
  const done = await waitForArgo(
    'steady',
    'Healthy on the second version',
    'Healthy',
    (r) =>
      r.status?.stableRS === r.status?.currentPodHash &&
      r.metadata.annotations?.['rollout.argoproj.io/revision'] === '2' &&
      r.status?.availableReplicas === 4 &&
      r.status.replicas === 4,
  );
  await waitForSelector('steady-canary', done.status?.stableRS);
  await waitForSelector('steady-stable', done.status?.stableRS);
  left.steady = { stable: done.status?.stableRS ?? '', current: done.status?.currentPodHash ?? '' };
}

/** Argo: a blue-green Rollout (3 replicas, no auto-promotion) paused before its switch. */
async function blueGreenBeforeSwitch(): Promise<void> {
  await createService(ns, 'bg-active', 'bg');
  await createService(ns, 'bg-preview', 'bg');
  await createArgoRollout(
    argoRollout(
      'bg',
      {
        blueGreen: {
          activeService: 'bg-active',
          previewService: 'bg-preview',
          autoPromotionEnabled: false,
        },
      },
      3,
    ),
  );
  await waitForArgo('bg', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 3);
  await setArgoImage('bg', 'app:2');
  const paused = await waitForArgo(
    'bg',
    'paused before the switch with the preview up',
    'Paused',
    (r) =>
      (r.status?.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause') &&
      r.status?.availableReplicas === 3,
  );
  await waitForSelector('bg-preview', paused.status?.currentPodHash);
  await waitForSelector('bg-active', paused.status?.stableRS);
  left.bluegreen = {
    stable: paused.status?.stableRS ?? '',
    current: paused.status?.currentPodHash ?? '',
  };
}

describe('what Argo Rollouts leaves: the real controller walks three Rollouts, then is stopped', () => {
  before(async () => {
    await Promise.all([canaryToFirstPause(), canaryCompleted(), blueGreenBeforeSwitch()]);
    assert.equal(await argo.stop(), 0, 'Argo shuts down cleanly on SIGTERM');
  });

  it('a canary paused at step 1: 1 new and 3 stable pods ready, the Services pinned; shapes as in test/fixtures/argo/canary-paused.json', async () => {
    const { stable, current } = left.canary;
    assert.ok(stable && current && stable !== current);
    const rss = await replicaSets(ns, 'web');
    assert.deepEqual(counts(rss, current), [1, 1], 'one canary pod, ready');
    assert.deepEqual(counts(rss, stable), [3, 3], 'three stable pods, ready');
    assert.equal((await getService(ns, 'web-canary')).spec?.selector?.[HASH], current);
    assert.equal((await getService(ns, 'web-stable')).spec?.selector?.[HASH], stable);
    await recordOrCompare('canary-paused', 'web');
  });

  it('a canary Healthy on its second version: 4 pods, the first ReplicaSet at 0; shapes as in test/fixtures/argo/canary-healthy.json', async () => {
    const { stable } = left.steady;
    const rss = await replicaSets(ns, 'steady');
    assert.equal(rss.length, 2);
    assert.deepEqual(counts(rss, stable), [4, 4]);
    assert.deepEqual(rss.map((rs) => rs.spec?.replicas).sort(), [0, 4]);
    await recordOrCompare('canary-healthy', 'steady');
  });

  it('a blue-green paused before its switch: preview up, active still on the first version; shapes as in test/fixtures/argo/bluegreen-paused.json', async () => {
    const { stable, current } = left.bluegreen;
    assert.ok(stable && current && stable !== current);
    const rss = await replicaSets(ns, 'bg');
    assert.deepEqual(counts(rss, current), [3, 3]);
    assert.deepEqual(counts(rss, stable), [3, 3]);
    assert.equal((await getService(ns, 'bg-active')).spec?.selector?.[HASH], stable);
    assert.equal((await getService(ns, 'bg-preview')).spec?.selector?.[HASH], current);
    await recordOrCompare('bluegreen-paused', 'bg');
  });
});
