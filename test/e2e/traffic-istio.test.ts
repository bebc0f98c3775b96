// Istio traffic end to end: the real controller moves the weights of a real VirtualService
// (Istio's own CRDs) at every step, host-level and subset-level (DestinationRule subsets pinned to
// the pod-template hashes), adds header and mirror routes first and removes them at the end,
// keeps the user's routes as Git wrote them, moves traffic back before any pod goes on abort,
// and names a VirtualService that is not there.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CanaryStrategy, Rollout } from '../../src/api/index.ts';
import { installRouterCrds } from '../cluster/router-crds.ts';
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

const ISTIO = 'networking.istio.io/v1';
const HASH = 'rollouts-pod-template-hash';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  await installRouterCrds('experimental');
  controller = await startController(); // after the CRDs: it watches what the cluster serves
});
after(() => controller?.kill());
afterEach(stopWatches);

interface Destination {
  host: string;
  subset?: string;
  port?: { number: number };
}
interface HttpRoute {
  name?: string;
  match?: Record<string, unknown>[];
  route?: { destination: Destination; weight?: number }[];
  mirror?: Destination;
  mirrorPercentage?: { value: number };
  [field: string]: unknown;
}
interface VirtualService {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { http: HttpRoute[]; [field: string]: unknown };
}
interface DestinationRule {
  spec: { subsets: { name: string; labels?: Record<string, string> }[] };
}

const to = (host: string, weight: number, subset?: string) => ({
  destination: { host, port: { number: 80 }, ...(subset === undefined ? {} : { subset }) },
  weight,
});
/** A user route that is not ours to weigh: it must come back exactly as Git wrote it. */
const ADMIN: HttpRoute = {
  name: 'admin',
  match: [{ uri: { prefix: '/admin' } }],
  route: [{ destination: { host: 'admin', port: { number: 80 } } }],
  timeout: '1s',
};

/** Git's VirtualService: the admin route, then `primary` split between stable and canary. */
function virtualServiceManifest(ns: string, subsets = false) {
  return {
    apiVersion: ISTIO,
    kind: 'VirtualService',
    metadata: { name: 'web', labels: { 'app.kubernetes.io/instance': 'shop' } },
    spec: {
      hosts: ['web.example.com'],
      http: [
        ADMIN,
        {
          name: 'primary',
          match: [{ uri: { prefix: '/' } }],
          retries: { attempts: 3, perTryTimeout: '2s' },
          route: subsets
            ? [to('web', 100, 'stable'), to('web', 0, 'canary')]
            : [to('web-stable', 100), to(`web-canary.${ns}.svc.cluster.local`, 0)],
        },
      ],
    },
  };
}

const destinationRuleManifest = () => ({
  apiVersion: ISTIO,
  kind: 'DestinationRule',
  metadata: { name: 'web', labels: { 'app.kubernetes.io/instance': 'shop' } },
  spec: {
    host: 'web',
    subsets: [
      { name: 'stable', labels: { app: 'web' } },
      { name: 'canary', labels: { app: 'web' } },
      { name: 'debug', labels: { app: 'web', debug: 'true' } },
    ],
  },
});

const subsetRouting = {
  virtualService: { name: 'web', routes: ['primary'] },
  destinationRule: { name: 'web', canarySubsetName: 'canary', stableSubsetName: 'stable' },
};

/** Services, VirtualService (and DestinationRule) as Argo CD syncs them, a Healthy revision. */
async function deployed(
  prefix: string,
  canary: Partial<CanaryStrategy> = {},
  subsets = false,
): Promise<string> {
  const ns = await testNamespace(prefix);
  for (const svc of ['web', 'web-stable', 'web-canary']) {
    await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
  }
  await applyAs(ARGOCD, ns, virtualServiceManifest(ns, subsets));
  if (subsets) await applyAs(ARGOCD, ns, destinationRuleManifest());
  await createRollout(
    ns,
    rolloutBody('web', {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: {
            istio: subsets
              ? subsetRouting
              : { virtualService: { name: 'web', routes: ['primary'] } },
          },
          steps: [{ setWeight: 30 }, { pause: {} }, { setWeight: 60 }, { pause: {} }],
          ...canary,
        },
      },
    }),
  );
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  return ns;
}

const path = (ns: string, kind: string) => collectionPath(ISTIO, kind, ns);
const getVs = (ns: string) => http.json<VirtualService>('GET', `${path(ns, 'VirtualService')}/web`);
const getDr = (ns: string) =>
  http.json<DestinationRule>('GET', `${path(ns, 'DestinationRule')}/web`);
const watchVs = (ns: string) =>
  WatchHistory.start<VirtualService>(
    `${path(ns, 'VirtualService')}?fieldSelector=metadata.name%3Dweb`,
  );

