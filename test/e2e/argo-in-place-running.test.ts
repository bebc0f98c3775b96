// Serving argoproj.io in place while Argo Rollouts' own controller still runs (issue 22 item 9,
// "two controllers claiming the same Rollout"): the real Argo v1.9.2, with leader election on as
// it runs by default, walks a canary to its first pause and keeps running; Stepwise starts with
// --api-group=argoproj.io and the shipped RBAC. It must see Argo's Lease held and stand aside:
// a condition and an event naming the Lease and its holder, Argo's status kept, no pod,
// ReplicaSet or Service written. Once Argo stops, Stepwise takes the Rollout over from where it
// stood, nothing moved.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIELD_MANAGER } from '../../src/api/index.ts';
import type { Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { ARGO_API, startArgo } from './support/argo.ts';
import type { ArgoController } from './support/argo.ts';
import { inPlaceControllerKubeconfig } from './support/argo-in-place-rbac.ts';
import * as kept from './support/argo-left.ts';
import { canaryToFirstPause } from './support/argo-scenarios.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { WatchHistory } from './support/history.ts';
import { http, installCrds, waitFor, waitForEvents } from './support/rollouts.ts';

const LEASE_NAME = 'argo-rollouts-controller-lock';

// At the top level, so that the namespace lives as long as the file (in a hook, until its end).
const ns = await testNamespace('argo-running');
let argo: ArgoController;
let stepwise: ControllerProcess | undefined;
let argoStatus: Rollout['status'];
let left: { pods: string[]; selectors: string; owners: string[] };
/** Every write to the app's ReplicaSets, Services and pods from just before Stepwise started. */
const histories: WatchHistory<{ metadata: { name?: string; managedFields?: unknown[] } }>[] = [];

const snapshot = async (): Promise<typeof left> => ({
  pods: await kept.podUids(ns, 'web'),
  selectors: await kept.selectors(ns, 'web-canary', 'web-stable'),
  owners: await kept.owners(ns, 'web'),
});

const rolloutPath = `${ARGO_API}/namespaces/${ns}/rollouts`;
const adopted = (r: Rollout) => r.status?.conditions?.find((c) => c.type === 'Adopted');

before(async () => {
  await installCrds();
  argo = await startArgo(ns, { leaderElect: true });
  await canaryToFirstPause(ns);
  argoStatus = (await http.json<Rollout>('GET', `${rolloutPath}/web`)).status;
  left = await snapshot();
  for (const kind of ['apis/apps/v1/namespaces/NS/replicasets', 'api/v1/namespaces/NS/services']) {
    histories.push(await WatchHistory.start(`/${kind.replace('NS', ns)}`));
  }
  histories.push(await WatchHistory.start(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`));
  const kubeconfig = await inPlaceControllerKubeconfig(ns, 'stepwise-controller-argo-running-e2e');
  stepwise = await startController({
    args: [
      '--leader-elect=false',
      `--namespace=${ns}`,
      '--api-group=argoproj.io',
      `--argo-controller-lease=${ns}/${LEASE_NAME}`,
    ],
    env: { KUBECONFIG: kubeconfig },
  });
});
after(async () => {
  for (const h of histories) h.stop();
  await Promise.all([argo?.stop(), stepwise?.kill()]);
});

describe("Stepwise serving argoproj.io in place while Argo's controller runs", () => {
  it("stands aside within 5 s: a condition and a warning naming the Lease and its holder; Argo's status kept; no pod, ReplicaSet or Service written", async () => {
    const lease = await http.json<{ spec?: { holderIdentity?: string } }>(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE_NAME}`,
    );
    const holder = lease.spec?.holderIdentity ?? '';
    assert.notEqual(holder, '', 'Argo holds its Lease');
    const standing = await waitFor(
      'Adopted False ArgoRolloutsControllerRunning',
      rolloutPath,
      'web',
      (r: Rollout) => adopted(r)?.reason === 'ArgoRolloutsControllerRunning',
      5_000,
    );
    const condition = adopted(standing);
    assert.equal(condition?.status, 'False');
    assert.ok(condition?.message?.includes(`${ns}/${LEASE_NAME}`), condition?.message);
    assert.ok(condition?.message?.includes(holder), condition?.message);
    const fields = (st: Rollout['status']) => [
      st?.currentStepHash,
      st?.currentStepIndex,
      st?.pauseConditions,
      st?.controllerPause,
      st?.stableRS,
      st?.currentPodHash,
      st?.phase,
    ];
    assert.deepEqual(
      fields(standing.status),
      fields(argoStatus),
      "Argo's step hash, step, pause and phase as Argo left them",
    );

    // The Event goes out with the status write; the recorder sends it a moment later.
    await waitForEvents(ns, ['ArgoRolloutsControllerRunning']);
    const events = await http.json<{
      items: {
        type?: string;
        reason?: string;
        regarding?: { apiVersion?: string; name?: string };
      }[];
    }>('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
    const warned = events.items.filter((e) => e.reason === 'ArgoRolloutsControllerRunning');
    assert.deepEqual(
      warned.map((e) => `${e.type} ${e.regarding?.apiVersion} ${e.regarding?.name}`),
      ['Warning argoproj.io/v1alpha1 web'],
    );

    assert.deepEqual(
      await snapshot(),
      left,
      'pods, Service selectors and owners as Argo left them',
    );
    for (const h of histories) {
      const ours = h.events.filter((e) =>
        JSON.stringify(e.object.metadata.managedFields ?? []).includes(`"${FIELD_MANAGER}"`),
      );
      assert.deepEqual(
        ours.map((e) => `${e.type} ${e.object.metadata.name}`),
        [],
        'nothing written by Stepwise',
      );
    }
  });

  it('once Argo stops, takes the Rollout over from its first pause, nothing moved', async () => {
    assert.equal(await argo.stop(), 0, 'Argo shuts down cleanly on SIGTERM');
    // Released on a clean stop; a Lease left held would lapse after its 15 s.
    const taken = await waitFor(
      'Adopted True TakenOverInPlace',
      rolloutPath,
      'web',
      (r: Rollout) => adopted(r)?.reason === 'TakenOverInPlace',
      25_000,
    );
    assert.equal(adopted(taken)?.status, 'True');
    assert.equal(taken.status?.currentStepIndex, 1);
    assert.equal(taken.status?.phase, 'Paused');
    assert.deepEqual(
      [taken.status?.stableRS, taken.status?.currentPodHash],
      [argoStatus?.stableRS, argoStatus?.currentPodHash],
    );
    assert.notEqual(taken.status?.currentStepHash, argoStatus?.currentStepHash, 'ours now');
    assert.deepEqual(
      await snapshot(),
      left,
      'pods, Service selectors and owners as Argo left them',
    );
  });
});
