// Gateway API traffic end to end: the real controller moves the weights of a real HTTPRoute
// (Gateway API's own CRDs) at every step, gives the canary no traffic before its pods are
// available, moves traffic back before any pod goes on abort, and keeps the canary when GitOps
// tools re-apply Git's manifests mid-canary: Argo CD with our settings changes nothing, Flux with
// our spec.ignore changes nothing, and a forced apply that resets the weights and the Service
// selectors is undone without the rollout moving back or aborting.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { installRouterCrds } from '../cluster/router-crds.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { neverReadyTemplate } from './support/faults.ts';
import { WatchHistory, stopWatches } from './support/history.ts';
import {
  createRollout,
  getService,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForRollout,
} from './support/rollouts.ts';
import {
  ARGOCD,
  FLUX,
  applyAs,
  canaryWeights,
  collectionPath,
  httpRouteManifest,
  routeWeights,
  serviceManifest,
  watchRoute,
  abortMovesTrafficFirst,
} from './support/traffic.ts';
import type { HttpRoute } from './support/traffic.ts';

const HASH = 'rollouts-pod-template-hash';
interface Svc {
  metadata?: { name?: string };
  spec?: { selector?: Record<string, string> };
}
const ROUTES = 'gateway.networking.k8s.io/v1';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  await installRouterCrds('experimental');
  controller = await startController(); // after the CRDs: it watches what the cluster serves
});
after(() => controller?.kill());
afterEach(stopWatches);

const steps = [{ setWeight: 30 }, { pause: {} }, { setWeight: 60 }, { pause: {} }];

/** Services and the HTTPRoute as Argo CD syncs them from Git, then a Healthy first revision. */
async function deployed(prefix: string, extra: object = {}, routeName = 'web'): Promise<string> {
  const ns = await testNamespace(prefix);
  await applyAs(ARGOCD, ns, serviceManifest('web-stable', 'web'));
  await applyAs(ARGOCD, ns, serviceManifest('web-canary', 'web'));
  await applyAs(ARGOCD, ns, httpRouteManifest(routeName, 100, 0));
  await createRollout(
    ns,
    rolloutBody('web', {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { gatewayAPI: { httpRoute: routeName } },
          steps,
          ...extra,
        },
      },
    }),
  );
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  return ns;
}

const getRoute = (ns: string, name = 'web') =>
  http.json<HttpRoute>('GET', `${collectionPath(ROUTES, 'HTTPRoute', ns)}/${name}`);

const paused = (index: number) =>
  phase('Paused', (r: Rollout) => r.status?.currentStepIndex === index);

describe('Gateway API HTTPRoute weights', () => {
  it('follow the steps: 30, 60, then 100 before the stable switch and 0 after; stable stays full', async () => {
    const ns = await deployed('gw-walk');
    const route = await watchRoute(ns, 'web');
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    assert.deepEqual(await split(ns, at30), [2, 4], 'ceil(4 × 30%) canary; the stable keeps 4');
    assert.deepEqual(at30.status?.canary?.weights?.canary, {
      weight: 30,
      podTemplateHash: at30.status?.currentPodHash,
      serviceName: 'web-canary',
    });
    const live = await getRoute(ns);
    assert.equal(live.metadata.annotations?.['stepwise.dev/managed-by'], 'web');
    assert.deepEqual(
      live.spec.rules[0]?.matches,
      [{ path: { type: 'PathPrefix', value: '/' } }],
      "the user's match is kept",
    );
    await patchStatus(ns, 'web', { pauseConditions: null });
    const at60 = await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    assert.deepEqual(await split(ns, at60), [3, 4]);
    await patchStatus(ns, 'web', { pauseConditions: null });
    const done = await waitForRollout(
      ns,
      'web',
      'promoted',
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 4,
    );
    await route.until(
      'weights back on the stable Service',
      (e) => routeWeights(e.object)[1] === 0 && canaryWeights(route).length > 3,
    );
    assert.deepEqual(canaryWeights(route), [0, 30, 60, 100, 0]);
    const svc = await getService(ns, 'web-stable');
    assert.equal(
      svc.spec?.selector?.[HASH],
      done.status?.currentPodHash,
      'stable Service switched',
    );
    route.stop();
  });

  it('gives a canary whose pods never become Ready no traffic at all', async () => {
    const ns = await deployed('gw-unready', { progressDeadlineSeconds: 3600 });
    const route = await watchRoute(ns, 'web');
    await patchSpec(ns, 'web', neverReadyTemplate('web'));
    await waitForRollout(ns, 'web', 'canary scaled', (r) => (r.status?.updatedReplicas ?? 0) === 2);
    const quiet = await route.window(3_000);
    assert.deepEqual(canaryWeights(route), [0]);
    assert.equal(quiet.length, 0, 'nothing written to the route');
    route.stop();
  });

  it('abort: traffic back to the stable first, the canary scaled down after abortScaleDownDelaySeconds', async () => {
    const ns = await deployed('gw-abort', { abortScaleDownDelaySeconds: 2 });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const route = await watchRoute(ns, 'web');
    await abortMovesTrafficFirst(ns, () =>
      route.until('weight 0', (e) => routeWeights(e.object)[1] === 0),
    );
    assert.deepEqual(canaryWeights(route), [30, 0]);
    route.stop();
  });
});

