// Handing a user's traffic object back once its Rollout is gone, from what the object itself
// records: the stable Service at the full weight, no managed routes, no hash on subsets, none of
// our annotations; objects we generated are left to the garbage collector.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MANAGED_BY_ANNOTATION,
  MANAGED_ROUTING_ANNOTATION,
  markedByKey,
  POD_TEMPLATE_HASH_LABEL,
  readRoutingRecord,
} from '../../../src/api/index.ts';
import type { ManagedRouting, Rollout, TrafficRouting } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { routersFor } from '../../../src/traffic/index.ts';
import { releaseBody } from '../../../src/traffic/release.ts';
import { refKey } from '../../../src/traffic/router.ts';

type Json = Record<string, unknown>;
const NS = 'ns';

function rollout(trafficRouting: TrafficRouting): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: NS, uid: 'u1' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } } },
      strategy: {
        canary: { canaryService: 'web-canary', stableService: 'web-stable', trafficRouting },
      },
    },
  };
}

const backend = (name: string, weight?: number) => ({
  group: '',
  kind: 'Service',
  name,
  port: 80,
  ...(weight === undefined ? {} : { weight }),
});
const userRules = (stable: number, canary: number) => [
  {
    matches: [{ path: { type: 'PathPrefix', value: '/' } }],
    timeouts: { request: '10s' },
    backendRefs: [backend('web-stable', stable), backend('web-canary', canary)],
  },
  { matches: [{ path: { type: 'PathPrefix', value: '/static' } }], backendRefs: [backend('cdn')] },
];
const route = (annotations: Json = {}): KubeObject & { spec: Json } => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'web', namespace: NS, annotations: annotations as Record<string, string> },
  spec: { parentRefs: [{ name: 'gw' }], rules: userRules(100, 0) },
});

/** The live object after our forced apply of `body` (lists atomic, annotations merged). */
function applied(live: KubeObject & { spec: Json }, body: KubeObject): KubeObject & { spec: Json } {
  const b = body as KubeObject & { spec: Json };
  return {
    ...live,
    metadata: {
      ...live.metadata,
      annotations: { ...live.metadata?.annotations, ...b.metadata?.annotations },
    },
    spec: { ...live.spec, ...b.spec },
  };
}

/** The object as the Rollout left it mid-canary: its applies at `weight` with `headers`. */
function midCanary(r: Rollout, live: KubeObject & { spec: Json }, weight: number, headers = true) {
  const [router] = routersFor(r.spec.strategy.canary);
  assert.ok(router);
  const [ref] = router.refs(r);
  assert.ok(ref);
  const ctx = {
    rollout: r,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    maxWeight: r.spec.strategy.canary?.trafficRouting?.maxTrafficWeight ?? 100,
    canaryHash: 'c4n4ry',
    stableHash: 'st4bl3',
    objects: new Map([[refKey(ref), live]]),
  };
  const headerRoutes = headers
    ? [{ name: 'hdr', match: [{ headerName: 'x-canary', headerValue: { exact: 'yes' } }] }]
    : [];
  const [body] = router.applies(ctx, { canaryWeight: weight, headerRoutes, mirrorRoutes: [] });
  assert.ok(body);
  return applied(live, body);
}

function gone(live: KubeObject): { name: string; routing: ManagedRouting } {
  const routing = readRoutingRecord(live);
  assert.ok(routing, 'the object records the routing that hands it back');
  return { name: 'web', routing };
}

describe('releasing a Gateway API HTTPRoute', () => {
  const r = rollout({ gatewayAPI: { httpRoute: 'web' }, managedRoutes: [{ name: 'hdr' }] });

  it('mid-canary: the stable Service full, the canary 0, our header rule and marks gone', () => {
    const live = midCanary(r, route({ 'argocd.argoproj.io/tracking-id': 'app:x' }), 30);
    assert.equal((live.spec.rules as unknown[]).length, 3, 'with our header rule');
    assert.equal(live.metadata?.annotations?.[MANAGED_BY_ANNOTATION], 'web');
    const body = releaseBody(gone(live), Resources.HTTPRoute, live);
    assert.deepEqual(body, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: NS },
      spec: { rules: userRules(100, 0) },
    });
  });

  it('the full weight is maxTrafficWeight', () => {
    const heavy = rollout({ gatewayAPI: { httpRoute: 'web' }, maxTrafficWeight: 1000 });
    const live = midCanary(heavy, route(), 300, false);
    const body = releaseBody(gone(live), Resources.HTTPRoute, live) as { spec: Json };
    assert.deepEqual(body.spec.rules, [
      {
        ...userRules(0, 0)[0],
        backendRefs: [backend('web-stable', 1000), backend('web-canary', 0)],
      },
      userRules(0, 0)[1],
    ]);
  });

  it('an HTTPRoute in another namespace is handed back, and found by its Rollout’s key', () => {
    const edge = rollout({ gatewayAPI: { httpRoute: 'web', namespace: 'edge' } });
    const elsewhere = { ...route(), metadata: { ...route().metadata, namespace: 'edge' } };
    const live = midCanary(edge, elsewhere, 30, false);
    assert.equal(markedByKey(live), 'ns/web', 'the Rollout’s namespace, not the route’s');
    const body = releaseBody(gone(live), Resources.HTTPRoute, live);
    assert.deepEqual(body?.metadata, { name: 'web', namespace: 'edge' });
  });

  it('an HTTPRoute the recorded routing does not name is not written', () => {
    const live = midCanary(r, route(), 30);
    const renamed = { ...live, metadata: { ...live.metadata, name: 'other' } };
    assert.equal(releaseBody(gone(live), Resources.HTTPRoute, renamed), undefined);
  });
});

