// The Istio router against VirtualServices and DestinationRules as the API server returns them:
// which objects it reads, the weights it writes (host- and subset-level, HTTP, TLS and TCP), the
// user's values it carries unchanged in the atomic lists, the header and mirror routes it adds,
// orders and removes, the problems it reports, and that observe(apply(s)) gives back s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MANAGED_BY_ANNOTATION,
  MANAGED_ROUTING_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  routingRecord,
} from '../../../src/api/index.ts';
import type { CanaryStep, IstioRouting, Rollout, TrafficState } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { istioRouter } from '../../../src/traffic/istio.ts';
import { refKey } from '../../../src/traffic/router.ts';
import type { RouterContext } from '../../../src/traffic/router.ts';

type Json = Record<string, unknown>;
const NS = 'ns';

function rollout(steps: CanaryStep[] = [], managed: string[] = ['hdr', 'mirror']): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: NS, uid: 'uid-web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {},
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          steps,
          trafficRouting: { managedRoutes: managed.map((name) => ({ name })) },
        },
      },
    },
  };
}

const dest = (host: string, weight?: number, extra: Json = {}): Json => ({
  destination: { host, port: { number: 80 }, ...extra },
  ...(weight === undefined ? {} : { weight }),
});

/** A Git-declared VirtualService: a weighted route among user routes with their own settings. */
function virtualService(http: Json[], extra: Json = {}, name = 'web'): KubeObject {
  return serverSide({
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: {
      name,
      namespace: NS,
      annotations: { 'argocd.argoproj.io/tracking-id': 'app:networking.istio.io/VirtualService' },
    },
    spec: { hosts: ['web.example.com'], gateways: ['public'], http, ...extra },
  });
}

const primary = (canary = 0, stable = 100): Json => ({
  name: 'primary',
  match: [{ uri: { prefix: '/' }, headers: { 'x-env': { exact: 'prod' } } }],
  timeout: '5s',
  retries: { attempts: 3, perTryTimeout: '2s', retryOn: '5xx' },
  route: [
    dest('web-stable', stable),
    dest('web-canary.ns.svc.cluster.local', canary),
    dest('legacy', 0),
  ],
});
const admin: Json = { name: 'admin', route: [dest('admin', 100)], timeout: '1s' };

/** The server's JSON: keys sorted (so nothing may depend on the order we wrote them in). */
function serverSide<T>(value: T): T {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Json)[k])]),
          )
        : v;
  return sort(JSON.parse(JSON.stringify(value))) as T;
}

const typeOf = (kind: string) =>
  kind === 'VirtualService' ? Resources.VirtualService : Resources.DestinationRule;
const keyOf = (o: KubeObject) =>
  refKey({ type: typeOf(o.kind ?? ''), namespace: NS, name: o.metadata?.name ?? '' });

interface World {
  ro: Rollout;
  objects: Map<string, KubeObject>;
}
function world(objects: KubeObject[], ro = rollout()): World {
  return { ro, objects: new Map(objects.map((o) => [keyOf(o), o])) };
}
function ctx(w: World, over: Partial<RouterContext> = {}): RouterContext {
  return {
    rollout: w.ro,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    maxWeight: 100,
    canaryHash: 'c4n4ry',
    stableHash: 'st4bl3',
    objects: w.objects,
    ...over,
  };
}

/** Server-side apply with force of our bodies: each list the body carries replaces the live
 *  one (atomic), annotations merge (a granular map). */
function apply(w: World, bodies: readonly KubeObject[]): void {
  for (const body of bodies) {
    const live: (KubeObject & { spec?: Json }) | undefined = w.objects.get(keyOf(body));
    assert.ok(live, `apply to ${keyOf(body)}: we only write the user's objects`);
    const b = body as KubeObject & { spec?: Json };
    const annotations = { ...live.metadata?.annotations, ...b.metadata?.annotations };
    const metadata = { ...live.metadata, annotations };
    w.objects.set(
      keyOf(body),
      serverSide({ ...live, metadata, spec: { ...live.spec, ...b.spec } }),
    );
  }
}

