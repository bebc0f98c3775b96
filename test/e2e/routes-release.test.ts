// Deleting a Rollout gives back what it held, as before it (issue 22): its HTTPRoute goes back to
// the stable Service at the full weight, without our header rule or our marks, and its Services
// lose our hash. Also when the controller was down while the Rollout was deleted: the next one
// finds the marks its instance left and releases them once the Rollout is confirmed gone. Canary
// behind Gateway API, and blue-green. And the finalizer set under server-side apply: our entry
// survives a GitOps apply of the Rollout, and taking it off leaves another manager's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout, Service } from '../../src/api/index.ts';
import {
  FIELD_MANAGER,
  MANAGED_BY_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  RESTORE_WORKLOAD_FINALIZER,
} from '../../src/api/index.ts';
import { finalizerApply } from '../../src/controller/workload-restore.ts';
import { installRouterCrds } from '../cluster/router-crds.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  createService,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';
import {
  ARGOCD,
  applyAs,
  collectionPath,
  httpRouteManifest,
  routeWeights,
  serviceManifest,
} from './support/traffic.ts';
import type { HttpRoute } from './support/traffic.ts';
import type { Obj } from '../fixtures/traffic.ts';

const ROLLOUTS = (ns: string) => `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts`;
const ROUTES = (ns: string) => collectionPath('gateway.networking.k8s.io/v1', 'HTTPRoute', ns);
const SERVICES = (ns: string) => `/api/v1/namespaces/${ns}/services`;
const RELEASE_WITHIN_MS = 10_000;

let controller: ControllerProcess;

before(async () => {
  await installCrds();
  await installRouterCrds('experimental');
  controller = await startController(); // after the CRDs: it watches what the cluster serves
});
after(() => controller?.kill());

type Annotated = { metadata?: { annotations?: Record<string, string> } };
const unmarked = (o: Annotated): boolean =>
  Object.keys(o.metadata?.annotations ?? {}).every((k) => !k.startsWith('stepwise.dev/'));
const serviceReleased = (svc: Service): boolean =>
  JSON.stringify(svc.spec?.selector) === JSON.stringify({ app: 'web' }) && unmarked(svc);
const routeReleased = (r: HttpRoute): boolean =>
  JSON.stringify(routeWeights(r)) === JSON.stringify([100, 0]) &&
  r.spec.rules.length === 1 &&
  unmarked(r);

/** Git's Services and HTTPRoute, then a canary behind it paused at 30% with a header route. */
async function canaryAt30(prefix: string): Promise<string> {
  const ns = await testNamespace(prefix);
  await applyAs(ARGOCD, ns, serviceManifest('web-stable', 'web'));
  await applyAs(ARGOCD, ns, serviceManifest('web-canary', 'web'));
  await applyAs(ARGOCD, ns, httpRouteManifest('web', 100, 0));
  const header = { name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'on' } }] };
  await createRollout(
    ns,
    rolloutBody('web', {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { gatewayAPI: { httpRoute: 'web' }, managedRoutes: [{ name: 'hdr' }] },
          steps: [{ setWeight: 30 }, { setHeaderRoute: header }, { pause: {} }],
        },
      },
    }),
  );
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  await waitForRollout(
    ns,
    'web',
    'paused at 30%',
    phase('Paused', (r) => r.status?.currentStepIndex === 2),
  );
  const route = await waitFor<HttpRoute>(
    'route at 30% with the header rule',
    ROUTES(ns),
    'web',
    (r) => routeWeights(r)[1] === 30 && r.spec.rules.some((x) => x.name === 'stepwise-hdr'),
  );
  assert.equal(route.metadata.annotations?.[MANAGED_BY_ANNOTATION], 'web');
  return ns;
}

/** Deleted at once: it carries no finalizer (asserted), so the DELETE's answer is its end. */
async function deleteRollout(ns: string): Promise<void> {
  const before = await http.json<Rollout>('GET', `${ROLLOUTS(ns)}/web`);
  assert.equal(before.metadata.finalizers, undefined, 'no finalizer without a workloadRef');
  await http.json('DELETE', `${ROLLOUTS(ns)}/web`);
}

