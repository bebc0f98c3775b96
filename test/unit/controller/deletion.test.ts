// The shell of a deletion: what the reconciler writes when a Rollout it handled is gone (its
// routes, then its Services, handed back; a failed write retried, not forgotten), what a start-up
// sweep takes (only marks of its own instance, only once the API server says the Rollout is
// gone), and how a workloadRef Rollout's finalizer holds a deletion until its Deployment has its
// pre-migration replicas back. The planner must not run for a Rollout on its way out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MANAGED_BY_ANNOTATION,
  MANAGED_BY_INSTANCE_ANNOTATION,
  MANAGED_ROUTING_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  RESTORE_WORKLOAD_FINALIZER,
} from '../../../src/api/index.ts';
import type { Rollout, Service } from '../../../src/api/index.ts';
import { RolloutReconciler } from '../../../src/controller/rollout-reconciler.ts';
import type { RolloutCache } from '../../../src/controller/rollout-reconciler.ts';
import type { MarkedTrafficObject } from '../../../src/controller/traffic-shell.ts';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { rolloutFixture, T0 } from '../../fixtures/rollout/sim.ts';

const ROUTING = {
  namespace: 'ns',
  canaryService: 'web-canary',
  stableService: 'web-stable',
  trafficRouting: { gatewayAPI: { httpRoute: 'web' } },
};

/** Our marks; `routing` null: none recorded (marked before routings were). */
function marks(instance?: string, routing: object | null = ROUTING): Record<string, string> {
  return {
    [MANAGED_BY_ANNOTATION]: 'web',
    ...(instance === undefined ? {} : { [MANAGED_BY_INSTANCE_ANNOTATION]: instance }),
    ...(routing === null ? {} : { [MANAGED_ROUTING_ANNOTATION]: JSON.stringify(routing) }),
  };
}

const service = (instance?: string): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web-stable', namespace: 'ns', annotations: marks(instance, null) },
  spec: { selector: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'abc' } },
});

const route = (annotations: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'web', namespace: 'ns', annotations },
    spec: {
      rules: [
        {
          backendRefs: [
            { group: '', kind: 'Service', name: 'web-stable', port: 80, weight: 70 },
            { group: '', kind: 'Service', name: 'web-canary', port: 80, weight: 30 },
          ],
        },
      ],
    },
  }) as KubeObject;

interface World {
  rollouts?: Map<string, Rollout>;
  services?: Service[];
  routes?: KubeObject[];
  instanceId?: string;
}