describe('Gateway API header and mirror routes', () => {
  it('are rules of their own on the real HTTPRoute while the steps say so, then go; a quiet route stays quiet', async () => {
    const ns = await deployed('gw-routes', {
      trafficRouting: {
        gatewayAPI: { httpRoute: 'web' },
        managedRoutes: [{ name: 'mirror' }, { name: 'beta' }],
      },
      steps: [
        { setWeight: 20 },
        {
          setHeaderRoute: {
            name: 'beta',
            match: [{ headerName: 'x-beta', headerValue: { exact: 'yes' } }],
          },
        },
        { setMirrorRoute: { name: 'mirror', match: [{ path: { prefix: '/' } }], percentage: 25 } },
        { pause: {} },
      ],
    });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused with routes', paused(3));
    const route = await watchRoute(ns, 'web');
    const live = await getRoute(ns);
    const byName = (n: string) => live.spec.rules.find((r) => r.name === n);
    assert.deepEqual(byName('stepwise-beta')?.matches?.[0]?.headers, [
      { type: 'Exact', name: 'x-beta', value: 'yes' },
    ]);
    assert.deepEqual(
      byName('stepwise-beta')?.backendRefs?.map((b) => b.name),
      ['web-canary'],
    );
    const mirror = byName('stepwise-mirror')?.filters?.[0]?.requestMirror;
    assert.equal(mirror?.backendRef.name, 'web-canary');
    assert.equal(mirror?.percent, 25);
    assert.deepEqual(routeWeights(live), [80, 20]);
    const quiet = await route.window(2_000);
    assert.equal(quiet.length, 0, 'reading back what the server stored plans no write');
    await patchStatus(ns, 'web', { pauseConditions: null });
    await waitForRollout(
      ns,
      'web',
      'promoted',
      (r) => r.status?.stableRS === r.status?.currentPodHash,
    );
    await route.until('managed rules removed', (e) => e.object.spec.rules.length === 1);
    route.stop();
  });
});