const S = (canaryWeight: number, more: Partial<TrafficState> = {}): TrafficState => ({
  canaryWeight,
  headerRoutes: [],
  mirrorRoutes: [],
  ...more,
});
const hostRouting: IstioRouting = { virtualService: { name: 'web', routes: ['primary'] } };
const specOf = (o: KubeObject | undefined) => (o as { spec?: Json } | undefined)?.spec ?? {};
const httpOf = (o: KubeObject | undefined) => (specOf(o).http ?? []) as Json[];
const liveVs = (w: World, name = 'web') =>
  w.objects.get(refKey({ type: Resources.VirtualService, namespace: NS, name }));
const weights = (route: Json) =>
  (route.route as Json[]).map((d) => [(d.destination as Json).host, d.weight]);

const HEADER = {
  name: 'hdr',
  match: [
    { headerName: 'x-canary', headerValue: { exact: 'yes' } },
    { headerName: 'user-agent', headerValue: { regex: '.*Mobile.*' } },
  ],
};
const MIRROR = {
  name: 'mirror',
  match: [
    { method: { exact: 'GET' }, path: { prefix: '/api' } },
    { headers: { 'x-debug': { exact: '1' } } },
  ],
  percentage: 20,
};

describe('istio router: refs', () => {
  it('reads the VirtualService in the Rollout namespace, and the DestinationRule when set', () => {
    const ro = rollout();
    assert.deepEqual(istioRouter(hostRouting).refs(ro), [
      { type: Resources.VirtualService, namespace: NS, name: 'web' },
    ]);
    const routing: IstioRouting = {
      virtualServices: [{ name: 'a' }, { name: 'b' }],
      destinationRule: { name: 'dr', canarySubsetName: 'canary', stableSubsetName: 'stable' },
    };
    assert.deepEqual(
      istioRouter(routing)
        .refs(ro)
        .map((r) => `${r.type.kind}/${r.namespace}/${r.name}`),
      ['VirtualService/ns/a', 'VirtualService/ns/b', 'DestinationRule/ns/dr'],
    );
  });
});

describe('istio router: marking', () => {
  it('reads no state from objects not yet marked as ours, so the first pass marks them', () => {
    const routing: IstioRouting = {
      ...hostRouting,
      destinationRule: { name: 'web-dr', canarySubsetName: 'canary', stableSubsetName: 'stable' },
    };
    const dr = serverSide({
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: { name: 'web-dr', namespace: NS },
      spec: { subsets: [{ name: 'stable' }, { name: 'canary' }] },
    });
    const w = world([virtualService([primary()]), dr]);
    const router = istioRouter({ virtualService: { name: 'web', routes: ['primary'] } });
    assert.deepEqual(router.observe(ctx(w)), { problems: [] }, 'Git weights, but not marked');
    apply(w, router.applies(ctx(w), S(0)));
    assert.deepEqual(router.observe(ctx(w)), { state: S(0), problems: [] });
    const subsetVs = virtualService([
      {
        name: 'primary',
        route: [dest('web', 100, { subset: 'stable' }), dest('web', 0, { subset: 'canary' })],
      },
    ]);
    const v = world([subsetVs, dr]);
    const withRule = istioRouter(routing);
    assert.deepEqual(withRule.observe(ctx(v)), { problems: [] }, 'Git weights, but not marked');
    const bodies = withRule.applies(ctx(v), S(0));
    assert.deepEqual(
      bodies.map((b) => b.kind),
      ['DestinationRule', 'VirtualService'],
      'subsets first (Argo: UpdateHash before SetWeight)',
    );
    apply(v, bodies);
    assert.deepEqual(withRule.observe(ctx(v)), { state: S(0), problems: [] });
  });
});

