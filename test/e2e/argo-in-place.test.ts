// Taking over from the real Argo Rollouts controller in place (issue 22 item 6, first way): Argo,
// built from its Go module, walks three argoproj.io Rollouts to the states a takeover must keep;
// Argo is stopped; Stepwise starts with --api-group=argoproj.io and serves the same objects.
// Then: no pod created or deleted, Service selectors byte-identical, ReplicaSets still owned by
// the same argoproj.io Rollout, every Rollout where Argo left it; Argo CD's own health.lua and
// actions for argoproj.io (from Argo CD's Go module) read and drive them; a bad new version is
// caught and aborted with Argo's keys on what Stepwise writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import { FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import { testNamespace } from '../cluster/testing.ts';
import { argoCdRolloutLua } from '../lua/argocd-builtin.ts';
import { action, discovery, findLua, health, splitStatusPatch } from '../lua/run-lua.ts';
import { ARGO_API, startArgo } from './support/argo.ts';
import type { ArgoController } from './support/argo.ts';
import {
  argoRollout,
  blueGreenBeforeSwitch,
  canaryCompleted,
  canaryToFirstPause,
} from './support/argo-scenarios.ts';
import type { ArgoLeft } from './support/argo-scenarios.ts';
import * as kept from './support/argo-left.ts';
import { inPlaceControllerKubeconfig } from './support/argo-in-place-rbac.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { QUIET_WINDOW_MS } from './support/faults.ts';
import { WatchHistory } from './support/history.ts';
import {
  createService,
  getService,
  http,
  installCrds,
  replicaSets,
  waitFor,
} from './support/rollouts.ts';

const HASH = 'rollouts-pod-template-hash';
const lua = findLua();
const skip = 'skip' in lua ? lua.skip : false;

// At the top level, so that the namespace lives as long as the file (in a hook, until its end).
const ns = await testNamespace('argo-in-place');
let argo: ArgoController;
let stepwise: ControllerProcess | undefined;
let left: Record<'canary' | 'steady' | 'bg', ArgoLeft>;
/** What Argo left, read just before Stepwise started: pods, selectors, ReplicaSet owners. */
const leftByArgo: Record<string, { pods: string[]; selectors: string; owners: string[] }> = {};
let startedAt = 0;

const SERVICES: Record<string, [string, string]> = {
  web: ['web-canary', 'web-stable'],
  steady: ['steady-canary', 'steady-stable'],
  bg: ['bg-active', 'bg-preview'],
};

before(async () => {
  if (skip) return;
  await installCrds();
  argo = await startArgo(ns);
  const [canary, steady, bg] = await Promise.all([
    canaryToFirstPause(ns),
    canaryCompleted(ns),
    blueGreenBeforeSwitch(ns),
  ]);
  left = { canary, steady, bg };
  assert.equal(await argo.stop(), 0, 'Argo shuts down cleanly on SIGTERM');
  for (const [app, services] of Object.entries(SERVICES)) {
    leftByArgo[app] = {
      pods: await podUids(app),
      selectors: await selectors(...services),
      owners: await owners(app),
    };
  }
  // The controller as deploy/rbac makes it (rbac.yaml and argo-in-place.yaml), not as admin.
  const kubeconfig = await inPlaceControllerKubeconfig(ns, 'stepwise-controller-in-place-e2e');
  startedAt = Date.now();
  stepwise = await startController({
    args: ['--leader-elect=false', `--namespace=${ns}`, '--api-group=argoproj.io'],
    env: { KUBECONFIG: kubeconfig },
  });
});
after(async () => {
  await Promise.all([argo?.stop(), stepwise?.kill()]);
});

const podUids = (app: string): Promise<string[]> => kept.podUids(ns, app);
const selectors = (...names: string[]): Promise<string> => kept.selectors(ns, ...names);
const owners = (app: string): Promise<string[]> => kept.owners(ns, app);

