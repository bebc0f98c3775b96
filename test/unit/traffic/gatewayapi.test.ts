// The Gateway API router, pure: which rules carry the weights, what an apply body keeps of the
// user's route (everything but our weights and rules), managed header and mirror rules, what it
// refuses, and that reading back what it applies gives exactly the state it applied.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { routingRecord } from '../../../src/api/index.ts';
import type { Rollout, TrafficState } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { gatewayApiRouter } from '../../../src/traffic/gatewayapi.ts';
import { refKey } from '../../../src/traffic/router.ts';
import type { RouterContext } from '../../../src/traffic/router.ts';

const ROUTING = { httpRoute: 'web' };

function rollout(managed: string[] = []): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'u1' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } } },
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { gatewayAPI: ROUTING, managedRoutes: managed.map((name) => ({ name })) },
        },
      },
    },
  };
}

const ref = (name: string, weight?: number) => ({
  group: '',
  kind: 'Service',
  name,
  port: 80,
  ...(weight === undefined ? {} : { weight }),
});

/** The annotations our applies leave on the route of rollout(). */
const OURS = {
  'stepwise.dev/managed-by': 'web',
  'stepwise.dev/managed-routing': routingRecord(rollout()),
};

function route(annotations: Record<string, string> = OURS) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'web', namespace: 'ns', annotations },
    spec: {
      parentRefs: [{ name: 'gw' }],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/api' } }],
          filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { add: [] } }],
          timeouts: { request: '10s' },
          backendRefs: [ref('web-stable', 100), ref('web-canary', 0)],
        },
        {
          matches: [{ path: { type: 'PathPrefix', value: '/static' } }],
          backendRefs: [ref('cdn')],
        },
      ],
    },
  };
}

function ctx(live: KubeObject | undefined, r = rollout()): RouterContext {
  const router = gatewayApiRouter(ROUTING);
  const [only] = router.refs(r);
  const objects = new Map<string, KubeObject>();
  if (live && only) objects.set(refKey(only), live);
  return {
    rollout: r,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    maxWeight: 100,
    canaryHash: 'c',
    stableHash: 's',
    objects,
  };
}

/** What the API server keeps after our forced apply: our rules list and annotations. */
function applied(live: ReturnType<typeof route>, body: KubeObject): ReturnType<typeof route> {
  const b = body as ReturnType<typeof route>;
  return {
    ...live,
    metadata: {
      ...live.metadata,
      annotations: { ...live.metadata.annotations, ...b.metadata.annotations },
    },
    spec: { ...live.spec, rules: b.spec.rules },
  };
}

const state = (canaryWeight: number, extra: Partial<TrafficState> = {}): TrafficState => ({
  canaryWeight,
  headerRoutes: [],
  mirrorRoutes: [],
  ...extra,
});

