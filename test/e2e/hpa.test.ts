// A HorizontalPodAutoscaler (autoscaling/v2) scaling a Rollout through its scale subresource in
// the middle of a canary, with the local cluster's own HPA controller (kube-controller-manager).
// There is no metrics API here: an HPA whose minReplicas is above the target's replicas raises
// it to minReplicas without reading a metric, which is all these tests need.
//
// The split at the new count is Argo's basic-canary rule (utils/replicaset/canary.go,
// approximateWeightedCanaryStableReplicaCounts; ours is src/rollout/canary/replicas.ts): the
// canary/stable pair whose canary share is closest to the weight, over `replicas` pods or, when
// maxSurge allows it, `replicas + 1`. At setWeight 30: 2 replicas → 1/2 (33 %: 1/1 would be 50 %
// and a 0-pod side is not allowed); 5 replicas → 2/4 (33 %, closer than 2/3 = 40 % or 1/4 = 20 %).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSet, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import {
  activeService,
  blueGreenRollout,
  createBlueGreenServices,
  recordServiceHashes,
  waitForRevisionReplicas,
} from './support/bluegreen-numbers.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { plugin } from './support/plugin.ts';
import {
  hashOf,
  neverReadyTemplate,
  QUIET_WINDOW_MS,
  waitForCanary,
  waitForSplit,
} from './support/faults.ts';
import { scaleStates, total, trace, watchReplicaSets } from './support/history.ts';
import {
  createRollout,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForList,
  waitForRollout,
} from './support/rollouts.ts';

const STEPS = { canary: { steps: [{ setWeight: 30 }, { pause: {} }] } };
/** maxSurge and maxUnavailable default to 25 %: at 5 replicas, 2 (rounded up) and 1 (down). */
const SURGE_AT_5 = 2;
const UNAVAILABLE_AT_5 = 1;

/** autoscaling/v1 Scale, as the HPA controller reads a target. */
interface Scale {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

/** An HPA on the Rollout `name` whose floor is above its replicas: the HPA controller scales
 *  the Rollout to `minReplicas` through rollouts/scale. */
async function autoscale(ns: string, name: string, minReplicas: number): Promise<void> {
  await http.json('POST', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: 'stepwise.dev/v1alpha1', kind: 'Rollout', name },
      minReplicas,
      maxReplicas: 10,
    },
  });
}

/** The Rollout once the HPA's count is in its spec and the controller has acted on it. */
function waitForScaledTo(ns: string, name: string, replicas: number): Promise<Rollout> {
  return waitForRollout(
    ns,
    name,
    `spec.replicas ${replicas} from the HPA, acted on`,
    (r) =>
      r.spec.replicas === replicas &&
      r.status?.observedGeneration === String(r.metadata.generation),
    // The HPA controller looks at a new HPA one sync period (1 s here) after it appears, but it
    // finds a kind's scale through kube-controller-manager's discovery cache, reset every 30 s:
    // on a fresh cluster whose CRDs this file just installed, the first HPA waits up to that.
    45_000,
  );
}