/** [stable, canary] weights of a route: by subset or by the host's first label. */
function weights(route: HttpRoute | undefined): [number, number] {
  const of = (role: string) =>
    route?.route?.find(
      (d) => d.destination.subset === role || d.destination.host.split('.')[0] === `web-${role}`,
    )?.weight ?? 0;
  return [of('stable'), of('canary')];
}
const primary = (vs: VirtualService) => vs.spec.http.find((r) => r.name === 'primary');
function canaryWeights(history: WatchHistory<VirtualService>, from = 0): number[] {
  const out: number[] = [];
  for (const e of history.events.slice(from)) {
    const [, canary] = weights(primary(e.object));
    if (out.at(-1) !== canary) out.push(canary);
  }
  return out;
}
/** Nothing changes at a pause: observe(apply(s)) == s on what the API server returned (a
 *  lossy reading would rewrite the object, and each rewrite wake the next pass). */
async function quiet(ns: string, kinds = ['VirtualService']): Promise<void> {
  for (const kind of kinds) {
    const h = await WatchHistory.start<VirtualService>(
      `${path(ns, kind)}?fieldSelector=metadata.name%3Dweb`,
    );
    const seen = await h.window(1_500);
    h.stop();
    const writes = seen.filter((e) => e.type !== 'ADDED'); // ADDED: the watch's first listing
    assert.deepEqual(
      writes.map((e) => e.type),
      [],
      `no ${kind} write while paused`,
    );
  }
}
const paused = (index: number) =>
  phase('Paused', (r: Rollout) => r.status?.currentStepIndex === index);
const promoted = (r: Rollout) =>
  r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 4;
const resume = (ns: string) => patchStatus(ns, 'web', { pauseConditions: null });

describe('Istio VirtualService weights', () => {
  it("host-level: 30, 60, 100, then 0 after the stable switch; the user's routes stay as in Git", async () => {
    const ns = await deployed('istio-walk');
    const vs = await watchVs(ns);
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    assert.deepEqual(await split(ns, at30), [2, 4], 'ceil(4 × 30%) canary; the stable keeps 4');
    await quiet(ns);
    const live = await getVs(ns);
    assert.equal(live.metadata.annotations?.['stepwise.dev/managed-by'], 'web');
    assert.deepEqual(live.spec.http[0], ADMIN, "the user's other route is untouched");
    assert.deepEqual(primary(live)?.retries, { attempts: 3, perTryTimeout: '2s' });
    assert.deepEqual(live.spec['hosts'], ['web.example.com']);
    await resume(ns);
    const at60 = await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    assert.deepEqual(await split(ns, at60), [3, 4]);
    await resume(ns);
    await waitForRollout(ns, 'web', 'promoted', promoted);
    await vs.until('weights back on the stable', (e) => weights(primary(e.object))[0] === 100);
    assert.deepEqual(canaryWeights(vs), [0, 30, 60, 100, 0]);
    vs.stop();
  });

  it('subset-level: the DestinationRule subsets follow the hashes, other subsets untouched', async () => {
    const ns = await deployed('istio-subsets', {}, true);
    const vs = await watchVs(ns);
    const first = await getDr(ns);
    const stableHash = first.spec.subsets.find((s) => s.name === 'stable')?.labels?.[HASH];
    assert.ok(stableHash, 'the stable subset is pinned from the first revision');
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const labels = (await getDr(ns)).spec.subsets.map((s) => [s.name, s.labels]);
    assert.deepEqual(labels, [
      ['stable', { app: 'web', [HASH]: at30.status?.stableRS }],
      ['canary', { app: 'web', [HASH]: at30.status?.currentPodHash }],
      ['debug', { app: 'web', debug: 'true' }],
    ]);
    assert.deepEqual(weights(primary(await getVs(ns))), [70, 30]);
    await quiet(ns, ['VirtualService', 'DestinationRule']);
    await resume(ns);
    await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    await resume(ns);
    const done = await waitForRollout(ns, 'web', 'promoted', promoted);
    await vs.until('weights back on the stable', (e) => weights(primary(e.object))[0] === 100);
    assert.deepEqual(canaryWeights(vs), [0, 30, 60, 100, 0]);
    const stable = (await getDr(ns)).spec.subsets.find((s) => s.name === 'stable');
    assert.equal(stable?.labels?.[HASH], done.status?.currentPodHash, 'stable subset switched');
    vs.stop();
  });

  it('header and mirror routes go first in managedRoutes order, follow the weights, and go at the end', async () => {
    const header = {
      name: 'hdr',
      match: [{ headerName: 'x-canary', headerValue: { exact: 'yes' } }],
    };
    const mirror = { name: 'mirror', match: [{ path: { prefix: '/api' } }], percentage: 50 };
    const ns = await deployed('istio-routes', {
      trafficRouting: {
        istio: { virtualService: { name: 'web', routes: ['primary'] } },
        managedRoutes: [{ name: 'hdr' }, { name: 'mirror' }],
      },
      steps: [
        { setWeight: 30 },
        { setHeaderRoute: header },
        { setMirrorRoute: mirror },
        { pause: {} },
        { setWeight: 60 },
        { pause: {} },
      ],
    });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused with the routes', paused(3));
    await quiet(ns);
    const live = await getVs(ns);
    assert.deepEqual(
      live.spec.http.map((r) => r.name),
      ['hdr', 'mirror', 'admin', 'primary'],
    );
    const canaryDest = { host: `web-canary.${ns}.svc.cluster.local`, port: { number: 80 } };
    assert.deepEqual(live.spec.http[0], {
      name: 'hdr',
      match: [{ headers: { 'x-canary': { exact: 'yes' } } }],
      route: [{ destination: canaryDest, weight: 100 }],
    });
    const mirrored = live.spec.http[1];
    assert.deepEqual(mirrored?.match, [{ uri: { prefix: '/api' } }]);
    assert.deepEqual(mirrored?.mirror, canaryDest);
    assert.deepEqual(mirrored?.mirrorPercentage, { value: 50 });
    assert.deepEqual(weights(mirrored), [70, 30]);
    await resume(ns);
    await waitForRollout(
      ns,
      'web',
      'paused at 60%',
      phase('Paused', (r) => r.status?.currentStepIndex === 5),
    );
    assert.deepEqual(weights((await getVs(ns)).spec.http[1]), [40, 60], 'the mirror route follows');
    await resume(ns);
    await waitForRollout(
      ns,
      'web',
      'promoted',
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 6,
    );
    const vs = await watchVs(ns);
    await vs.until('managed routes removed', (e) => e.object.spec.http.length === 2);
    assert.deepEqual((await getVs(ns)).spec.http[0], ADMIN);
    vs.stop();
  });

  it('abort: traffic back to the stable first, the canary scaled down after abortScaleDownDelaySeconds', async () => {
    const ns = await deployed('istio-abort', { abortScaleDownDelaySeconds: 2 });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const vs = await watchVs(ns);
    await abortMovesTrafficFirst(ns, () =>
      vs.until('weight 0', (e) => weights(primary(e.object))[1] === 0),
    );
    assert.deepEqual(canaryWeights(vs), [30, 0]);
    vs.stop();
  });
});