function waitForArgoRollout(
  name: string,
  what: string,
  pred: (r: Rollout) => boolean,
  ms = 60_000,
) {
  return waitFor(what, `${ARGO_API}/namespaces/${ns}/rollouts`, name, pred, ms).catch(
    (err: unknown) => {
      // What the controller complained about says more than the object it left.
      const complaints = (stepwise?.logs ?? [])
        .filter((l) => l.level === 'warn' || l.level === 'error')
        .slice(-10)
        .map((l) => JSON.stringify(l).slice(0, 400));
      throw new Error(`${String(err).slice(0, 600)}\ncontroller:\n${complaints.join('\n')}`);
    },
  );
}

const takenOver = (r: Rollout): boolean =>
  (r.status?.conditions ?? []).some(
    (c) => c.type === 'Adopted' && c.status === 'True' && c.reason === 'TakenOverInPlace',
  );

/** [canary, stable] spec.replicas by the hashes in status. */
async function split(r: Rollout): Promise<[number, number]> {
  const rss = await replicaSets(ns, r.metadata.name ?? '');
  const of = (h: string | undefined): number =>
    rss.find((rs) => rs.metadata?.labels?.[HASH] === h)?.spec?.replicas ?? 0;
  const s = r.status ?? {};
  return s.currentPodHash === s.stableRS
    ? [0, of(s.stableRS)]
    : [of(s.currentPodHash), of(s.stableRS)];
}

/** Argo CD's verdict on the live object, with its own health.lua for argoproj.io Rollouts. */
const argoCdHealth = (r: Rollout): string => health(argoCdRolloutLua().health, r).status;

/** An Argo CD action on the live object, sent as Argo CD sends it (merge patch, /status part). */
async function argoCdAction(name: string, live: Rollout): Promise<void> {
  const src = argoCdRolloutLua();
  assert.equal(discovery(src.discovery, live)[name]?.disabled, false, `${name} enabled`);
  const result = action(src.actions[name] ?? '', live, `${name}/action.lua`);
  const { statusPatch, otherPatch } = splitStatusPatch(live, result);
  const path = `${ARGO_API}/namespaces/${ns}/rollouts/${live.metadata.name}`;
  if (statusPatch) {
    await http.json(
      'PATCH',
      `${path}/status?fieldManager=argocd-controller`,
      statusPatch,
      'application/merge-patch+json',
    );
  }
  if (otherPatch) {
    await http.json(
      'PATCH',
      `${path}?fieldManager=argocd-controller`,
      otherPatch,
      'application/merge-patch+json',
    );
  }
}

function assertUntouched(app: string, pods: string[], sel: string, own: string[]): void {
  const was = leftByArgo[app];
  assert.ok(was);
  assert.deepEqual(pods, was.pods, `${app}: no pod created or deleted`);
  assert.equal(sel, was.selectors, `${app}: Service selectors byte-identical`);
  assert.deepEqual(own, was.owners, `${app}: ReplicaSets still the argoproj.io Rollout's`);
}