describe('istio router: host-level weights', () => {
  for (const [canary, max] of [
    [0, 100],
    [30, 100],
    [100, 100],
    [300, 1000],
  ] as const) {
    it(`gives the canary ${canary} and the stable ${max - canary} of ${max}, others untouched`, () => {
      const w = world([virtualService([primary(), admin])]);
      const c = ctx(w, { maxWeight: max });
      apply(w, istioRouter(hostRouting).applies(c, S(canary)));
      const [p, a] = httpOf(liveVs(w));
      assert.deepEqual(weights(p as Json), [
        ['web-stable', max - canary],
        ['web-canary.ns.svc.cluster.local', canary],
        ['legacy', 0],
      ]);
      assert.deepEqual(a, serverSide(admin));
      assert.deepEqual(istioRouter(hostRouting).observe(ctx(w, { maxWeight: max })), {
        state: S(canary),
        problems: [],
      });
    });
  }

  it("carries the user's routes byte for byte and nothing else of the spec", () => {
    const w = world([virtualService([admin, primary()])]);
    const [body] = istioRouter(hostRouting).applies(ctx(w), S(30));
    assert.deepEqual(Object.keys(specOf(body)), ['http'], 'hosts and gateways stay the user’s');
    assert.deepEqual(body?.metadata, {
      name: 'web',
      namespace: NS,
      annotations: {
        [MANAGED_BY_ANNOTATION]: 'web',
        [MANAGED_ROUTING_ANNOTATION]: routingRecord(w.ro),
      },
    });
    const [a, p] = httpOf(body);
    assert.deepEqual(a, serverSide(admin));
    const expected = serverSide(primary(30, 70));
    assert.deepEqual(serverSide(p), expected, 'match, timeout, retries, other destinations kept');
  });

  it('weighs the one HTTP route when routes is omitted, even unnamed', () => {
    const { name: _n, ...unnamed } = primary();
    const w = world([virtualService([unnamed])]);
    const router = istioRouter({ virtualService: { name: 'web' } });
    apply(w, router.applies(ctx(w), S(40)));
    assert.deepEqual(weights(httpOf(liveVs(w))[0] as Json).slice(0, 2), [
      ['web-stable', 60],
      ['web-canary.ns.svc.cluster.local', 40],
    ]);
    assert.deepEqual(router.observe(ctx(w)).state, S(40));
  });

  it('weighs every named route of every VirtualService alike', () => {
    const second = { ...primary(), name: 'second' };
    const w = world([virtualService([primary(), second]), virtualService([primary()], {}, 'b')]);
    const router = istioRouter({
      virtualServices: [
        { name: 'web', routes: ['primary', 'second'] },
        { name: 'b', routes: ['primary'] },
      ],
    });
    apply(w, router.applies(ctx(w), S(25)));
    for (const r of [...httpOf(liveVs(w)), ...httpOf(liveVs(w, 'b'))]) {
      assert.deepEqual(weights(r).slice(0, 2), [
        ['web-stable', 75],
        ['web-canary.ns.svc.cluster.local', 25],
      ]);
    }
    assert.deepEqual(router.observe(ctx(w)).state, S(25));
  });

  it('weighs TLS routes by port and SNI hosts and TCP routes by port, and only those lists', () => {
    const tls = [
      {
        match: [{ port: 443, sniHosts: ['a.example.com'] }],
        route: [dest('web-stable', 100), dest('web-canary', 0)],
      },
      { match: [{ port: 443, sniHosts: ['b.example.com'] }], route: [dest('other', 100)] },
    ];
    const tcp = [
      { match: [{ port: 5432 }], route: [dest('web-stable', 100), dest('web-canary', 0)] },
    ];
    const w = world([virtualService([], { tls, tcp })]);
    const router = istioRouter({
      virtualService: {
        name: 'web',
        tlsRoutes: [{ port: 443, sniHosts: ['a.example.com'] }],
        tcpRoutes: [{ port: 5432 }],
      },
    });
    const [body] = router.applies(ctx(w), S(10));
    assert.deepEqual(Object.keys(specOf(body)).sort(), ['tcp', 'tls'], 'no HTTP list to take');
    apply(w, [body as KubeObject]);
    const spec = specOf(liveVs(w));
    assert.deepEqual(weights((spec.tls as Json[])[0] as Json), [
      ['web-stable', 90],
      ['web-canary', 10],
    ]);
    assert.deepEqual((spec.tls as Json[])[1], serverSide(tls[1]));
    assert.deepEqual(weights((spec.tcp as Json[])[0] as Json), [
      ['web-stable', 90],
      ['web-canary', 10],
    ]);
    assert.deepEqual(router.observe(ctx(w)).state, S(10));
  });

  it('reads no state while routes disagree or the stable is not given the rest', () => {
    const second = { ...primary(20, 80), name: 'second' };
    const router = istioRouter({ virtualService: { name: 'web', routes: ['primary', 'second'] } });
    assert.deepEqual(router.observe(ctx(world([virtualService([primary(30, 70), second])]))), {
      problems: [],
    });
    assert.deepEqual(
      istioRouter(hostRouting).observe(ctx(world([virtualService([primary(30, 60)])]))),
      {
        problems: [],
      },
    );
    const two = istioRouter({
      virtualServices: [
        { name: 'web', routes: ['primary'] },
        { name: 'b', routes: ['primary'] },
      ],
    });
    const w = world([
      virtualService([primary(30, 70)]),
      virtualService([primary(40, 60)], {}, 'b'),
    ]);
    assert.deepEqual(two.observe(ctx(w)), { problems: [] }, 'VirtualServices disagree');
  });
});