describe('GitOps re-applies mid-canary (paused at 30%)', () => {
  it('Argo CD with RespectIgnoreDifferences (Git carrying the live weights, forced): nothing changes, and the next step still goes through', async () => {
    const ns = await deployed('gw-argocd');
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const route = await watchRoute(ns, 'web');
    await applyAs(ARGOCD, ns, httpRouteManifest('web', 70, 30));
    const svc = await getService(ns, 'web-canary');
    await applyAs(ARGOCD, ns, {
      ...serviceManifest('web-canary', 'web'),
      spec: { selector: svc.spec?.selector, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const seen = await route.window(2_000);
    assert.deepEqual(canaryWeights(route), [30], `no flap: ${seen.length} events`);
    assert.equal((await getRollout(ns)).status?.currentStepIndex, at30.status?.currentStepIndex);
    await patchStatus(ns, 'web', { pauseConditions: null });
    await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    assert.deepEqual(canaryWeights(route), [30, 60], 'our next weight went through');
    route.stop();
  });

  it('Flux with the spec.ignore we ship (rules stripped from its apply): nothing changes', async () => {
    const ns = await deployed('gw-flux');
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const route = await watchRoute(ns, 'web');
    // kustomize-controller applies Git's object with force, the ignored /spec/rules stripped
    // because another Apply manager (we) owns it.
    const git = httpRouteManifest('web', 100, 0);
    const { rules: _stripped, ...specWithoutRules } = git['spec'] as Record<string, unknown>;
    await applyAs(FLUX, ns, { ...git, spec: specWithoutRules });
    await route.window(2_000);
    assert.deepEqual(canaryWeights(route), [30]);
    route.stop();
  });

  it('a forced apply that resets the weights and the selectors is undone; the rollout neither aborts nor moves back', async () => {
    const ns = await deployed('gw-reset');
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const route = await watchRoute(ns, 'web');
    const service = await WatchHistory.start<Svc>(
      `/api/v1/namespaces/${ns}/services?fieldSelector=metadata.name%3Dweb-canary`,
    );
    await applyAs(FLUX, ns, httpRouteManifest('web', 100, 0));
    await applyAs(FLUX, ns, serviceManifest('web-canary', 'web'));
    await route.until('weights restored', (e) => routeWeights(e.object)[1] === 30, 1);
    assert.deepEqual(canaryWeights(route), [30, 0, 30]);
    const hash = at30.status?.currentPodHash ?? '';
    await service.until('selector restored', (e) => e.object.spec?.selector?.[HASH] === hash, 1);
    const selectors: string[] = [];
    for (const e of service.events) {
      const h = e.object.spec?.selector?.[HASH] ?? '(none)';
      if (selectors.at(-1) !== h) selectors.push(h);
    }
    assert.deepEqual(selectors, [hash, '(none)', hash], 'the selector history, seen by a watch');
    service.stop();
    const restored = await waitForRollout(ns, 'web', 'still paused', () => true);
    assert.equal(restored.status?.currentStepIndex, 1, 'no step moved');
    assert.notEqual(restored.status?.abort, true);
    assert.equal(restored.status?.phase, 'Paused');
    route.stop();
  });
});

describe('bad input', () => {
  it('a route that does not exist is InvalidSpec naming it; another Rollout in the namespace keeps moving', async () => {
    const ns = await deployed('gw-missing');
    await createRollout(
      ns,
      rolloutBody('other', {
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            trafficRouting: { gatewayAPI: { httpRoute: 'nope' } },
            steps,
          },
        },
      }),
    );
    const invalid = await waitForRollout(
      ns,
      'other',
      'InvalidSpec',
      (r) => r.status?.conditions?.some((c) => c.type === 'InvalidSpec') === true,
    );
    assert.match(invalid.status?.message ?? '', new RegExp(`HTTPRoute "${ns}/nope" not found`));
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'the other Rollout moves on', paused(1));
  });

  it('a route without the canary and stable backends, and one claimed by another Rollout, are InvalidSpec', async () => {
    const ns = await deployed('gw-claimed');
    await applyAs(ARGOCD, ns, {
      ...httpRouteManifest('bare', 100, 0),
      spec: {
        parentRefs: [{ name: 'gateway' }],
        rules: [{ backendRefs: [{ name: 'other', port: 80 }] }],
      },
    });
    await createRollout(
      ns,
      rolloutBody('second', {
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            trafficRouting: { gatewayAPI: { httpRoutes: [{ name: 'web' }, { name: 'bare' }] } },
            steps,
          },
        },
      }),
    );
    // Until the controller's route cache has `bare`, "not found" is the true answer; the route
    // arriving wakes the Rollout, which then says what is wrong with it.
    const invalid = await waitForRollout(
      ns,
      'second',
      'InvalidSpec naming what bare lacks',
      (r) =>
        r.status?.conditions?.some((c) => c.type === 'InvalidSpec') === true &&
        /bare" has no rule/.test(r.status.message ?? ''),
    );
    const message = invalid.status?.message ?? '';
    assert.match(message, /HTTPRoute "[^"]+\/web" is managed by Rollout "web"/);
    assert.match(message, /HTTPRoute "[^"]+\/bare" has no rule with backendRefs to both/);
    assert.deepEqual(routeWeights(await getRoute(ns, 'web')), [100, 0], 'nothing half-applied');
  });
});

async function getRollout(ns: string): Promise<Rollout> {
  return http.json<Rollout>('GET', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/web`);
}