function setup(w: World = {}) {
  const api = new FakeKubeApi();
  const events: string[] = [];
  let planned = 0;
  const traffic = (w.routes ?? []).map((object): MarkedTrafficObject => ({
    type: Resources.HTTPRoute,
    object,
  }));
  const cache: RolloutCache = {
    rollout: (key) => w.rollouts?.get(key),
    replicaSetsOf: () => [],
    podsOf: () => [],
    service: () => undefined,
    servicesManagedBy: (key) => (key === 'ns/web' ? (w.services ?? []) : []),
    markedServices: () => w.services ?? [],
    traffic: {
      watches: () => true,
      object: () => undefined,
      managedBy: (key) => (key === 'ns/web' ? traffic : []),
      marked: () => traffic,
    },
  };
  const reconciler = new RolloutReconciler({
    cache,
    api,
    events: { event: (_r, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    clock: new FakeClock(T0),
    log: silentLogger,
    planner: () => {
      planned++;
      return { writes: [] };
    },
    ...(w.instanceId === undefined ? {} : { instanceId: w.instanceId }),
  });
  const writes = () =>
    api.writes().map((r) => `${r.verb} ${(r.body as KubeObject | undefined)?.kind} ${r.name}`);
  return { api, reconciler, events, writes, planned: () => planned };
}

describe('a deleted Rollout gives back what it marked', () => {
  it('its HTTPRoute first (stable at 100, marks off), then its Service (hash and mark off)', async () => {
    const t = setup({ services: [service()], routes: [route(marks())] });
    t.reconciler.rolloutDeleted('ns/web');
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.writes(), ['apply HTTPRoute web', 'apply Service web-stable']);
    const [routeBody] = t.api.writes();
    assert.deepEqual(routeBody?.body, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: 'ns' },
      spec: {
        rules: [
          {
            backendRefs: [
              { group: '', kind: 'Service', name: 'web-stable', port: 80, weight: 100 },
              { group: '', kind: 'Service', name: 'web-canary', port: 80, weight: 0 },
            ],
          },
        ],
      },
    });
    await t.reconciler.reconcile('ns/web');
    assert.equal(t.writes().length, 2, 'once');
  });

  it('a route marked before routings were recorded: released by the Rollout as last seen', async () => {
    const t = setup({ routes: [route(marks(undefined, null))] });
    const last = rolloutFixture({
      strategy: { canary: { ...ROUTING, steps: [{ setWeight: 30 }] } },
    });
    t.reconciler.rolloutDeleted('ns/web', last);
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.writes(), ['apply HTTPRoute web']);
  });

  it('...and left alone when nothing says which backend is the stable one', async () => {
    const t = setup({ routes: [route(marks(undefined, null))] });
    t.reconciler.rolloutDeleted('ns/web');
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.writes(), []);
  });

  it('a failed write is retried by the next pass, not forgotten', async () => {
    const t = setup({ services: [service()], routes: [route(marks())] });
    let fail = true;
    t.api.failWith = (r) =>
      r.verb === 'apply' && r.resource.startsWith('services') && fail
        ? apiStatusError(500, { kind: 'Status', code: 500, reason: 'InternalError' })
        : undefined;
    t.reconciler.rolloutDeleted('ns/web');
    await assert.rejects(t.reconciler.reconcile('ns/web'));
    fail = false;
    await t.reconciler.reconcile('ns/web');
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(
      t.writes().filter((w) => w.includes('Service')),
      ['apply Service web-stable', 'apply Service web-stable'],
      'the refused write, then once more, then no more',
    );
  });
});

describe('the start-up sweep', () => {
  it('takes marks of its own instance whose Rollout it does not cache', () => {
    const cached = new Map([['ns/web', rolloutFixture()]]);
    assert.deepEqual(
      setup({ services: [service('a')], instanceId: 'a' }).reconciler.goneRolloutKeys(),
      ['ns/web'],
    );
    assert.deepEqual(
      setup({ services: [service('b')], instanceId: 'a' }).reconciler.goneRolloutKeys(),
      [],
    );
    assert.deepEqual(setup({ services: [service('a')] }).reconciler.goneRolloutKeys(), []);
    assert.deepEqual(setup({ services: [service()] }).reconciler.goneRolloutKeys(), ['ns/web']);
    assert.deepEqual(
      setup({ services: [service()], rollouts: cached }).reconciler.goneRolloutKeys(),
      [],
    );
    assert.deepEqual(
      setup({ routes: [route(marks('a'))], instanceId: 'a' }).reconciler.goneRolloutKeys(),
      ['ns/web'],
    );
  });

  it('releases once the API server says the Rollout is gone', async () => {
    const t = setup({ services: [service('a')], routes: [route(marks('a'))], instanceId: 'a' });
    for (const key of t.reconciler.goneRolloutKeys()) await t.reconciler.reconcile(key);
    assert.deepEqual(t.writes(), ['apply HTTPRoute web', 'apply Service web-stable']);
  });

  it('releases nothing when the API server still has the Rollout', async () => {
    const t = setup({ services: [service('a')], instanceId: 'a' });
    t.api.seed(rolloutFixture());
    for (const key of t.reconciler.goneRolloutKeys()) await t.reconciler.reconcile(key);
    assert.deepEqual(t.writes(), []);
  });
});

