// Blue-green and its pods (issue 21 §2, §3), real controller, local control plane: the preview
// and active metadata patched onto the live pods (Argo's TestEphemeralMetadata, no restart),
// the anti-affinity that keeps the new version off the stable version's nodes (four nodes of
// this test's own, tainted so that no other pod lands there), and switching a Rollout between
// canary and blue-green, which leaves no pod-template hash on a Service the new strategy does
// not use (Argo's TestBlueGreenToCanary).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import type { V1PodSpec as PodSpec } from '@kubernetes/client-node';
import type { Pod, ReplicaSet, Rollout, Service } from '../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { blueGreenBody } from './support/bluegreen-history.ts';
import {
  activeService,
  createBlueGreenServices,
  hashOfRs,
  previewService,
} from './support/bluegreen-numbers.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { stopWatches } from './support/history.ts';
import { createPool, POOL_KEY, removePool, SIDE_KEY } from './support/node-pool.ts';
import {
  createRollout,
  createService,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  replicaSets,
  rolloutBody,
  setImage,
  waitFor,
  waitForList,
  waitForRollout,
} from './support/rollouts.ts';

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
afterEach(stopWatches);
after(() => controller?.kill());

const live = (p: Pod): boolean =>
  !p.metadata?.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded';

/**
 * Waits until the ReplicaSet with `hash` has exactly `count` live pods and `pred` holds for
 * each; returns them.
 */
async function podsOf(
  ns: string,
  hash: string,
  count: number,
  what: string,
  pred: (labels: Record<string, string>) => boolean,
): Promise<Pod[]> {
  const items = await waitForList(
    `${count} pods of ${hash}: ${what}`,
    `/api/v1/namespaces/${ns}/pods?labelSelector=${POD_TEMPLATE_HASH_LABEL}%3D${hash}`,
    (pods: Pod[]) => {
      const current = pods.filter(live);
      return current.length === count && current.every((p) => pred(p.metadata?.labels ?? {}));
    },
  );
  return items.filter(live);
}

const uids = (pods: readonly Pod[]): string[] => pods.map((p) => p.metadata?.uid ?? '').sort();

/** `labels` has `key` at `value`, or not at all when `value` is undefined. */
const has =
  (expected: Record<string, string | undefined>) =>
  (labels: Record<string, string>): boolean =>
    Object.entries(expected).every(([k, v]) => labels[k] === v);

describe('activeMetadata and previewMetadata (Argo TestEphemeralMetadata)', () => {
  it('preview labels while paused, active ones after promotion, patched onto the live pods', async () => {
    const ns = await testNamespace('bg-metadata');
    await createBlueGreenServices(ns, 'app');
    await createRollout(
      ns,
      blueGreenBody('app', {
        autoPromotionEnabled: false,
        previewMetadata: { labels: { role: 'preview' } },
        activeMetadata: { labels: { role: 'active' } },
      }),
    );
    const healthy = await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
    const rev1 = healthy.status?.stableRS ?? '';
    await podsOf(ns, rev1, 2, 'role=active on the first deploy', has({ role: 'active' }));

    await setImage(ns, 'app', 'app:2');
    const paused = await waitForRollout(
      ns,
      'app',
      'paused before promotion',
      phase('Paused', (r) => r.status?.currentPodHash !== rev1),
    );
    const rev2 = paused.status?.currentPodHash ?? '';
    const previewPods = await podsOf(ns, rev2, 2, 'role=preview', has({ role: 'preview' }));
    await podsOf(ns, rev1, 2, 'still role=active', has({ role: 'active' }));

    // The key removed from the spec (merge patch null) goes from the pods too; the pods stay.
    await patchSpec(ns, 'app', {
      strategy: { blueGreen: { previewMetadata: { labels: { role: null, role2: 'preview2' } } } },
    });
    const relabelled = await podsOf(
      ns,
      rev2,
      2,
      'only role2=preview2',
      has({ role: undefined, role2: 'preview2' }),
    );
    assert.deepEqual(uids(relabelled), uids(previewPods), 'the same pods, relabelled in place');

    await patchStatus(ns, 'app', { pauseConditions: null });
    await waitForRollout(
      ns,
      'app',
      'promoted',
      phase('Healthy', (r) => r.status?.stableRS === rev2),
    );
    const promoted = await podsOf(
      ns,
      rev2,
      2,
      'role=active, no preview label left',
      has({ role: 'active', role2: undefined }),
    );
    assert.deepEqual(uids(promoted), uids(previewPods), 'promotion relabels, never restarts');

    await patchSpec(ns, 'app', {
      strategy: { blueGreen: { activeMetadata: { labels: { role: null, role2: 'active2' } } } },
    });
    const active2 = await podsOf(
      ns,
      rev2,
      2,
      'only role2=active2',
      has({ role: undefined, role2: 'active2' }),
    );
    assert.deepEqual(uids(active2), uids(previewPods));
    const [rs] = (await replicaSets(ns, 'app')).filter((r) => hashOfRs(r) === rev2);
    assert.equal(rs?.spec?.template?.metadata?.labels?.role2, 'active2', 'the RS template too');
    assert.equal(rs?.spec?.template?.metadata?.labels?.role, undefined);
  });
});