describe('an HPA scales a Rollout during a canary', () => {
  it('2 → 5 replicas at setWeight 30: the split goes 1/2 → 2/4, the step holds, then Healthy at 5', async () => {
    const ns = await testNamespace('hpa');
    await createRollout(ns, rolloutBody('web', { replicas: 2, strategy: STEPS }));
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(
      ns,
      'web',
      'paused after setWeight 30',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    assert.deepEqual(await split(ns, paused), [1, 2], 'canary/stable at 2 replicas');

    await autoscale(ns, 'web', 5);
    const scaled = await waitForScaledTo(ns, 'web', 5);
    await waitForSplit(ns, scaled, 2, 4);
    const still = await waitForRollout(
      ns,
      'web',
      'the canary pods available at 5, still at the pause',
      (r) => r.status?.availableReplicas === 6,
    );
    // A new replica count is not a new revision: same canary, same step, same pause.
    assert.equal(still.status?.currentPodHash, paused.status?.currentPodHash);
    assert.equal(still.status?.stableRS, paused.status?.stableRS);
    assert.equal(still.status?.currentStepIndex, 1);
    assert.equal(still.status?.phase, 'Paused');
    // What the HPA reads back through the scale subresource: every pod the Rollout runs, and
    // the selector it reads metrics for.
    const scale = await http.json<Scale>(
      'GET',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/web/scale`,
    );
    assert.equal(scale.spec?.replicas, 5);
    assert.equal(scale.status?.replicas, 6);
    assert.equal(scale.status?.selector, 'app=web');

    await patchStatus(ns, 'web', { pauseConditions: null }); // as `kubectl stepwise promote`
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy at 5 on the new version',
      phase(
        'Healthy',
        (r) =>
          r.status?.stableRS === paused.status?.currentPodHash && r.status?.availableReplicas === 5,
      ),
    );
    assert.deepEqual(await split(ns, done), [0, 5], 'all 5 on the new version');
    assert.equal(done.spec.replicas, 5);
  });

  it('new pods never Ready: scaled to 5, the stable grows to 4 and serves, no more than 5 + maxSurge pods', async (t) => {
    const ns = await testNamespace('hpa-stuck');
    await createRollout(ns, rolloutBody('stuck', { replicas: 2, strategy: STEPS }));
    await waitForRollout(ns, 'stuck', 'first revision Healthy', phase('Healthy'));
    await patchSpec(ns, 'stuck', neverReadyTemplate('stuck'));
    const canary = await waitForCanary(ns, 'stuck');
    await waitForSplit(ns, canary, 1, 2);
    const stable = canary.status?.stableRS ?? '';
    const newHash = canary.status?.currentPodHash ?? '';

    const rss = await watchReplicaSets(ns);
    t.after(() => rss.stop());
    await autoscale(ns, 'stuck', 5);
    const scaled = await waitForScaledTo(ns, 'stuck', 5);
    await waitForSplit(ns, scaled, 2, 4);
    await waitForList(
      'the stable ReplicaSet with 4 available pods',
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      (items: ReplicaSet[]) =>
        items.some((rs) => hashOf(rs) === stable && rs.status?.availableReplicas === 4),
    );
    // Nothing moves while the canary stays unready: the split holds, the stable keeps serving.
    await rss.window(QUIET_WINDOW_MS);
    // From the first state with both ReplicaSets: the watch lists them one at a time.
    const states = scaleStates(rss.events).filter(
      (s) => s.replicas.has(stable) && s.replicas.has(newHash),
    );
    const history = trace(states, stable, newHash);
    t.diagnostic(`stable/canary from the HPA on: ${history}`);
    const over = states.filter((s) => total(s) > 5 + SURGE_AT_5);
    assert.deepEqual(over.map(total), [], `more than replicas + maxSurge: ${history}`);
    // The stable never shrank below its 2 (the only available pods) while the canary was stuck.
    const shrunk = states.filter((s) => (s.replicas.get(stable) ?? 0) < 2);
    assert.deepEqual(shrunk.map(total), [], `stable below 2: ${history}`);

    const held = await waitForRollout(ns, 'stuck', 'status at 5', (r) => r.spec.replicas === 5);
    assert.equal(held.status?.stableRS, stable, 'the stable is still the stable');
    assert.equal(held.status?.currentStepIndex, 0, 'setWeight 30 not completed');
    assert.notEqual(held.status?.phase, 'Healthy');
    assert.ok(
      (held.status?.availableReplicas ?? 0) >= 5 - UNAVAILABLE_AT_5,
      `available ${held.status?.availableReplicas} >= replicas - maxUnavailable`,
    );
    assert.deepEqual(await split(ns, held), [2, 4], 'canary/stable after the quiet window');
  });
});

/** The Rollout's scale subresource, as the HPA controller reads it. */
const scaleOf = (ns: string, name: string): Promise<Scale> =>
  http.json<Scale>('GET', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/${name}/scale`);

/** The selector the HPA counts pods by names this hash: it measures that version. */
function assertMeasures(scale: Scale, hash: string | undefined, what: string): void {
  assert.ok(hash);
  assert.match(
    scale.status?.selector ?? '',
    new RegExp(`rollouts-pod-template-hash=${hash}`),
    what,
  );
}

/** A blue-green Rollout `web` of 2 replicas, Healthy on revision 1; its hash. */
async function healthyBlueGreen(ns: string, autoPromotionEnabled: boolean): Promise<string> {
  await createBlueGreenServices(ns, 'web');
  await createRollout(ns, blueGreenRollout('web', { autoPromotionEnabled }, { replicas: 2 }));
  const first = await waitForRollout(ns, 'web', 'revision 1 Healthy', phase('Healthy'));
  assert.ok(first.status?.currentPodHash);
  return first.status.currentPodHash;
}

/** An HPA raises `web` from 2 to 4: both versions ask for 4 pods (no previewReplicaCount), and
 *  the status (so the scale subresource) counts the 4 available pods of the serving one. */
async function autoscaledTo4(ns: string, what: string): Promise<Rollout> {
  await autoscale(ns, 'web', 4);
  await waitForScaledTo(ns, 'web', 4);
  await waitForRevisionReplicas(ns, 'web', { 1: 4, 2: 4 });
  return waitForRollout(
    ns,
    'web',
    what,
    (r) => r.status?.HPAReplicas === 4 && r.status.availableReplicas === 4,
  );
}

// Argo: a blue-green's status counts (and so the scale subresource) are the active ReplicaSet's,
// and the preview is scaled to spec.replicas when previewReplicaCount is not set.
describe('an HPA scales a blue-green Rollout', () => {
  it('paused before the switch: 2 → 4 grows the serving version and the preview, the HPA counts the active pods; promoted, it counts the new ones', async () => {
    const ns = await testNamespace('hpa-bg');
    const stable = await healthyBlueGreen(ns, false);
    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(ns, 'web', 'BlueGreenPause', (r) =>
      (r.status?.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause'),
    );
    const preview = paused.status?.currentPodHash;
    const grown = await autoscaledTo4(ns, 'the active version at 4 available, still paused');
    assert.equal(grown.status?.phase, 'Paused');
    assert.equal(grown.status?.blueGreen?.activeSelector, stable);
    const before = await scaleOf(ns, 'web');
    assert.equal(before.status?.replicas, 4);
    assertMeasures(before, stable, 'the HPA counts the pods that serve, not the preview');

    const promoted = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promoted.code, 0, promoted.stderr);
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy on revision 2 at 4',
      (r) => phase('Healthy')(r) && r.status?.stableRS === preview && r.status?.HPAReplicas === 4,
    );
    assert.equal(done.status?.blueGreen?.activeSelector, preview);
    assertMeasures(await scaleOf(ns, 'web'), preview, 'after the switch, the new version');
  });

  it('a new version never Ready: the HPA grows the stable, which keeps serving, and the active Service never moves', async (t) => {
    const ns = await testNamespace('hpa-bg-stuck');
    const stable = await healthyBlueGreen(ns, true);
    const active = await recordServiceHashes(ns, activeService('web'));
    t.after(() => active.stop());
    await patchSpec(ns, 'web', neverReadyTemplate('web'));
    const updating = await waitForRollout(ns, 'web', 'a second ReplicaSet', (r) =>
      Boolean(r.status?.currentPodHash && r.status.currentPodHash !== stable),
    );
    const stuck = updating.status?.currentPodHash;
    const grown = await autoscaledTo4(ns, 'the stable at 4 available');
    assert.equal(grown.status?.blueGreen?.activeSelector, stable);
    assertMeasures(await scaleOf(ns, 'web'), stable, 'the HPA counts the stable pods');
    assert.ok(
      !active.seen.includes(stuck),
      `the active Service selected ${active.seen.join(' → ')}; never the unready ${stuck}`,
    );
  });
});
