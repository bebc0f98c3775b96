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
after(() => controller.kill());

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