describe('Gateway API router', () => {
  const router = gatewayApiRouter(ROUTING);

  it('names the HTTPRoute in the Rollout namespace, or the one given', () => {
    assert.deepEqual(
      router.refs(rollout()).map((r) => `${r.type.kind} ${r.namespace}/${r.name}`),
      ['HTTPRoute ns/web'],
    );
    const other = gatewayApiRouter({
      httpRoutes: [{ name: 'a' }, { name: 'b' }],
      namespace: 'edge',
    });
    assert.deepEqual(
      other.refs(rollout()).map((r) => `${r.namespace}/${r.name}`),
      ['edge/a', 'edge/b'],
    );
  });

  it('reads the canary weight of the rule with both Services', () => {
    assert.deepEqual(router.observe(ctx(route())), { state: state(0), problems: [] });
  });

  it('a route written without weights splits 50/50 (Gateway API default weight 1): no state, so we write', () => {
    const live = route();
    live.spec.rules[0]!.backendRefs = [ref('web-stable'), ref('web-canary')];
    assert.deepEqual(router.observe(ctx(live)), { problems: [] });
  });

  it('a route not yet marked as ours has no state: the first pass marks it', () => {
    assert.deepEqual(router.observe(ctx(route({}))), { problems: [] });
  });

  it('a mark without the routing that hands it back, or with an older one, has no state: one apply records it', () => {
    const unrecorded = { 'stepwise.dev/managed-by': 'web' };
    assert.deepEqual(router.observe(ctx(route(unrecorded))), { problems: [] });
    const older = {
      ...OURS,
      'stepwise.dev/managed-routing': routingRecord(rollout(['x'])),
    };
    assert.deepEqual(router.observe(ctx(route(older))), { problems: [] });
    const [body] = router.applies(ctx(route(unrecorded)), state(0));
    assert.deepEqual(
      body?.metadata?.annotations?.['stepwise.dev/managed-routing'],
      OURS['stepwise.dev/managed-routing'],
    );
  });

  it('a Rollout of a controller instance marks the route with it', () => {
    const labelled = rollout();
    labelled.metadata.labels = { 'stepwise.dev/controller-instance-id': 'blue' };
    const [body] = router.applies(ctx(route(), labelled), state(0));
    assert.equal(body?.metadata?.annotations?.['stepwise.dev/managed-by-instance'], 'blue');
    assert.deepEqual(
      router.observe(ctx(route(), labelled)),
      { problems: [] },
      'unmarked for it yet',
    );
    assert.deepEqual(router.observe(ctx(applied(route(), body), labelled)).state, state(0));
  });

  it('sets weights on our rule only; every other field of every rule is kept as it was', () => {
    const live = route();
    const [body] = router.applies(ctx(live), state(30)) as [ReturnType<typeof route>];
    const [weighted, other] = body.spec.rules;
    assert.deepEqual(weighted, {
      ...live.spec.rules[0],
      backendRefs: [ref('web-stable', 70), ref('web-canary', 30)],
    });
    assert.deepEqual(other, live.spec.rules[1]);
    assert.equal(body.metadata.annotations['stepwise.dev/managed-by'], 'web');
    assert.equal('parentRefs' in body.spec, false, 'only the atomic field we must own');
  });

  it('round trip: reading back what it applied gives exactly the state applied', () => {
    const header = { headerName: 'x-canary', headerValue: { exact: 'yes' } };
    const cases: TrafficState[] = [
      state(0),
      state(30),
      state(100),
      state(10, { headerRoutes: [{ name: 'h', match: [header] }] }),
      state(10, {
        mirrorRoutes: [
          {
            name: 'm',
            match: [{ path: { prefix: '/' }, method: { exact: 'GET' } }],
            percentage: 20,
          },
        ],
      }),
    ];
    const r = rollout(['m', 'h']);
    for (const s of cases) {
      const live = route();
      const [body] = router.applies(ctx(live, r), s);
      assert.ok(body);
      assert.deepEqual(router.observe(ctx(applied(live, body), r)).state, s, JSON.stringify(s));
    }
  });

  it('a header route is a rule of its own to the canary, on the base rule matches plus the headers', () => {
    const r = rollout(['h']);
    const s = state(10, {
      headerRoutes: [
        { name: 'h', match: [{ headerName: 'x-canary', headerValue: { regex: '^y' } }] },
      ],
    });
    const [body] = router.applies(ctx(route(), r), s) as [ReturnType<typeof route>];
    const rule = body.spec.rules.find((x) => (x as { name?: string }).name === 'stepwise-h');
    assert.deepEqual(rule, {
      name: 'stepwise-h',
      matches: [
        {
          path: { type: 'PathPrefix', value: '/api' },
          headers: [{ type: 'RegularExpression', name: 'x-canary', value: '^y' }],
        },
      ],
      backendRefs: [ref('web-canary', 1)],
    });
  });

  it('a reset that drops our rules (a GitOps sync) reads as missing routes, so we apply again', () => {
    const r = rollout(['h']);
    const s = state(10, {
      headerRoutes: [{ name: 'h', match: [{ headerName: 'x', headerValue: { exact: '1' } }] }],
    });
    const live = route();
    const [body] = router.applies(ctx(live, r), s);
    assert.ok(body);
    const reset = applied(live, body);
    reset.spec.rules = route().spec.rules;
    assert.deepEqual(router.observe(ctx(reset, r)).state?.headerRoutes, []);
  });

  it('problems name the route: missing, without the two backends, managed by another Rollout', () => {
    assert.deepEqual(router.observe(ctx(undefined)).problems, ['HTTPRoute "ns/web" not found']);
    const bare = route();
    bare.spec.rules = [{ ...bare.spec.rules[1]! }];
    assert.deepEqual(router.observe(ctx(bare)).problems, [
      'HTTPRoute "ns/web" has no rule with backendRefs to both Service "web-stable" and Service "web-canary"',
    ]);
    assert.deepEqual(router.observe(ctx(route({ 'stepwise.dev/managed-by': 'api' }))).problems, [
      'HTTPRoute "ns/web" is managed by Rollout "api"',
    ]);
  });
});