// --- anti-affinity on four nodes of this test's own ------------------------------------------

type AffinityTerm = NonNullable<
  NonNullable<
    NonNullable<PodSpec['affinity']>['podAntiAffinity']
  >['requiredDuringSchedulingIgnoredDuringExecution']
>[number];

const injectedTerms = (rs: ReplicaSet | undefined): AffinityTerm[] =>
  rs?.spec?.template?.spec?.affinity?.podAntiAffinity
    ?.requiredDuringSchedulingIgnoredDuringExecution ?? [];

const termFor = (stable: string): AffinityTerm['labelSelector'] => ({
  matchExpressions: [{ key: POD_TEMPLATE_HASH_LABEL, operator: 'In', values: [stable] }],
});

const nodesOf = (pods: readonly Pod[]): string[] =>
  [...new Set(pods.map((p) => p.spec?.nodeName ?? ''))].sort();

/** Pods of `hash` that the scheduler has placed (count of them). */
function scheduledPods(ns: string, hash: string, count: number): Promise<Pod[]> {
  return waitForList(
    `${count} pods of ${hash} scheduled`,
    `/api/v1/namespaces/${ns}/pods?labelSelector=${POD_TEMPLATE_HASH_LABEL}%3D${hash}`,
    (pods: Pod[]) => pods.filter((p) => live(p) && p.spec?.nodeName).length === count,
  ).then((pods) => pods.filter(live));
}

describe('antiAffinity.requiredDuringSchedulingIgnoredDuringExecution', () => {
  it("keeps the new pods off the stable pods' nodes, the term naming the stable hash", async (t) => {
    const ns = await testNamespace('bg-anti-affinity');
    const pool = `bg-anti-${randomBytes(3).toString('hex')}`;
    const nodes = await createPool(pool);
    t.after(() => removePool(ns, nodes));
    await createBlueGreenServices(ns, 'app');
    const body = blueGreenBody('app', {
      autoPromotionEnabled: false,
      antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} },
    });
    // Revision 1 must run on the two blue nodes, one pod on each.
    const podSpec: PodSpec = {
      containers: body.spec.template?.spec?.containers ?? [],
      nodeSelector: { [POOL_KEY]: pool },
      tolerations: [{ key: POOL_KEY, operator: 'Equal', value: pool, effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: SIDE_KEY, operator: 'In', values: ['blue'] }] },
            ],
          },
        },
      },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'app' } },
        },
      ],
    };
    body.spec.template = { ...body.spec.template, spec: podSpec };
    await createRollout(ns, body);
    const healthy = await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
    const rev1 = healthy.status?.stableRS ?? '';
    const rev1Nodes = nodesOf(await scheduledPods(ns, rev1, 2));
    assert.deepEqual(rev1Nodes, nodes.slice(0, 2), 'the stable pods on the two blue nodes');
    const [rs1] = (await replicaSets(ns, 'app')).filter((r) => hashOfRs(r) === rev1);
    assert.deepEqual(injectedTerms(rs1), [], 'no term on a first deploy (no stable to avoid)');

    // Revision 2 *prefers* the blue nodes: only the injected anti-affinity keeps it off them.
    await patchSpec(ns, 'app', {
      template: {
        spec: {
          topologySpreadConstraints: null,
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: null,
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  preference: {
                    matchExpressions: [{ key: SIDE_KEY, operator: 'In', values: ['blue'] }],
                  },
                },
              ],
            },
          },
        },
      },
    });
    const paused = await waitForRollout(
      ns,
      'app',
      'revision 2 paused before promotion',
      phase('Paused', (r) => r.status?.currentPodHash !== rev1),
    );
    const rev2 = paused.status?.currentPodHash ?? '';
    const [rs2] = (await replicaSets(ns, 'app')).filter((r) => hashOfRs(r) === rev2);
    const terms = injectedTerms(rs2);
    assert.equal(terms.length, 1, JSON.stringify(terms));
    assert.deepEqual(terms[0]?.labelSelector, termFor(rev1));
    assert.equal(terms[0]?.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(
      rs2?.spec?.template?.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.map(
        (p) => p.weight,
      ),
      [100],
      "the template's own affinity kept beside the term",
    );
    const rev2Nodes = nodesOf(await scheduledPods(ns, rev2, 2));
    t.diagnostic(`revision 1 on ${rev1Nodes.join(', ')}; revision 2 on ${rev2Nodes.join(', ')}`);
    assert.deepEqual(
      rev2Nodes.filter((n) => rev1Nodes.includes(n)),
      [],
      'no pod of revision 2 on a node of revision 1',
    );

    await patchStatus(ns, 'app', { pauseConditions: null });
    const promoted = await waitForRollout(
      ns,
      'app',
      'promoted',
      phase('Healthy', (r) => r.status?.stableRS === rev2),
    );
    // The term is no part of the template compared: promotion made no new ReplicaSet.
    assert.equal(promoted.status?.currentPodHash, rev2);
    assert.equal((await replicaSets(ns, 'app')).length, 2, 'revisions 1 and 2 only');

    // The next revision avoids revision 2 (now stable) and carries no term about revision 1.
    await setImage(ns, 'app', 'app:3');
    const next = await waitForRollout(
      ns,
      'app',
      'revision 3 paused before promotion',
      phase('Paused', (r) => ![rev1, rev2].includes(r.status?.currentPodHash ?? '')),
    );
    const rev3 = next.status?.currentPodHash ?? '';
    const [rs3] = (await replicaSets(ns, 'app')).filter((r) => hashOfRs(r) === rev3);
    assert.deepEqual(
      injectedTerms(rs3).map((term) => term.labelSelector),
      [termFor(rev2)],
      'one term, about the stable revision 2',
    );
    const rev3Nodes = nodesOf(await scheduledPods(ns, rev3, 2));
    assert.deepEqual(
      rev3Nodes.filter((n) => rev2Nodes.includes(n)),
      [],
      "revision 3 off revision 2's nodes",
    );
  });
});