describe('istio router: subset-level weights', () => {
  const routing: IstioRouting = {
    virtualService: { name: 'web', routes: ['primary'] },
    destinationRule: {
      name: 'web-dr',
      canarySubsetName: 'canary',
      stableSubsetName: 'stable',
      additionalSubsetNames: ['preview'],
    },
  };
  const subsetRoute = (canary: number, stable: number) => ({
    name: 'primary',
    route: [
      dest('web', stable, { subset: 'stable' }),
      dest('web', canary, { subset: 'canary' }),
      dest('web', 10, { subset: 'preview' }),
    ],
  });
  const subsets = [
    { name: 'stable', labels: { app: 'web' }, trafficPolicy: { tls: { mode: 'ISTIO_MUTUAL' } } },
    { name: 'canary', labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'old' } },
    { name: 'preview', labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'pr3v' } },
  ];
  const rule = (s: Json[] = subsets) =>
    serverSide({
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: { name: 'web-dr', namespace: NS },
      spec: { host: 'web', trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' } }, subsets: s },
    });

  it('weighs the subsets, leaving additional subsets their weight out of the stable share', () => {
    const w = world([virtualService([subsetRoute(0, 90)]), rule()]);
    apply(w, istioRouter(routing).applies(ctx(w), S(30)));
    const route = (httpOf(liveVs(w))[0] as Json).route as Json[];
    assert.deepEqual(
      route.map((d) => [(d.destination as Json).subset, d.weight]),
      [
        ['stable', 60],
        ['canary', 30],
        ['preview', 10],
      ],
    );
  });

  it('pins the canary and stable subsets to the hashes, other labels and subsets unchanged', () => {
    const w = world([virtualService([subsetRoute(0, 90)]), rule()]);
    const bodies = istioRouter(routing).applies(ctx(w), S(30));
    const drBody = bodies.find((b) => b.kind === 'DestinationRule');
    assert.deepEqual(
      Object.keys(specOf(drBody)),
      ['subsets'],
      'host and trafficPolicy stay theirs',
    );
    assert.deepEqual(drBody?.metadata?.annotations, {
      [MANAGED_BY_ANNOTATION]: 'web',
      [MANAGED_ROUTING_ANNOTATION]: routingRecord(w.ro),
    });
    apply(w, bodies);
    const live = specOf(w.objects.get(keyOf(rule()))).subsets as Json[];
    assert.deepEqual(
      live,
      serverSide([
        { ...subsets[0], labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'st4bl3' } },
        { ...subsets[1], labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'c4n4ry' } },
        subsets[2],
      ]),
    );
    assert.deepEqual(istioRouter(routing).observe(ctx(w)), { state: S(30), problems: [] });
  });

  it('takes the hash label off for an empty hash (Argo), adding no labels where there were none', () => {
    const bare = rule([{ name: 'stable' }, subsets[1] as Json]);
    const w = world([virtualService([subsetRoute(0, 90)]), bare]);
    const bodies = istioRouter(routing).applies(ctx(w, { canaryHash: '', stableHash: '' }), S(0));
    const drBody = bodies.find((b) => b.kind === 'DestinationRule');
    assert.deepEqual(specOf(drBody).subsets, [
      { name: 'stable' },
      { ...subsets[1], labels: { app: 'web' } },
    ]);
  });

  it('reads no state while a subset label is not the hash', () => {
    const w = world([virtualService([subsetRoute(30, 60)]), rule()]);
    assert.deepEqual(istioRouter(routing).observe(ctx(w)), { problems: [] });
  });

  it('names a missing DestinationRule, a missing subset and a route without the subsets', () => {
    const router = istioRouter(routing);
    assert.deepEqual(router.observe(ctx(world([virtualService([subsetRoute(0, 90)])]))).problems, [
      'DestinationRule "ns/web-dr" not found',
    ]);
    const noCanary = rule([subsets[0] as Json]);
    assert.deepEqual(
      router.observe(ctx(world([virtualService([subsetRoute(0, 90)]), noCanary]))).problems,
      ['DestinationRule "ns/web-dr" has no subset named "canary"'],
    );
    const hostOnly = virtualService([primary()]);
    assert.deepEqual(router.observe(ctx(world([hostOnly, rule()]))).problems, [
      'VirtualService "ns/web" route "primary" has no destination for subset "canary"',
      'VirtualService "ns/web" route "primary" has no destination for subset "stable"',
    ]);
  });
});

