// NGINX traffic end to end: the real controller generates the canary Ingress Argo Rollouts would
// (`<rollout>-<stable>-canary`, the stable's rules sent to the canary Service, canary and
// canary-weight annotations), owned by the Rollout and without GitOps tracking keys, moves its
// weight at every step, never writes the stable Ingress, moves traffic back before any pod goes
// on abort, and names a stable Ingress that is not there.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CanaryStrategy, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { WatchHistory, stopWatches } from './support/history.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForRollout,
} from './support/rollouts.ts';
import {
  ARGOCD,
  applyAs,
  collectionPath,
  serviceManifest,
  abortMovesTrafficFirst,
} from './support/traffic.ts';

const INGRESS = 'networking.k8s.io/v1';
const WEIGHT = 'nginx.ingress.kubernetes.io/canary-weight';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());
afterEach(stopWatches);

interface Ingress {
  metadata: {
    name: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
    managedFields?: { manager?: string }[];
  };
  spec: Record<string, unknown>;
}

const backend = (name: string, port = 80) => ({ service: { name, port: { number: port } } });
/** Git's Ingress: the stable Service at /, another Service at /static, TLS, a class. */
const stableIngressManifest = () => ({
  apiVersion: INGRESS,
  kind: 'Ingress',
  metadata: {
    name: 'web',
    labels: { 'app.kubernetes.io/instance': 'shop' },
    annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
  },
  spec: {
    ingressClassName: 'nginx',
    tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
    rules: [
      {
        host: 'web.example.com',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: backend('web-stable') },
            { path: '/static', pathType: 'Prefix', backend: backend('assets', 8080) },
          ],
        },
      },
    ],
  },
});

function rollout(stableIngress: string, canary: Partial<CanaryStrategy> = {}): Rollout {
  return rolloutBody('web', {
    strategy: {
      canary: {
        canaryService: 'web-canary',
        stableService: 'web-stable',
        trafficRouting: {
          nginx: {
            stableIngress,
            additionalIngressAnnotations: { 'canary-by-header': 'X-Canary' },
          },
        },
        steps: [{ setWeight: 30 }, { pause: {} }, { setWeight: 60 }, { pause: {} }],
        ...canary,
      },
    },
  });
}

async function deployed(prefix: string, canary: Partial<CanaryStrategy> = {}): Promise<string> {
  const ns = await testNamespace(prefix);
  for (const svc of ['web-stable', 'web-canary']) {
    await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
  }
  await applyAs(ARGOCD, ns, stableIngressManifest());
  await createRollout(ns, rollout('web', canary));
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  return ns;
}

const ingresses = (ns: string) => collectionPath(INGRESS, 'Ingress', ns);
const getIngress = (ns: string, name: string) =>
  http.json<Ingress>('GET', `${ingresses(ns)}/${name}`);
const watchCanary = (ns: string) =>
  WatchHistory.start<Ingress>(`${ingresses(ns)}?fieldSelector=metadata.name%3Dweb-web-canary`);
const weightOf = (i: Ingress) => Number(i.metadata.annotations?.[WEIGHT] ?? -1);
function canaryWeights(history: WatchHistory<Ingress>): number[] {
  const out: number[] = [];
  for (const e of history.events)
    if (out.at(-1) !== weightOf(e.object)) out.push(weightOf(e.object));
  return out;
}
const paused = (index: number) =>
  phase('Paused', (r: Rollout) => r.status?.currentStepIndex === index);
const resume = (ns: string) => patchStatus(ns, 'web', { pauseConditions: null });

describe('NGINX canary Ingress', () => {
  it("is Argo's copy of the stable Ingress, owned, weighted 0 → 30 → 60 → 100 → 0; the stable is never written", async () => {
    const ns = await deployed('nginx-walk');
    const canary = await watchCanary(ns);
    const stableBefore = await getIngress(ns, 'web');
    const first = await getIngress(ns, 'web-web-canary');
    assert.deepEqual(first.spec, {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: backend('web-canary') },
              { path: '/static', pathType: 'Prefix', backend: backend('assets', 8080) },
            ],
          },
        },
      ],
    });
    const { 'stepwise.dev/managed-by': managedBy, ...notes } = first.metadata.annotations ?? {};
    assert.equal(managedBy, 'web');
    assert.deepEqual(notes, {
      'nginx.ingress.kubernetes.io/canary': 'true',
      'nginx.ingress.kubernetes.io/canary-by-header': 'X-Canary',
      [WEIGHT]: '0',
    });
    assert.equal(first.metadata.labels, undefined, 'no GitOps tracking label copied');
    const owner = first.metadata.ownerReferences?.[0];
    assert.deepEqual([owner?.kind, owner?.name, owner?.controller], ['Rollout', 'web', true]);
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    assert.deepEqual(await split(ns, at30), [2, 4]);
    const from = canary.mark;
    await canary.window(1_500);
    assert.equal(canary.mark, from, 'nothing rewritten at the pause: observe(apply(s)) == s');
    await resume(ns);
    await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    await resume(ns);
    await waitForRollout(
      ns,
      'web',
      'promoted',
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 4,
    );
    await canary.until(
      'weight back to 0',
      (e) => weightOf(e.object) === 0 && canaryWeights(canary).length > 1,
    );
    assert.deepEqual(canaryWeights(canary), [0, 30, 60, 100, 0]);
    const stableAfter = await getIngress(ns, 'web');
    assert.equal(stableAfter.metadata.resourceVersion, stableBefore.metadata.resourceVersion);
    assert.ok(
      !stableAfter.metadata.managedFields?.some((f) => f.manager === 'stepwise-controller'),
    );
    canary.stop();
  });

  it('abort: traffic back to the stable first, the canary scaled down after abortScaleDownDelaySeconds', async () => {
    const ns = await deployed('nginx-abort', { abortScaleDownDelaySeconds: 2 });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const canary = await watchCanary(ns);
    await abortMovesTrafficFirst(ns, () =>
      canary.until('weight 0', (e) => weightOf(e.object) === 0),
    );
    assert.deepEqual(canaryWeights(canary), [30, 0]);
    canary.stop();
  });
});

describe('bad input', () => {
  it('a stable Ingress that does not exist is InvalidSpec naming it', async () => {
    const ns = await testNamespace('nginx-missing');
    for (const svc of ['web-stable', 'web-canary']) {
      await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
    }
    await createRollout(ns, rollout('nope'));
    const invalid = await waitForRollout(
      ns,
      'web',
      'InvalidSpec',
      (r) => r.status?.conditions?.some((c) => c.type === 'InvalidSpec') === true,
    );
    assert.match(invalid.status?.message ?? '', new RegExp(`Ingress "${ns}/nope" not found`));
  });
});