// --- switching strategy -----------------------------------------------------------------------

const exactlyApp = (svc: Service): boolean =>
  JSON.stringify(svc.spec?.selector) === JSON.stringify({ app: 'app' });

function waitForPlainSelector(ns: string, name: string): Promise<Service> {
  return waitFor(
    `${name} selecting {app} only`,
    `/api/v1/namespaces/${ns}/services`,
    name,
    exactlyApp,
  );
}

const counts = (r: Rollout): number[] => [
  r.spec.replicas ?? 1,
  r.status?.replicas ?? 0,
  r.status?.updatedReplicas ?? 0,
  r.status?.readyReplicas ?? 0,
  r.status?.availableReplicas ?? 0,
];

describe('switching strategy', () => {
  it('blue-green → canary (Argo TestBlueGreenToCanary): Paused at 50 %, (2,2,1,2,2), Services without a hash', async () => {
    const ns = await testNamespace('bg-to-canary');
    await createBlueGreenServices(ns, 'app');
    await createRollout(ns, blueGreenBody('app', { scaleDownDelaySeconds: 5 }));
    await waitForRollout(
      ns,
      'app',
      'blue-green Healthy, active on it',
      phase('Healthy', (r) => r.status?.blueGreen?.activeSelector === r.status?.stableRS),
    );
    await patchSpec(ns, 'app', {
      template: { metadata: { annotations: { foo: 'bar' } } },
      strategy: { blueGreen: null, canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
    });
    const paused = await waitForRollout(
      ns,
      'app',
      'canary Paused at 50 % with 2 available',
      phase('Paused', (r) => r.status?.availableReplicas === 2),
    );
    assert.deepEqual(
      counts(paused),
      [2, 2, 1, 2, 2],
      '(desired, current, updated, ready, available)',
    );
    await waitForPlainSelector(ns, activeService('app'));
    await waitForPlainSelector(ns, previewService('app'));
  });

  it('canary → blue-green: Healthy on the new version, the canary and stable Services without a hash', async () => {
    const ns = await testNamespace('canary-to-bg');
    await createService(ns, 'app-canary', 'app');
    await createService(ns, 'app-stable', 'app');
    await createBlueGreenServices(ns, 'app');
    await createRollout(
      ns,
      rolloutBody('app', {
        replicas: 2,
        strategy: {
          canary: {
            canaryService: 'app-canary',
            stableService: 'app-stable',
            steps: [{ setWeight: 50 }, { pause: {} }],
          },
        },
      }),
    );
    const healthy = await waitForRollout(ns, 'app', 'canary Healthy', phase('Healthy'));
    const rev1 = healthy.status?.stableRS ?? '';
    await waitFor(
      'the stable Service on revision 1',
      `/api/v1/namespaces/${ns}/services`,
      'app-stable',
      (s: Service) => s.spec?.selector?.[POD_TEMPLATE_HASH_LABEL] === rev1,
    );
    await patchSpec(ns, 'app', {
      template: { metadata: { annotations: { foo: 'bar' } } },
      strategy: {
        canary: null,
        blueGreen: { activeService: activeService('app'), previewService: previewService('app') },
      },
    });
    const done = await waitForRollout(
      ns,
      'app',
      'blue-green Healthy on revision 2',
      phase(
        'Healthy',
        (r) =>
          r.status?.stableRS !== rev1 &&
          r.status?.blueGreen?.activeSelector === r.status?.currentPodHash,
      ),
    );
    const rev2 = done.status?.currentPodHash ?? '';
    const active = await waitFor(
      'the active Service on revision 2',
      `/api/v1/namespaces/${ns}/services`,
      activeService('app'),
      (s: Service) => s.spec?.selector?.[POD_TEMPLATE_HASH_LABEL] === rev2,
    );
    assert.equal(active.spec?.selector?.app, 'app');
    await waitForPlainSelector(ns, 'app-canary');
    await waitForPlainSelector(ns, 'app-stable');
  });
});