describe('istio router: header and mirror routes', () => {
  const steps: CanaryStep[] = [
    { setWeight: 10 },
    { setHeaderRoute: HEADER },
    { setMirrorRoute: MIRROR },
  ];

  it('puts each managed route first, named after it, in managedRoutes order', () => {
    const w = world([virtualService([admin, primary()])], rollout(steps, ['mirror', 'hdr']));
    const state = S(10, { headerRoutes: [HEADER], mirrorRoutes: [MIRROR] });
    const [body] = istioRouter(hostRouting).applies(ctx(w), state);
    assert.deepEqual(
      httpOf(body).map((r) => r.name),
      ['mirror', 'hdr', 'admin', 'primary'],
    );
  });

  it('sends each header match to the canary destination of the weighted route, at 100', () => {
    const w = world([virtualService([primary()])], rollout(steps));
    const [body] = istioRouter(hostRouting).applies(ctx(w), S(10, { headerRoutes: [HEADER] }));
    assert.deepEqual(httpOf(body)[0], {
      name: 'hdr',
      match: [
        { headers: { 'x-canary': { exact: 'yes' } } },
        { headers: { 'user-agent': { regex: '.*Mobile.*' } } },
      ],
      route: [
        {
          destination: { host: 'web-canary.ns.svc.cluster.local', port: { number: 80 } },
          weight: 100,
        },
      ],
    });
  });

  it('mirrors the matching requests to the canary while serving them at the current weights', () => {
    const w = world([virtualService([primary()])], rollout(steps));
    const [body] = istioRouter(hostRouting).applies(ctx(w), S(10, { mirrorRoutes: [MIRROR] }));
    const mirror = httpOf(body)[0] as Json;
    assert.deepEqual(mirror.match, [
      { method: { exact: 'GET' }, uri: { prefix: '/api' } },
      { headers: { 'x-debug': { exact: '1' } } },
    ]);
    assert.deepEqual(weights(mirror), [
      ['web-stable', 90],
      ['web-canary.ns.svc.cluster.local', 10],
      ['legacy', 0],
    ]);
    assert.deepEqual(mirror.mirror, {
      host: 'web-canary.ns.svc.cluster.local',
      port: { number: 80 },
    });
    assert.deepEqual(mirror.mirrorPercentage, { value: 20 });
  });

  it('replaces a managed route in place and removes one the state no longer has', () => {
    const w = world([virtualService([admin, primary()])], rollout(steps));
    const router = istioRouter(hostRouting);
    apply(w, router.applies(ctx(w), S(10, { headerRoutes: [HEADER], mirrorRoutes: [MIRROR] })));
    const changed = {
      ...HEADER,
      match: [{ headerName: 'x-canary', headerValue: { prefix: 'y' } }],
    };
    apply(w, router.applies(ctx(w), S(10, { headerRoutes: [changed], mirrorRoutes: [MIRROR] })));
    assert.deepEqual(
      httpOf(liveVs(w)).map((r) => r.name),
      ['hdr', 'mirror', 'admin', 'primary'],
    );
    assert.deepEqual(router.observe(ctx(w)).state?.headerRoutes, [changed]);
    apply(w, router.applies(ctx(w), S(0)));
    assert.deepEqual(httpOf(liveVs(w)), serverSide([admin, primary(0, 100)]));
  });

  it('reads no state while managed routes are out of order, behind a user route, or edited', () => {
    const router = istioRouter(hostRouting);
    const w = world([virtualService([primary()])], rollout(steps));
    apply(w, router.applies(ctx(w), S(10, { headerRoutes: [HEADER], mirrorRoutes: [MIRROR] })));
    const [hdr, mirror, user] = httpOf(liveVs(w)) as [Json, Json, Json];
    const variants: Record<string, Json[]> = {
      'out of order': [mirror, hdr, user],
      'behind a user route': [hdr, user, mirror],
      edited: [{ ...hdr, timeout: '1s' }, mirror, user],
      'mirror weights behind': [hdr, { ...mirror, route: primary(0, 100).route }, user],
    };
    for (const [why, http] of Object.entries(variants)) {
      const v = world([virtualService(http)], rollout(steps));
      assert.deepEqual(router.observe(ctx(v)), { problems: [] }, why);
    }
  });

  it('counts a route as managed only when managedRoutes lists its name', () => {
    const w = world(
      [virtualService([{ ...admin, name: 'hdr' }, primary(10, 90)])],
      rollout([], []),
    );
    const router = istioRouter(hostRouting);
    const [body] = router.applies(ctx(w), S(10));
    assert.deepEqual(httpOf(body)[0], serverSide({ ...admin, name: 'hdr' }), 'a user route stays');
    apply(w, [body as KubeObject]);
    assert.deepEqual(router.observe(ctx(w)), { state: S(10), problems: [] });
  });
});

