// The NGINX router: the canary Ingress it generates from the stable one (Argo's name, rules,
// backends, TLS, class, annotations, owner, no GitOps tracking keys), what it reads back and
// when it must regenerate, the problems it names, and observe(apply(s)) == s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MANAGED_BY_ANNOTATION } from '../../../src/api/index.ts';
import type { NginxRouting, Rollout, TrafficState } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { canaryIngressName, nginxRouter } from '../../../src/traffic/nginx.ts';
import { refKey } from '../../../src/traffic/router.ts';
import type { RouterContext } from '../../../src/traffic/router.ts';

type Json = Record<string, unknown>;
const NS = 'ns';
const rollout: Rollout = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: NS, uid: 'uid-web' },
  spec: { selector: {}, template: {}, strategy: { canary: {} } },
};

const backend = (name: string, port = 80) => ({ service: { name, port: { number: port } } });
/** The stable Ingress as Git declares it: the stable Service on two hosts, another Service on
 *  a path of one of them, a host without the stable Service, TLS and a class. */
function stableIngress(name = 'web', extraSpec: Json = {}): KubeObject {
  const ingress: KubeObject & { spec: Json } = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: NS,
      labels: { 'app.kubernetes.io/instance': 'web-app', team: 'a' },
      annotations: {
        'argocd.argoproj.io/tracking-id': 'web-app:networking.k8s.io/Ingress:ns/web',
        'kubernetes.io/ingress.class': 'nginx',
        'nginx.ingress.kubernetes.io/rewrite-target': '/',
      },
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
        {
          host: 'admin.example.com',
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('admin') }] },
        },
        {
          host: 'api.example.com',
          http: { paths: [{ path: '/v1', pathType: 'Exact', backend: backend('web-stable') }] },
        },
      ],
      ...extraSpec,
    },
  };
  return ingress;
}

const keyOf = (name: string) => refKey({ type: Resources.Ingress, namespace: NS, name });
interface World {
  objects: Map<string, KubeObject>;
}
const world = (...objects: KubeObject[]): World => ({
  objects: new Map(objects.map((o) => [keyOf(o.metadata?.name ?? ''), o])),
});
function ctx(w: World, maxWeight = 100): RouterContext {
  return {
    rollout,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    maxWeight,
    canaryHash: 'c',
    stableHash: 's',
    objects: w.objects,
  };
}
/** We own every field of a generated object: the server keeps exactly our body (plus its own). */
function apply(w: World, bodies: readonly KubeObject[]): void {
  for (const body of bodies) {
    const copy = JSON.parse(JSON.stringify(body)) as KubeObject;
    w.objects.set(keyOf(body.metadata?.name ?? ''), {
      ...copy,
      metadata: { ...copy.metadata, uid: `uid-${body.metadata?.name}` },
    });
  }
}
const S = (canaryWeight: number): TrafficState => ({
  canaryWeight,
  headerRoutes: [],
  mirrorRoutes: [],
});
const routing: NginxRouting = { stableIngress: 'web' };
const spec = (o: KubeObject | undefined) => (o as { spec?: Json } | undefined)?.spec ?? {};
const canaryOf = (w: World, stable = 'web') =>
  w.objects.get(keyOf(canaryIngressName('web', stable)));