async function expectCanaryReleased(ns: string): Promise<void> {
  const started = Date.now();
  const route = await waitFor<HttpRoute>(
    'route released',
    ROUTES(ns),
    'web',
    routeReleased,
    RELEASE_WITHIN_MS,
  );
  assert.deepEqual(route.spec.rules[0]?.matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
  for (const name of ['web-canary', 'web-stable']) {
    await waitFor<Service>(
      `${name} released`,
      SERVICES(ns),
      name,
      serviceReleased,
      RELEASE_WITHIN_MS,
    );
  }
  assert.ok(Date.now() - started < RELEASE_WITHIN_MS);
}

describe('deleting a canary behind a Gateway API HTTPRoute', () => {
  it('puts the route back on the stable Service at 100 and unmarks it, within 10 s', async () => {
    const ns = await canaryAt30('release-route');
    await deleteRollout(ns);
    await expectCanaryReleased(ns);
    // Git takes the rules back with its next sync, and nothing of ours is left on the route.
    await applyAs(ARGOCD, ns, httpRouteManifest('web', 100, 0));
    const synced = await http.json<{ metadata: { managedFields?: { manager?: string }[] } }>(
      'GET',
      `${ROUTES(ns)}/web`,
    );
    assert.deepEqual(
      (synced.metadata.managedFields ?? []).filter((f) => f.manager === FIELD_MANAGER),
      [],
    );
  });

  it('deleted while the controller was down: the next controller releases it within 10 s', async () => {
    const ns = await canaryAt30('release-route-down');
    await controller.kill();
    await deleteRollout(ns);
    const route = await http.json<HttpRoute>('GET', `${ROUTES(ns)}/web`);
    assert.equal(routeWeights(route)[1], 30, 'nothing released it while the controller was down');
    controller = await startController();
    await expectCanaryReleased(ns);
  });
});

const ISTIO = 'networking.istio.io/v1';
const SMI = 'split.smi-spec.io/v1alpha4';
interface Subsets {
  spec: { subsets: { name: string; labels?: Record<string, string> }[] };
}
interface Weighted {
  spec: {
    http: { name?: string; route?: { destination: { subset?: string }; weight?: number }[] }[];
  };
}
const subsetWeights = (vs: Weighted): number[] =>
  (vs.spec.http.find((r) => r.name === 'primary')?.route ?? []).map((d) => d.weight ?? 0);

/** A canary of `routing` (with Git's `objects` first) paused at 30%. */
async function canaryOf(prefix: string, routing: object, objects: Obj[]): Promise<string> {
  const ns = await testNamespace(prefix);
  for (const svc of ['web', 'web-stable', 'web-canary']) {
    await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
  }
  for (const o of objects) await applyAs(ARGOCD, ns, o);
  await createRollout(
    ns,
    rolloutBody('web', {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: routing,
          steps: [{ setWeight: 30 }, { pause: {} }],
        },
      },
    }),
  );
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  await waitForRollout(ns, 'web', 'paused at 30%', phase('Paused'));
  return ns;
}

/** Resolves on the DELETED event of `name` in `collection` (watched from before it can come). */
async function deletion(collection: string, name: string): Promise<{ deleted: Promise<unknown> }> {
  let done = (): void => undefined;
  const deleted = new Promise((resolve) => (done = () => resolve(undefined)));
  const watch = await http.watch(`${collection}?fieldSelector=metadata.name%3D${name}`, (e) => {
    if (e.type === 'DELETED') done();
  });
  return { deleted: deleted.finally(() => watch.close()) };
}

describe('deleting a canary behind Istio subsets, or behind an SMI TrafficSplit', () => {
  it('Istio: the VirtualService back on the stable subset at 100, the subsets without our hash', async () => {
    const subset = (name: string) => ({ name, labels: { app: 'web' } });
    const dest = (name: string, weight: number) => ({
      destination: { host: 'web', subset: name },
      weight,
    });
    const vs = {
      apiVersion: ISTIO,
      kind: 'VirtualService',
      metadata: { name: 'web' },
      spec: {
        hosts: ['web.example.com'],
        http: [{ name: 'primary', route: [dest('stable', 100), dest('canary', 0)] }],
      },
    };
    const dr = {
      apiVersion: ISTIO,
      kind: 'DestinationRule',
      metadata: { name: 'web' },
      spec: { host: 'web', subsets: [subset('stable'), subset('canary')] },
    };
    const routing = {
      istio: {
        virtualService: { name: 'web', routes: ['primary'] },
        destinationRule: { name: 'web', canarySubsetName: 'canary', stableSubsetName: 'stable' },
      },
    };
    const ns = await canaryOf('release-istio', routing, [vs, dr]);
    const path = (kind: string) => collectionPath(ISTIO, kind, ns);
    await waitFor<Weighted>(
      'VirtualService at 30%',
      path('VirtualService'),
      'web',
      (v) => subsetWeights(v).join() === '70,30',
    );
    await deleteRollout(ns);
    await waitFor<Weighted & Annotated>(
      'VirtualService released',
      path('VirtualService'),
      'web',
      (v) => subsetWeights(v).join() === '100,0' && unmarked(v),
      RELEASE_WITHIN_MS,
    );
    const released = await waitFor<Subsets & Annotated>(
      'DestinationRule released',
      path('DestinationRule'),
      'web',
      (d) => unmarked(d),
      RELEASE_WITHIN_MS,
    );
    assert.deepEqual(released.spec.subsets, [subset('stable'), subset('canary')]);
  });

  it('SMI: the TrafficSplit we generated goes with the Rollout (garbage collector)', async () => {
    const ns = await canaryOf('release-smi', { smi: { rootService: 'web' } }, []);
    const splits = collectionPath(SMI, 'TrafficSplit', ns);
    await waitFor<{ spec: { backends: { weight: number }[] } }>(
      'split at 30%',
      splits,
      'web',
      (t) => t.spec.backends[0]?.weight === 30,
    );
    const { deleted } = await deletion(splits, 'web');
    await deleteRollout(ns);
    await deleted;
  });
});