describe('istio router: problems', () => {
  const cases: [string, IstioRouting, KubeObject[], string[]][] = [
    ['a missing VirtualService', hostRouting, [], ['VirtualService "ns/web" not found']],
    [
      'a missing named route',
      hostRouting,
      [virtualService([admin])],
      ['VirtualService "ns/web" has no HTTP route named "primary"'],
    ],
    [
      'a route without the canary destination',
      hostRouting,
      [virtualService([{ name: 'primary', route: [dest('web-stable', 100)] }])],
      ['VirtualService "ns/web" route "primary" has no destination for Service "web-canary"'],
    ],
    [
      'a route without the stable destination',
      hostRouting,
      [virtualService([{ name: 'primary', route: [dest('web-canary', 100)] }])],
      ['VirtualService "ns/web" route "primary" has no destination for Service "web-stable"'],
    ],
    [
      'routes omitted with several HTTP routes',
      { virtualService: { name: 'web' } },
      [virtualService([primary(), admin])],
      ['VirtualService "ns/web" has 2 HTTP routes: name the ones to weigh in routes'],
    ],
    [
      'a TLS route that is not there',
      { virtualService: { name: 'web', routes: ['primary'], tlsRoutes: [{ port: 443 }] } },
      [virtualService([primary()])],
      ['VirtualService "ns/web" has no TLS route for port 443 and sniHosts []'],
    ],
    [
      'a VirtualService of another Rollout',
      hostRouting,
      [
        serverSide({
          ...virtualService([primary()]),
          metadata: { name: 'web', namespace: NS, annotations: { [MANAGED_BY_ANNOTATION]: 'api' } },
        }),
      ],
      ['VirtualService "ns/web" is managed by Rollout "api"'],
    ],
  ];
  for (const [what, routing, objects, problems] of cases) {
    it(`names ${what}`, () => {
      assert.deepEqual(istioRouter(routing).observe(ctx(world(objects))), { problems });
    });
  }

  it('names a VirtualService that cannot carry the header routes the steps set', () => {
    const routing: IstioRouting = { virtualService: { name: 'web', tcpRoutes: [{ port: 5432 }] } };
    const tcp = [
      { match: [{ port: 5432 }], route: [dest('web-stable', 100), dest('web-canary', 0)] },
    ];
    const w = world([virtualService([], { tcp })], rollout([{ setHeaderRoute: HEADER }]));
    assert.deepEqual(istioRouter(routing).observe(ctx(w)).problems, [
      'VirtualService "ns/web" has no weighted HTTP route to carry header and mirror routes',
    ]);
  });
});