describe('Stepwise serving argoproj.io in place after Argo stopped', { skip }, () => {
  it("the canary Argo paused at step 1: taken over within 5 s, nothing moved; Argo CD sees Suspended; its resume and promote-full actions walk it on with Argo's math to Healthy", async () => {
    const { stable, current } = left.canary;
    const paused = await waitForArgoRollout(
      'web',
      'taken over, Paused at step 1',
      (r) => takenOver(r) && r.status?.phase === 'Paused' && r.status.currentStepIndex === 1,
      5_000,
    );
    const adopted = paused.status?.conditions?.find((c) => c.type === 'Adopted');
    assert.match(adopted?.message ?? '', /took over from Argo Rollouts in place at step index 1/);
    process.stdout.write(`# web taken over ${Date.now() - startedAt} ms after Stepwise started\n`);
    assert.deepEqual([paused.status?.stableRS, paused.status?.currentPodHash], [stable, current]);
    assertUntouched(
      'web',
      await podUids('web'),
      await selectors(...SERVICES.web!),
      await owners('web'),
    );
    assert.deepEqual(await split(paused), [1, 3]);
    assert.equal(argoCdHealth(paused), 'Suspended');

    await argoCdAction('resume', paused);
    const at3 = await waitForArgoRollout(
      'web',
      'Paused at step 3',
      (r) =>
        r.status?.phase === 'Paused' &&
        r.status.currentStepIndex === 3 &&
        r.status.observedGeneration === String(r.metadata.generation),
    );
    assert.deepEqual(await split(at3), [2, 2], 'setWeight 50 of 4: 2 and 2');
    assert.equal(argoCdHealth(at3), 'Suspended');

    await argoCdAction('promote-full', at3);
    const done = await waitForArgoRollout(
      'web',
      'Healthy on the new version',
      (r) =>
        r.status?.phase === 'Healthy' &&
        r.status.stableRS === current &&
        (r.status.availableReplicas ?? 0) === 4,
    );
    assert.deepEqual(await split(done), [0, 4]);
    assert.equal((await getService(ns, 'web-stable')).spec?.selector?.[HASH], current);
    assert.equal(argoCdHealth(done), 'Healthy');
    assert.ok(current !== stable);
  });

  it("the blue-green Argo paused before its switch: Paused, selectors byte-identical; Argo CD's resume switches the active Service", async () => {
    const { stable, current } = left.bg;
    const paused = await waitForArgoRollout(
      'bg',
      'taken over, Paused before the switch',
      (r) =>
        takenOver(r) &&
        r.status?.phase === 'Paused' &&
        (r.status.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause'),
      5_000,
    );
    assert.deepEqual([paused.status?.stableRS, paused.status?.currentPodHash], [stable, current]);
    assertUntouched(
      'bg',
      await podUids('bg'),
      await selectors(...SERVICES.bg!),
      await owners('bg'),
    );
    assert.equal(argoCdHealth(paused), 'Suspended');
    await argoCdAction('resume', paused);
    const done = await waitForArgoRollout(
      'bg',
      'Healthy on the new version',
      (r) => r.status?.phase === 'Healthy' && r.status.stableRS === current,
    );
    assert.equal((await getService(ns, 'bg-active')).spec?.selector?.[HASH], current);
    assert.equal(argoCdHealth(done), 'Healthy');
  });

  it("a new version that never becomes ready, on the Healthy canary: a ReplicaSet with Argo's keys and the next revision, Degraded at the deadline, Argo CD's abort returns to stable; then nothing is written", async () => {
    const { stable } = left.steady;
    const healthy = await waitForArgoRollout(
      'steady',
      'taken over, Healthy',
      (r) => takenOver(r) && r.status?.phase === 'Healthy',
      5_000,
    );
    assertUntouched(
      'steady',
      await podUids('steady'),
      await selectors(...SERVICES.steady!),
      await owners('steady'),
    );
    assert.equal(healthy.status?.stableRS, stable);
    const uid = healthy.metadata.uid;

    await http.json(
      'PATCH',
      `${ARGO_API}/namespaces/${ns}/rollouts/steady?fieldManager=kubectl`,
      {
        spec: {
          progressDeadlineSeconds: 3,
          template: { metadata: { labels: { app: 'steady', [FAULT_LABEL]: NEVER_READY } } },
        },
      },
      'application/merge-patch+json',
    );
    const degraded = await waitForArgoRollout(
      'steady',
      'Degraded at the progress deadline',
      (r) =>
        r.status?.phase === 'Degraded' &&
        r.status.currentPodHash !== stable &&
        r.status.observedGeneration === String(r.metadata.generation),
    );
    const fresh = (await replicaSets(ns, 'steady')).find(
      (rs) => rs.metadata?.labels?.[HASH] === degraded.status?.currentPodHash,
    ) as ReplicaSet;
    assert.ok(fresh, 'a ReplicaSet for the new version');
    assert.equal(
      fresh.metadata?.annotations?.['rollout.argoproj.io/revision'],
      '3',
      "Argo's revisions go on: 1, 2, then 3",
    );
    assert.equal(
      fresh.metadata?.annotations?.['stepwise.dev/revision'],
      undefined,
      "Argo's key, not ours",
    );
    const owner = fresh.metadata?.ownerReferences?.find((o) => o.controller === true);
    assert.equal(
      `${owner?.apiVersion} ${owner?.kind} ${owner?.uid}`,
      `argoproj.io/v1alpha1 Rollout ${uid}`,
    );
    // Argo's math for setWeight 50 of 4 (maxSurge and maxUnavailable 25%, so 5 pods at most and
    // 3 available at least): 2 canary (never ready) and the stable down to 3.
    assert.deepEqual(await split(degraded), [2, 3]);
    assert.equal(argoCdHealth(degraded), 'Degraded');

    await argoCdAction('abort', degraded);
    const aborted = await waitForArgoRollout(
      'steady',
      'aborted back to stable, all 4 stable pods available again',
      (r) =>
        r.status?.abort === true &&
        r.status.phase === 'Degraded' &&
        r.status.abortedAt !== undefined &&
        r.status.availableReplicas === 4 &&
        r.status.replicas === 4,
    );
    const back = await waitFor(
      `steady canary at 0`,
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      fresh.metadata?.name ?? '',
      (rs: ReplicaSet) => rs.spec?.replicas === 0,
    );
    assert.equal(back.spec?.replicas, 0);
    assert.equal((await getService(ns, 'steady-stable')).spec?.selector?.[HASH], stable);
    assert.equal(argoCdHealth(aborted), 'Degraded');

    const history = await WatchHistory.start<Rollout>(
      `${ARGO_API}/namespaces/${ns}/rollouts?fieldSelector=metadata.name%3Dsteady`,
    );
    try {
      const from = history.mark;
      await history.window(QUIET_WINDOW_MS);
      const writes = history.events.slice(from).filter((e) => e.type === 'MODIFIED');
      assert.deepEqual(
        writes.map((e) => e.object.status),
        [],
        'no Rollout write while it waits for a person',
      );
    } finally {
      history.stop();
    }
  });

  it('an Argo feature Stepwise lacks (an Experiment step) served in place: InvalidSpec naming it; no ReplicaSet, no pod; Argo CD sees Degraded', async () => {
    await createService(ns, 'exp-canary', 'exp');
    await createService(ns, 'exp-stable', 'exp');
    const steps = [
      { setWeight: 20 },
      { experiment: { duration: '1m', templates: [{ name: 'baseline', specRef: 'stable' }] } },
    ];
    const body = argoRollout('exp', {
      canary: { canaryService: 'exp-canary', stableService: 'exp-stable', steps },
    });
    await http.json('POST', `${ARGO_API}/namespaces/${ns}/rollouts`, body);
    const refused = await waitForArgoRollout('exp', 'InvalidSpec', (r) =>
      (r.status?.conditions ?? []).some((c) => c.type === 'InvalidSpec' && c.status === 'True'),
    );
    const invalid = refused.status?.conditions?.find((c) => c.type === 'InvalidSpec');
    assert.match(invalid?.message ?? '', /steps\[1\]: unknown field experiment/);
    assert.deepEqual(await replicaSets(ns, 'exp'), [], 'no ReplicaSet');
    assert.deepEqual(await podUids('exp'), [], 'no pod');
    assert.equal(argoCdHealth(refused), 'Degraded');
  });

  it('what Stepwise says about it: the takeover event, on the argoproj.io Rollout', async () => {
    const events = await http.json<{
      items: { reason?: string; regarding?: { apiVersion?: string; name?: string } }[];
    }>('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
    const taken = events.items.filter((e) => e.reason === 'TakenOverInPlace');
    assert.deepEqual(taken.map((e) => `${e.regarding?.apiVersion} ${e.regarding?.name}`).sort(), [
      'argoproj.io/v1alpha1 bg',
      'argoproj.io/v1alpha1 steady',
      'argoproj.io/v1alpha1 web',
    ]);
  });
});