describe('deleting a blue-green Rollout while the controller was down', () => {
  it('the next controller releases the active and preview Services within 10 s', async () => {
    const ns = await testNamespace('release-bg-down');
    for (const name of ['web-active', 'web-preview']) await createService(ns, name, 'web');
    await createRollout(
      ns,
      rolloutBody('web', {
        replicas: 2,
        strategy: { blueGreen: { activeService: 'web-active', previewService: 'web-preview' } },
      }),
    );
    const healthy = await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    for (const name of ['web-active', 'web-preview']) {
      await waitFor<Service>(
        `${name} pinned`,
        SERVICES(ns),
        name,
        (s) => s.spec?.selector?.[POD_TEMPLATE_HASH_LABEL] === healthy.status?.stableRS,
      );
    }
    await controller.kill();
    await deleteRollout(ns);
    controller = await startController();
    for (const name of ['web-active', 'web-preview']) {
      await waitFor<Service>(
        `${name} released`,
        SERVICES(ns),
        name,
        serviceReleased,
        RELEASE_WITHIN_MS,
      );
    }
  });
});

describe('our finalizer under server-side apply (the API server decides)', () => {
  it('survives a GitOps apply of the Rollout; taking it off leaves the other manager’s', async () => {
    const ns = await testNamespace('finalizer-ssa');
    // Labelled for no controller: only the API server acts on it here.
    const body = rolloutBody('web');
    const git: Rollout = {
      ...body,
      metadata: { ...body.metadata, labels: { 'stepwise.dev/controller-instance-id': 'nobody' } },
    };
    const created = await http.json<Rollout>('POST', ROLLOUTS(ns), git);
    await applyAs(FIELD_MANAGER, ns, withNs(finalizerApply(created, true), ns));
    // Argo CD syncs the manifest from Git (forced, without finalizers), then one with its own.
    await applyAs(ARGOCD, ns, withNs(git, ns));
    assert.deepEqual(await finalizersOf(ns), [RESTORE_WORKLOAD_FINALIZER]);
    const gitops = 'example.com/gitops';
    await applyAs(
      ARGOCD,
      ns,
      withNs({ ...git, metadata: { ...git.metadata, finalizers: [gitops] } }, ns),
    );
    assert.deepEqual((await finalizersOf(ns)).sort(), [gitops, RESTORE_WORKLOAD_FINALIZER].sort());
    const current = await http.json<Rollout>('GET', `${ROLLOUTS(ns)}/web`);
    await applyAs(FIELD_MANAGER, ns, withNs(finalizerApply(current, false), ns));
    assert.deepEqual(await finalizersOf(ns), [gitops]);
    await applyAs(ARGOCD, ns, withNs(git, ns)); // Git drops its own: the namespace can go
    assert.deepEqual(await finalizersOf(ns), []);
  });
});

/** `o` as an apply body in `ns`. */
function withNs(o: { metadata?: object }, ns: string): Obj {
  return { ...o, metadata: { ...o.metadata, namespace: ns } } as unknown as Obj;
}

async function finalizersOf(ns: string): Promise<string[]> {
  const r = await http.json<Rollout>('GET', `${ROLLOUTS(ns)}/web`);
  return r.metadata.finalizers ?? [];
}