describe('GitOps re-applies of the VirtualService mid-canary (paused at 30%)', () => {
  /** Git's VirtualService carrying the given weights (what RespectIgnoreDifferences sends). */
  const withWeights = (ns: string, stable: number, canary: number) => {
    const vs = virtualServiceManifest(ns);
    const [admin, main] = vs.spec.http;
    return {
      ...vs,
      spec: {
        ...vs.spec,
        http: [
          admin,
          {
            ...main,
            route: [to('web-stable', stable), to(`web-canary.${ns}.svc.cluster.local`, canary)],
          },
        ],
      },
    };
  };

  it('Argo CD with RespectIgnoreDifferences (Git carrying the live weights, forced): no flap, and the next step goes through', async () => {
    const ns = await deployed('istio-argocd');
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const vs = await watchVs(ns);
    await applyAs(ARGOCD, ns, withWeights(ns, 70, 30));
    await vs.window(2_000);
    assert.deepEqual(canaryWeights(vs), [30], 'no flap');
    await resume(ns);
    await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    assert.deepEqual(canaryWeights(vs), [30, 60], 'our next weight went through');
    vs.stop();
  });

  it('Flux with the spec.ignore we ship (/spec/http stripped from its apply): nothing changes', async () => {
    const ns = await deployed('istio-flux');
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const vs = await watchVs(ns);
    const git = virtualServiceManifest(ns);
    const { http: _stripped, ...rest } = git.spec;
    await applyAs('kustomize-controller', ns, { ...git, spec: rest });
    await vs.window(2_000);
    assert.deepEqual(canaryWeights(vs), [30]);
    vs.stop();
  });

  it('a forced apply of Git (100/0) is undone; the rollout neither aborts nor moves back', async () => {
    const ns = await deployed('istio-reset');
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const vs = await watchVs(ns);
    await applyAs('kustomize-controller', ns, withWeights(ns, 100, 0));
    await vs.until('weights restored', (e) => weights(primary(e.object))[1] === 30, 1);
    assert.deepEqual(canaryWeights(vs), [30, 0, 30]);
    const r = await waitForRollout(ns, 'web', 'still paused', paused(1));
    assert.notEqual(r.status?.abort, true);
    vs.stop();
  });
});

describe('bad input', () => {
  it('a VirtualService that does not exist is InvalidSpec naming it', async () => {
    const ns = await testNamespace('istio-missing');
    for (const svc of ['web-stable', 'web-canary']) {
      await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
    }
    await createRollout(
      ns,
      rolloutBody('web', {
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            trafficRouting: { istio: { virtualService: { name: 'nope', routes: ['primary'] } } },
            steps: [{ setWeight: 30 }, { pause: {} }],
          },
        },
      }),
    );
    const invalid = await waitForRollout(
      ns,
      'web',
      'InvalidSpec',
      (r) => r.status?.conditions?.some((c) => c.type === 'InvalidSpec') === true,
    );
    assert.match(
      invalid.status?.message ?? '',
      new RegExp(`VirtualService "${ns}/nope" not found`),
    );
  });
});