describe('nginx router: the canary Ingress', () => {
  it('reads each stable Ingress and its canary, named <rollout>-<stable>-canary', () => {
    assert.deepEqual(
      nginxRouter({ stableIngresses: ['a', 'b'] })
        .refs(rollout)
        .map((r) => `${r.type.kind}/${r.namespace}/${r.name}`),
      ['Ingress/ns/a', 'Ingress/ns/web-a-canary', 'Ingress/ns/b', 'Ingress/ns/web-b-canary'],
    );
  });

  it('cuts a name past 253 characters as Argo does, keeping the -canary suffix', () => {
    const name = canaryIngressName('web', 'x'.repeat(300));
    assert.equal(name.length, 253);
    assert.equal(name, `web-${'x'.repeat(253 - 4 - 7)}-canary`);
  });

  it("copies the stable Service's rules with those backends on the canary, TLS and class", () => {
    const [body] = nginxRouter(routing).applies(ctx(world(stableIngress())), S(30));
    assert.deepEqual(spec(body), {
      ingressClassName: 'nginx',
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
        {
          host: 'api.example.com',
          http: { paths: [{ path: '/v1', pathType: 'Exact', backend: backend('web-canary') }] },
        },
      ],
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
    });
  });

  it('is owned by the Rollout, with the canary annotations and no GitOps tracking key or label', () => {
    const [body] = nginxRouter(routing).applies(ctx(world(stableIngress())), S(30));
    assert.deepEqual(body?.metadata, {
      name: 'web-web-canary',
      namespace: NS,
      annotations: {
        'kubernetes.io/ingress.class': 'nginx',
        'nginx.ingress.kubernetes.io/canary': 'true',
        'nginx.ingress.kubernetes.io/canary-weight': '30',
        [MANAGED_BY_ANNOTATION]: 'web',
      },
      ownerReferences: [
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          name: 'web',
          uid: 'uid-web',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
  });

  for (const [canary, max] of [
    [0, 100],
    [30, 100],
    [100, 100],
    [300, 1000],
  ] as const) {
    it(`writes canary-weight ${canary}${max === 100 ? '' : ` and canary-weight-total ${max}`}`, () => {
      const [body] = nginxRouter(routing).applies(ctx(world(stableIngress()), max), S(canary));
      const notes = body?.metadata?.annotations ?? {};
      assert.equal(notes['nginx.ingress.kubernetes.io/canary-weight'], String(canary));
      assert.equal(
        notes['nginx.ingress.kubernetes.io/canary-weight-total'],
        max === 100 ? undefined : String(max),
      );
    });
  }

  it('prefixes additionalIngressAnnotations, takes canaryIngressAnnotations as given, never over ours', () => {
    const r: NginxRouting = {
      stableIngress: 'web',
      annotationPrefix: 'custom.nginx.org',
      additionalIngressAnnotations: {
        'canary-by-header': 'X-Canary',
        'custom.nginx.org/keep': 'k',
      },
      canaryIngressAnnotations: { 'example.com/team': 'a', 'custom.nginx.org/canary-weight': '99' },
    };
    const [body] = nginxRouter(r).applies(ctx(world(stableIngress())), S(5));
    const { [MANAGED_BY_ANNOTATION]: _m, ...notes } = body?.metadata?.annotations ?? {};
    assert.deepEqual(notes, {
      'kubernetes.io/ingress.class': 'nginx',
      'custom.nginx.org/canary-by-header': 'X-Canary',
      'custom.nginx.org/keep': 'k',
      'example.com/team': 'a',
      'custom.nginx.org/canary': 'true',
      'custom.nginx.org/canary-weight': '5',
    });
  });
});

describe('nginx router: observe', () => {
  it('reads no state and no problem while the canary Ingress does not exist (we create it)', () => {
    assert.deepEqual(nginxRouter(routing).observe(ctx(world(stableIngress()))), { problems: [] });
  });

  it('observe(apply(s)) is s at every weight, for one or several stable Ingresses', () => {
    for (const r of [routing, { stableIngresses: ['web', 'web2'] }]) {
      for (const max of [100, 1000]) {
        for (let weight = 0; weight <= max; weight += max / 10) {
          const w = world(stableIngress(), stableIngress('web2'));
          apply(w, nginxRouter(r).applies(ctx(w, max), S(weight)));
          assert.deepEqual(nginxRouter(r).observe(ctx(w, max)), { state: S(weight), problems: [] });
        }
      }
    }
  });

  it('reads no state once the stable Ingress changed in Git, and regenerates from it', () => {
    const w = world(stableIngress());
    apply(w, nginxRouter(routing).applies(ctx(w), S(30)));
    w.objects.set(
      keyOf('web'),
      stableIngress('web', { tls: undefined, ingressClassName: 'nginx-internal' }),
    );
    assert.deepEqual(nginxRouter(routing).observe(ctx(w)), { problems: [] });
    apply(w, nginxRouter(routing).applies(ctx(w), S(30)));
    assert.equal(spec(canaryOf(w)).ingressClassName, 'nginx-internal');
    assert.deepEqual(nginxRouter(routing).observe(ctx(w)), { state: S(30), problems: [] });
  });

  it('reads no state while an annotation of ours is off or one we no longer set is left', () => {
    const w = world(stableIngress());
    apply(
      w,
      nginxRouter({
        ...routing,
        additionalIngressAnnotations: { 'canary-by-header': 'X' },
      }).applies(ctx(w), S(30)),
    );
    assert.deepEqual(
      nginxRouter(routing).observe(ctx(w)),
      { problems: [] },
      'canary-by-header left',
    );
    const live = canaryOf(w) as KubeObject;
    const notes = {
      ...live.metadata?.annotations,
      'nginx.ingress.kubernetes.io/canary-weight': 'thirty',
    };
    w.objects.set(keyOf(live.metadata?.name ?? ''), {
      ...live,
      metadata: { ...live.metadata, annotations: notes },
    });
    assert.deepEqual(nginxRouter(routing).observe(ctx(w)), { problems: [] }, 'weight unreadable');
  });

  it('reads no state while two canary Ingresses disagree', () => {
    const r: NginxRouting = { stableIngresses: ['web', 'web2'] };
    const w = world(stableIngress(), stableIngress('web2'));
    apply(w, nginxRouter(r).applies(ctx(w), S(30)));
    apply(w, nginxRouter({ stableIngress: 'web2' }).applies(ctx(w), S(40)));
    assert.deepEqual(nginxRouter(r).observe(ctx(w)), { problems: [] });
  });

  const cases: [string, KubeObject[], string[]][] = [
    ['a missing stable Ingress', [], ['Ingress "ns/web" not found']],
    [
      'a stable Ingress without the stable Service',
      [
        stableIngress('web', {
          rules: [
            {
              host: 'a',
              http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('other') }] },
            },
          ],
        }),
      ],
      ['Ingress "ns/web" has no backend for Service "web-stable"'],
    ],
    [
      'a canary Ingress that is not ours',
      [
        stableIngress(),
        {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'web-web-canary', namespace: NS },
        },
      ],
      ['Ingress "ns/web-web-canary" exists and is not owned by Rollout "web"'],
    ],
  ];
  for (const [what, objects, problems] of cases) {
    it(`names ${what}`, () => {
      assert.deepEqual(nginxRouter(routing).observe(ctx(world(...objects))), { problems });
    });
  }

  it('writes nothing for a stable Ingress it cannot copy', () => {
    assert.deepEqual(nginxRouter(routing).applies(ctx(world()), S(10)), []);
  });
});
