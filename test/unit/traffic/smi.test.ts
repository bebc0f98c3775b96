// The SMI router: the TrafficSplit it generates (name, root Service, backends, owner, no GitOps
// tracking keys), what it reads back (nothing yet, ours, someone else's) and observe(apply(s)).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MANAGED_BY_ANNOTATION } from '../../../src/api/index.ts';
import type { Rollout, TrafficState } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { refKey } from '../../../src/traffic/router.ts';
import type { RouterContext } from '../../../src/traffic/router.ts';
import { smiRouter } from '../../../src/traffic/smi.ts';

const NS = 'ns';
const rollout: Rollout = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'Rollout',
  metadata: {
    name: 'web',
    namespace: NS,
    uid: 'uid-web',
    labels: { 'app.kubernetes.io/instance': 'web-app' },
    annotations: { 'argocd.argoproj.io/tracking-id': 'web-app:stepwise.dev/Rollout:ns/web' },
  },
  spec: { selector: {}, template: {}, strategy: { canary: {} } },
};

const keyOf = (name: string) => refKey({ type: Resources.TrafficSplit, namespace: NS, name });
function ctx(objects: KubeObject[] = [], maxWeight = 100): RouterContext {
  return {
    rollout,
    canaryService: 'web-canary',
    stableService: 'web-stable',
    maxWeight,
    canaryHash: 'c',
    stableHash: 's',
    objects: new Map(objects.map((o) => [keyOf(o.metadata?.name ?? ''), o])),
  };
}
const S = (canaryWeight: number): TrafficState => ({
  canaryWeight,
  headerRoutes: [],
  mirrorRoutes: [],
});
/** What the API server keeps of our apply: the body, with the server's fields added. */
const stored = (body: KubeObject): KubeObject => ({
  ...(JSON.parse(JSON.stringify(body)) as KubeObject),
  metadata: { ...body.metadata, uid: 'uid-ts', resourceVersion: '7' },
});
const spec = (o: KubeObject | undefined) => (o as { spec?: unknown } | undefined)?.spec;

describe('smi router', () => {
  it("reads the TrafficSplit named trafficSplitName, else the Rollout's name", () => {
    assert.deepEqual(smiRouter({}).refs(rollout), [
      { type: Resources.TrafficSplit, namespace: NS, name: 'web' },
    ]);
    assert.deepEqual(smiRouter({ trafficSplitName: 'split' }).refs(rollout)[0]?.name, 'split');
  });

  for (const [canary, max] of [
    [0, 100],
    [30, 100],
    [100, 100],
    [300, 1000],
  ] as const) {
    it(`splits the stable Service ${canary}/${max - canary} between canary and stable`, () => {
      const [body] = smiRouter({}).applies(ctx([], max), S(canary));
      assert.equal(body?.apiVersion, 'split.smi-spec.io/v1alpha4');
      assert.equal(body?.kind, 'TrafficSplit');
      assert.deepEqual(spec(body), {
        service: 'web-stable',
        backends: [
          { service: 'web-canary', weight: canary },
          { service: 'web-stable', weight: max - canary },
        ],
      });
    });
  }

  it('splits rootService when one is given', () => {
    const [body] = smiRouter({ rootService: 'web' }).applies(ctx(), S(10));
    assert.equal((spec(body) as { service: string }).service, 'web');
  });

  it('is owned by the Rollout and copies no GitOps tracking key', () => {
    const [body] = smiRouter({ trafficSplitName: 'split' }).applies(ctx(), S(10));
    assert.deepEqual(body?.metadata, {
      name: 'split',
      namespace: NS,
      annotations: { [MANAGED_BY_ANNOTATION]: 'web' },
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

  it('reads no state and no problem while the TrafficSplit does not exist (we create it)', () => {
    assert.deepEqual(smiRouter({}).observe(ctx()), { problems: [] });
  });

  it('names a TrafficSplit of that name that another owner controls, or no one', () => {
    const [body] = smiRouter({}).applies(ctx(), S(10));
    const theirs = (refs: KubeObject['metadata']) =>
      ({ ...stored(body as KubeObject), metadata: refs }) as KubeObject;
    const other = { apiVersion: 'x/v1', kind: 'Other', name: 'o', uid: 'uid-o', controller: true };
    for (const metadata of [
      { name: 'web', namespace: NS },
      { name: 'web', namespace: NS, ownerReferences: [other] },
      {
        name: 'web',
        namespace: NS,
        ownerReferences: [{ ...other, uid: 'uid-web', controller: false }],
      },
    ]) {
      assert.deepEqual(smiRouter({}).observe(ctx([theirs(metadata)])), {
        problems: ['TrafficSplit "ns/web" exists and is not owned by Rollout "web"'],
      });
    }
  });

  it('reads no state while the split is not the one we write (edited, or rootService changed)', () => {
    const [body] = smiRouter({}).applies(ctx(), S(30));
    const live = stored(body as KubeObject) as KubeObject & { spec: Record<string, unknown> };
    const edited = {
      ...live,
      spec: { ...live.spec, backends: [{ service: 'web-canary', weight: 30 }] },
    };
    assert.deepEqual(smiRouter({}).observe(ctx([edited])), { problems: [] });
    assert.deepEqual(smiRouter({ rootService: 'web' }).observe(ctx([live])), { problems: [] });
  });

  it('observe(apply(s)) is s at every weight, with maxTrafficWeight 100 and 1000', () => {
    for (const max of [100, 1000]) {
      for (let w = 0; w <= max; w += max / 20) {
        const [body] = smiRouter({ rootService: 'web' }).applies(ctx([], max), S(w));
        const c = ctx([stored(body as KubeObject)], max);
        assert.deepEqual(smiRouter({ rootService: 'web' }).observe(c), {
          state: S(w),
          problems: [],
        });
      }
    }
  });
});