describe('a workloadRef Rollout and its finalizer', () => {
  const REF = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  function withRef(meta: object = {}): Rollout {
    const base = rolloutFixture();
    return {
      ...base,
      metadata: { ...base.metadata, resourceVersion: '7', ...meta },
      spec: { ...base.spec, workloadRef: REF } as Rollout['spec'],
    };
  }
  const deployment = (replicas: number, recorded?: string, available = 0): KubeObject =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'ns',
        ...(recorded === undefined
          ? {}
          : { annotations: { [PRE_MIGRATION_REPLICAS_ANNOTATION]: recorded } }),
      },
      spec: { replicas },
      status: { availableReplicas: available },
    }) as KubeObject;
  const deleting = { finalizers: [RESTORE_WORKLOAD_FINALIZER], deletionTimestamp: new Date(T0) };

  it('is added, alone, by an apply conditional on the version read; no plan that pass', async () => {
    const t = setup({ rollouts: new Map([['ns/web', withRef()]]) });
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(
      t.api.writes().map((r) => r.body),
      [
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          metadata: {
            name: 'web',
            namespace: 'ns',
            resourceVersion: '7',
            finalizers: [RESTORE_WORKLOAD_FINALIZER],
          },
        },
      ],
    );
    assert.equal(t.planned(), 0);
  });

  it('once on, the usual plan runs and nothing else is written', async () => {
    const t = setup({
      rollouts: new Map([['ns/web', withRef({ finalizers: [RESTORE_WORKLOAD_FINALIZER] })]]),
    });
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.writes(), []);
    assert.equal(t.planned(), 1);
  });

  it('deleting: the Deployment scaled back, an event; the finalizer off once its pods are up; no plan', async () => {
    const t = setup({ rollouts: new Map([['ns/web', withRef(deleting)]]) });
    t.api.seed(deployment(0, '3'));
    assert.deepEqual(await t.reconciler.reconcile('ns/web'), { requeueAfterMs: 1000 });
    const scale = (annotations?: object) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'ns', ...(annotations && { annotations }) },
      spec: { replicas: 3 },
    });
    // The record kept while waiting (an apply without it would remove it), dropped at the end.
    assert.deepEqual(
      t.api.writes().map((r) => r.body),
      [scale({ [PRE_MIGRATION_REPLICAS_ANNOTATION]: '3' })],
    );
    assert.deepEqual(t.events, [
      'Normal WorkloadRestored: Scaled Deployment "web" back to 3 replicas, as before the migration',
    ]);
    assert.deepEqual(
      await t.reconciler.reconcile('ns/web'),
      { requeueAfterMs: 1000 },
      'no pods yet',
    );
    assert.equal(t.writes().length, 1);
    t.api.seed(deployment(3, '3', 3));
    assert.deepEqual(await t.reconciler.reconcile('ns/web'), {});
    assert.deepEqual(
      t.api
        .writes()
        .slice(1)
        .map((r) => r.body),
      [
        scale(),
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          metadata: { name: 'web', namespace: 'ns', resourceVersion: '7' },
        },
      ],
    );
    assert.equal(t.planned(), 0);
  });

  it('deleting with the Deployment gone: not held', async () => {
    const t = setup({ rollouts: new Map([['ns/web', withRef(deleting)]]) });
    await t.reconciler.reconcile('ns/web');
    assert.deepEqual(t.writes(), ['apply Rollout web']);
  });

  it('a failed scale keeps the finalizer: the pass throws and is retried', async () => {
    const t = setup({ rollouts: new Map([['ns/web', withRef(deleting)]]) });
    t.api.seed(deployment(0, '3'));
    t.api.failWith = (r) =>
      r.verb === 'apply' && r.resource.startsWith('deployments')
        ? apiStatusError(403, { kind: 'Status', code: 403, reason: 'Forbidden' })
        : undefined;
    await assert.rejects(t.reconciler.reconcile('ns/web'));
    assert.deepEqual(t.writes(), ['apply Deployment web']);
  });
});