describe('releasing Istio objects', () => {
  const routing: TrafficRouting = {
    istio: {
      virtualService: { name: 'web', routes: ['primary'] },
      destinationRule: { name: 'web-dr', canarySubsetName: 'canary', stableSubsetName: 'stable' },
    },
  };
  const record = JSON.stringify({
    namespace: NS,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    trafficRouting: routing,
  });

  it('a DestinationRule loses our hash labels; its other labels and subsets stay', () => {
    const dr = {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: {
        name: 'web-dr',
        namespace: NS,
        annotations: { [MANAGED_BY_ANNOTATION]: 'web', [MANAGED_ROUTING_ANNOTATION]: record },
      },
      spec: {
        host: 'web',
        subsets: [
          { name: 'stable', labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'st4bl3' } },
          { name: 'canary', labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'c4n4ry' } },
          { name: 'preview', labels: { app: 'web', track: 'preview' } },
        ],
      },
    };
    assert.deepEqual(releaseBody(gone(dr), Resources.DestinationRule, dr), {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: { name: 'web-dr', namespace: NS },
      spec: {
        subsets: [
          { name: 'stable', labels: { app: 'web' } },
          { name: 'canary', labels: { app: 'web' } },
          { name: 'preview', labels: { app: 'web', track: 'preview' } },
        ],
      },
    });
  });

  it('a VirtualService: its weighted route back to the stable subset at 100', () => {
    const vs = {
      apiVersion: 'networking.istio.io/v1',
      kind: 'VirtualService',
      metadata: {
        name: 'web',
        namespace: NS,
        annotations: { [MANAGED_BY_ANNOTATION]: 'web', [MANAGED_ROUTING_ANNOTATION]: record },
      },
      spec: {
        hosts: ['web'],
        http: [
          {
            name: 'primary',
            route: [
              { destination: { host: 'web', subset: 'stable' }, weight: 70 },
              { destination: { host: 'web', subset: 'canary' }, weight: 30 },
            ],
          },
        ],
      },
    };
    const body = releaseBody(gone(vs), Resources.VirtualService, vs) as {
      spec: Json;
      metadata: Json;
    };
    assert.deepEqual(body.metadata, { name: 'web', namespace: NS });
    assert.deepEqual(body.spec.http, [
      {
        name: 'primary',
        route: [
          { destination: { host: 'web', subset: 'stable' }, weight: 100 },
          { destination: { host: 'web', subset: 'canary' }, weight: 0 },
        ],
      },
    ]);
  });
});

describe('objects we generated go with the Rollout', () => {
  const owned = (kind: string, name: string) => ({
    apiVersion: 'x/v1',
    kind,
    metadata: {
      name,
      namespace: NS,
      annotations: { [MANAGED_BY_ANNOTATION]: 'web' },
      ownerReferences: [
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          name: 'web',
          uid: 'u1',
          controller: true,
        },
      ],
    },
  });
  const routing = (trafficRouting: TrafficRouting): ManagedRouting => ({
    namespace: NS,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    trafficRouting,
  });

  it('the NGINX canary Ingress is not written: the garbage collector deletes it', () => {
    const gone = {
      name: 'web',
      namespace: NS,
      routing: routing({ nginx: { stableIngress: 'web' } }),
    };
    assert.equal(
      releaseBody(gone, Resources.Ingress, owned('Ingress', 'web-web-canary')),
      undefined,
    );
  });

  it('the SMI TrafficSplit is not written either', () => {
    const gone = { name: 'web', routing: routing({ smi: {} }) };
    assert.equal(
      releaseBody(gone, Resources.TrafficSplit, owned('TrafficSplit', 'web')),
      undefined,
    );
  });
});

describe('the recorded routing', () => {
  const withRecord = (text: string) => ({
    metadata: { annotations: { [MANAGED_ROUTING_ANNOTATION]: text } },
  });

  it('reads back what a Rollout recorded', () => {
    const routing = {
      namespace: 'ns',
      canaryService: 'c',
      stableService: 's',
      trafficRouting: { smi: {} },
    };
    assert.deepEqual(readRoutingRecord(withRecord(JSON.stringify(routing))), routing);
  });

  const bad: [string, string][] = [
    ['not JSON', '{'],
    ['not an object', '"web"'],
    [
      'a Service that is not a string',
      '{"canaryService":1,"stableService":"s","trafficRouting":{}}',
    ],
    [
      'a routing the schema refuses',
      '{"namespace":"ns","canaryService":"c","stableService":"s","trafficRouting":{"maxTrafficWeight":0}}',
    ],
    [
      'an unknown router',
      '{"namespace":"ns","canaryService":"c","stableService":"s","trafficRouting":{"linkerd":{}}}',
    ],
  ];
  for (const [name, text] of bad) {
    it(`${name}: none (nothing is released on a guess)`, () => {
      assert.equal(readRoutingRecord(withRecord(text)), undefined);
    });
  }

  it('absent: none', () => assert.equal(readRoutingRecord({ metadata: {} }), undefined));
});