describe('istio router: round trip', () => {
  it('observe(apply(s)) is s for any weight and any managed routes, and a second apply is a no-op', () => {
    const routeSets = [[], [HEADER], [MIRROR], [HEADER, MIRROR]] as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(...routeSets),
        fc.boolean(),
        (raw, routes, subsetLevel) => {
          const max = 1000;
          const routing: IstioRouting = subsetLevel
            ? {
                ...hostRouting,
                destinationRule: {
                  name: 'web-dr',
                  canarySubsetName: 'canary',
                  stableSubsetName: 'stable',
                },
              }
            : hostRouting;
          const http = subsetLevel
            ? [
                {
                  name: 'primary',
                  route: [
                    dest('web', 1000, { subset: 'stable' }),
                    dest('web', 0, { subset: 'canary' }),
                  ],
                },
              ]
            : [primary(0, 1000)];
          const rule = serverSide({
            apiVersion: 'networking.istio.io/v1',
            kind: 'DestinationRule',
            metadata: { name: 'web-dr', namespace: NS },
            spec: {
              host: 'web',
              subsets: [{ name: 'stable' }, { name: 'canary', labels: { v: '2' } }],
            },
          });
          const w = world([virtualService([admin, ...http]), ...(subsetLevel ? [rule] : [])]);
          const state = S(raw, {
            headerRoutes: routes.filter((r) => !('percentage' in r)),
            mirrorRoutes: routes.filter((r) => 'percentage' in r),
          } as Partial<TrafficState>);
          const router = istioRouter(routing);
          apply(w, router.applies(ctx(w, { maxWeight: max }), state));
          assert.deepEqual(router.observe(ctx(w, { maxWeight: max })), { state, problems: [] });
          const before = serverSide([...w.objects.values()]);
          apply(w, router.applies(ctx(w, { maxWeight: max }), state));
          assert.deepEqual(serverSide([...w.objects.values()]), before);
        },
      ),
      { numRuns: 60 },
    );
  });
});
