// Taking over from the real Argo Rollouts controller (issue 22 items 8 and 9). Argo, built from
// its Go module (test/cluster/argo/), walks Rollouts in this file's namespace to the states a
// takeover must keep (support/argo-scenarios.ts). While it runs, a Stepwise Rollout converted from
// one of them is refused: two controllers would claim it. Then Argo is stopped; its objects are
// checked against test/fixtures/argo/*.json (STEPWISE_RECORD_ARGO_FIXTURES=1 records them again),
// and `kubectl stepwise migrate --adopt` hands each Rollout to Stepwise: no pod created or
// deleted, Service selectors byte-identical, the same step; promote goes on with Argo's math.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startArgo } from './support/argo.ts';
import type { ArgoController } from './support/argo.ts';
import { RECORD_ENV, readFixture, shape, snapshot, writeFixture } from './support/argo-fixtures.ts';
import {
  blueGreenBeforeSwitch,
  canaryCompleted,
  canaryFirstVersion,
  canaryToFirstPause,
  waitForArgo,
} from './support/argo-scenarios.ts';
import type { ArgoLeft } from './support/argo-scenarios.ts';
import * as kept from './support/argo-left.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { plugin } from './support/plugin.ts';
import {
  createRollout,
  getService,
  http,
  installCrds,
  replicaSets,
  split,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const HASH = 'rollouts-pod-template-hash';
const recording = process.env[RECORD_ENV] === '1';

// At the top level, so that the namespace lives as long as the file (in a hook, until its end).
const ns = await testNamespace('argo-takeover');
let argo: ArgoController;
let stepwise: ControllerProcess;
/** What Argo left of each Rollout (filled in by `before`). */
const left: Record<'canary' | 'steady' | 'bluegreen', ArgoLeft> = {
  canary: { stable: '', current: '' },
  steady: { stable: '', current: '' },
  bluegreen: { stable: '', current: '' },
};

before(async () => {
  await installCrds();
  [argo, stepwise] = await Promise.all([
    startArgo(ns),
    startController({ args: ['--leader-elect=false', `--namespace=${ns}`] }),
  ]);
  // `held` stays Argo's: the Rollout a Stepwise one is refused while Argo runs.
  [left.canary, left.steady, left.bluegreen] = await Promise.all([
    canaryToFirstPause(ns),
    canaryCompleted(ns),
    blueGreenBeforeSwitch(ns),
    canaryFirstVersion(ns, 'held'),
  ]);
});
after(async () => {
  await Promise.all([argo?.stop(), stepwise?.kill()]);
});

const podUids = (app: string): Promise<string[]> => kept.podUids(ns, app);
const selectors = (...names: string[]): Promise<string> => kept.selectors(ns, ...names);
const owners = (app: string): Promise<string[]> => kept.owners(ns, app);

/** `kubectl stepwise migrate NAME -n NS --adopt`, as docs/migration.md's "From Argo Rollouts". */
async function migrateAdopt(name: string): Promise<Rollout> {
  const run = await plugin(['migrate', name, '-n', ns, '--adopt']);
  assert.equal(run.code, 0, run.stderr);
  return http.json<Rollout>('GET', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/${name}`);
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

describe('while Argo still runs', () => {
  it('two controllers claiming one Rollout: a Stepwise Rollout converted from a running Argo one adopts nothing, says why, touches no pod; Argo keeps it', async () => {
    const pods = await podUids('held');
    const argoOwners = await owners('held');
    const pinned = await selectors('held-canary', 'held-stable');
    const converted = await plugin(['migrate', 'held', '-n', ns]);
    assert.equal(converted.code, 0, converted.stderr);
    await createRollout(ns, load(converted.stdout) as Rollout);
    const refused = await waitForRollout(ns, 'held', 'refused', (r) =>
      (r.status?.conditions ?? []).some(
        (c) => c.type === 'Adopted' && c.reason === 'ArgoRolloutStillOwns',
      ),
    );
    assert.match(refused.status?.message ?? '', /controlled by argoproj.io Rollout held/);
    await waitForEvents(ns, ['ArgoRolloutStillOwns']);
    assert.deepEqual(await owners('held'), argoOwners, "the ReplicaSets stay Argo's, none added");
    assert.deepEqual(await podUids('held'), pods, 'no pod created or deleted');
    assert.equal(await selectors('held-canary', 'held-stable'), pinned);
    await waitForArgo(ns, 'held', 'still Healthy, its own', 'Healthy');
  });
});

describe('what Argo Rollouts leaves: the real controller walked them, then was stopped', () => {
  before(async () => {
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

describe('Stepwise takes over what Argo left (kubectl stepwise migrate --adopt)', () => {
  it("the canary paused at step 1: 0 pods created or deleted, ReplicaSets ours, selectors byte-identical, Paused at step 1 within 5 s; promote goes on with Argo's math to Healthy", async () => {
    const { stable, current } = left.canary;
    const pods = await podUids('web');
    const pinned = await selectors('web-canary', 'web-stable');
    const ro = await migrateAdopt('web');
    const paused = await waitForRollout(
      ns,
      'web',
      'Paused at step 1',
      (r) => r.status?.phase === 'Paused' && r.status.currentStepIndex === 1,
      5_000,
    );
    assert.deepEqual([paused.status?.stableRS, paused.status?.currentPodHash], [stable, current]);
    assert.deepEqual(await podUids('web'), pods, 'no pod created or deleted');
    assert.equal(await selectors('web-canary', 'web-stable'), pinned);
    const ours = `stepwise.dev/v1alpha1 Rollout web ${ro.metadata.uid}`;
    assert.deepEqual(await owners('web'), [ours, ours]);
    assert.deepEqual(await split(ns, paused), [1, 3]);

    assert.equal((await plugin(['promote', 'web', '-n', ns])).code, 0);
    const at3 = await waitForRollout(
      ns,
      'web',
      'Paused at step 3',
      (r) => r.status?.phase === 'Paused' && r.status.currentStepIndex === 3,
    );
    assert.deepEqual(await split(ns, at3), [2, 2], 'setWeight 50 of 4: 2 and 2');
    assert.equal((await plugin(['promote', 'web', '-n', ns])).code, 0);
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy on the new version',
      (r) => r.status?.phase === 'Healthy' && r.status.stableRS === current,
    );
    assert.deepEqual(await split(ns, done), [0, 4]);
    assert.equal((await getService(ns, 'web-stable')).spec?.selector?.[HASH], current);
  });

  it('the Healthy canary: Healthy at once, nothing written but ownership and status (pods, selectors, ReplicaSet specs unchanged)', async () => {
    const pods = await podUids('steady');
    const pinned = await selectors('steady-canary', 'steady-stable');
    const specs = JSON.stringify((await replicaSets(ns, 'steady')).map((rs) => rs.spec));
    const ro = await migrateAdopt('steady');
    const healthy = await waitForRollout(
      ns,
      'steady',
      'Healthy',
      (r) => r.status?.phase === 'Healthy' && r.status.stableRS === left.steady.stable,
      5_000,
    );
    assert.equal(healthy.status?.currentPodHash, left.steady.stable);
    assert.deepEqual(await podUids('steady'), pods, 'no pod created or deleted');
    assert.equal(await selectors('steady-canary', 'steady-stable'), pinned);
    assert.equal(JSON.stringify((await replicaSets(ns, 'steady')).map((rs) => rs.spec)), specs);
    const ours = `stepwise.dev/v1alpha1 Rollout steady ${ro.metadata.uid}`;
    assert.deepEqual(await owners('steady'), [ours, ours]);
  });

  it('the blue-green paused before its switch: Paused, active and preview selectors byte-identical, no pod touched; promote switches the active Service', async () => {
    const { stable, current } = left.bluegreen;
    const pods = await podUids('bg');
    const pinned = await selectors('bg-active', 'bg-preview');
    await migrateAdopt('bg');
    const paused = await waitForRollout(
      ns,
      'bg',
      'Paused before the switch',
      (r) =>
        r.status?.phase === 'Paused' &&
        (r.status.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause'),
      5_000,
    );
    assert.deepEqual([paused.status?.stableRS, paused.status?.currentPodHash], [stable, current]);
    assert.deepEqual(await podUids('bg'), pods, 'no pod created or deleted');
    assert.equal(await selectors('bg-active', 'bg-preview'), pinned);

    assert.equal((await plugin(['promote', 'bg', '-n', ns])).code, 0);
    await waitForRollout(
      ns,
      'bg',
      'Healthy on the new version',
      (r) => r.status?.phase === 'Healthy' && r.status.stableRS === current,
    );
    assert.equal((await getService(ns, 'bg-active')).spec?.selector?.[HASH], current);
  });
});
