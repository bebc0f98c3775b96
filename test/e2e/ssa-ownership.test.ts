// What the real API server does with server-side apply on the objects the controller shares with
// Git (design.md, "GitOps rules" 1): a Service's selector and the traffic routers' weights
// (Gateway API HTTPRoute, Istio VirtualService and DestinationRule, SMI TrafficSplit), with the
// routers' own CRDs from their module zips. Git's copy is applied as the GitOps tools apply it
// (server-side apply with force, under argocd-controller or kustomize-controller), our change as
// the controller does, under stepwise-controller. No controller runs: every write is the test's.
//
// Every list that carries a weight is atomic (HTTPRoute rules and backendRefs, VirtualService
// http, DestinationRule subsets, TrafficSplit backends), and so is a Service's selector: whoever
// applies one owns all of it, and the server compares an apply with the live object before
// defaulting, so a list sent without the fields the CRD defaults (backendRefs' group and kind)
// counts as a change even when it is what Git has.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FIELD_MANAGER,
  MANAGED_BY_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
} from '../../src/api/index.ts';
import { installRouterCrds } from '../cluster/router-crds.ts';
import { testNamespace } from '../cluster/testing.ts';
import { http } from './support/rollouts.ts';

const ARGO = 'argocd-controller';
const FLUX = 'kustomize-controller';
const US = FIELD_MANAGER;

type Fields = { [key: string]: Fields };

interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: string;
  readonly subresource?: string;
  readonly time?: string;
  readonly fieldsV1?: Fields;
}

interface Live<S> {
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion: string;
    readonly generation?: number;
    readonly annotations?: Record<string, string>;
    readonly managedFields?: ManagedFieldsEntry[];
  };
  readonly spec: S;
}

interface ApiStatus {
  readonly code: number;
  readonly reason?: string;
  readonly message: string;
  readonly details?: { causes?: { reason?: string; message?: string; field?: string }[] };
}

await installRouterCrds();
const ns = await testNamespace('ssa');

// --- helpers ------------------------------------------------------------------------------

const paths = {
  service: (name: string) => `/api/v1/namespaces/${ns}/services/${name}`,
  httpRoute: (name: string) =>
    `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes/${name}`,
  virtualService: (name: string) =>
    `/apis/networking.istio.io/v1/namespaces/${ns}/virtualservices/${name}`,
  destinationRule: (name: string) =>
    `/apis/networking.istio.io/v1/namespaces/${ns}/destinationrules/${name}`,
  trafficSplit: (name: string) =>
    `/apis/split.smi-spec.io/v1alpha4/namespaces/${ns}/trafficsplits/${name}`,
};

/** A server-side apply; the answer as it came. */
function apply(path: string, body: object, manager: string, force: boolean) {
  const query = `fieldManager=${manager}${force ? '&force=true' : ''}`;
  return http.request('PATCH', `${path}?${query}`, body, 'application/apply-patch+yaml');
}

/** A server-side apply that must succeed; the live object after it. */
async function applied<S>(
  path: string,
  body: object,
  manager: string,
  force: boolean,
): Promise<Live<S>> {
  const res = await apply(path, body, manager, force);
  assert.ok(res.status === 200 || res.status === 201, `${manager} apply: ${res.body}`);
  return JSON.parse(res.body) as Live<S>;
}

/** The repeat wrote nothing. Once (in a full run) the object had been written twice in between
 *  by someone: the message shows who, by the managers' entries before and after. */
function assertNoOp<S>(before: Live<S>, after: Live<S>): void {
  const entries = (o: Live<S>) =>
    (o.metadata.managedFields ?? []).map((e) => `${e.manager}/${e.operation}@${e.time}`);
  assert.equal(
    after.metadata.resourceVersion,
    before.metadata.resourceVersion,
    `a no-op; managers before ${entries(before).join(', ')}; after ${entries(after).join(', ')}`,
  );
}

/** A server-side apply without force that must be refused with 409; the server's Status. */
async function refused(path: string, body: object, manager: string): Promise<ApiStatus> {
  const res = await apply(path, body, manager, false);
  assert.equal(res.status, 409, `expected a conflict, got HTTP ${res.status}: ${res.body}`);
  const status = JSON.parse(res.body) as ApiStatus;
  assert.equal(status.reason, 'Conflict');
  return status;
}

/** The conflict's fields, from `details.causes` (reason FieldManagerConflict). */
function conflictFields(status: ApiStatus): { manager: string; field: string }[] {
  return (status.details?.causes ?? []).map((c) => {
    assert.equal(c.reason, 'FieldManagerConflict');
    return { manager: /"([^"]+)"/.exec(c.message ?? '')?.[1] ?? '', field: c.field ?? '' };
  });
}

async function get<S>(path: string): Promise<Live<S>> {
  return http.json<Live<S>>('GET', path);
}

/** What `manager` owns through apply (not through updates, not on a subresource). */
function appliedBy(obj: Live<unknown>, manager: string): Fields | undefined {
  return obj.metadata.managedFields?.find(
    (m) => m.manager === manager && m.operation === 'Apply' && !m.subresource,
  )?.fieldsV1;
}

/** The fieldsV1 node at `path` that `manager` owns, or undefined. `{}` is a leaf: a scalar, or
 *  an atomic list/map owned as a whole. */
function owned(obj: Live<unknown>, manager: string, ...path: string[]): Fields | undefined {
  let node = appliedBy(obj, manager);
  for (const key of path) node = node?.[key];
  return node;
}

/** Every manager that owns `path` through apply. */
function owners(obj: Live<unknown>, ...path: string[]): string[] {
  return (obj.metadata.managedFields ?? [])
    .filter((m) => m.operation === 'Apply' && !m.subresource)
    .filter((m) => owned(obj, m.manager, ...path) !== undefined)
    .map((m) => m.manager)
    .sort();
}

const conflictMessage = (manager: string, field: string) =>
  `Apply failed with 1 conflict: conflict with "${manager}": ${field}`;

// --- objects --------------------------------------------------------------------------------

interface Route {
  rules: {
    matches?: object[];
    filters?: object[];
    backendRefs: { name: string; port: number; weight: number }[];
  }[];
}

const GIT_MATCHES = [{ path: { type: 'PathPrefix', value: '/api' } }];
const GIT_FILTERS = [
  {
    type: 'RequestHeaderModifier',
    requestHeaderModifier: { set: [{ name: 'x-env', value: 'prod' }] },
  },
];

/** Refs as people write them; `defaulted` adds what the CRD defaults (group '', kind Service),
 *  which is how they read back from the API server. */
const backendRefs = (stable: number, canary: number, defaulted = false) =>
  [
    { name: 'web-stable', port: 80, weight: stable },
    { name: 'web-canary', port: 80, weight: canary },
  ].map((ref) => (defaulted ? { group: '', kind: 'Service', ...ref } : ref));

/** Git's HTTPRoute: one rule with a match and a filter, weights as given (Git: 100/0). */
const gitRoute = (
  name: string,
  stable = 100,
  canary = 0,
  annotations?: Record<string, string>,
  defaulted = false,
) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: {
    parentRefs: [{ name: 'gateway' }],
    rules: [
      {
        matches: GIT_MATCHES,
        filters: GIT_FILTERS,
        backendRefs: backendRefs(stable, canary, defaulted),
      },
    ],
  },
});

/** Our change: the whole rules list as Git has it, with our weights. */
const ourRoute = (name: string, stable: number, canary: number, defaulted = false) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name },
  spec: {
    rules: [
      {
        matches: GIT_MATCHES,
        filters: GIT_FILTERS,
        backendRefs: backendRefs(stable, canary, defaulted),
      },
    ],
  },
});

const weights = (route: Live<Route>) =>
  route.spec.rules.map((r) => r.backendRefs.map((b) => b.weight));

// --- a. Service ------------------------------------------------------------------------------

describe('a. Service spec.selector', () => {
  const git = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
  });
  const ours = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'abc' } },
  });

  it('is an atomic map: adding the pod-template-hash key under stepwise-controller conflicts with argocd-controller on .spec.selector', async () => {
    const path = paths.service('svc-a1');
    const created = await applied(path, git('svc-a1'), ARGO, true);
    assert.deepEqual(owned(created, ARGO, 'f:spec', 'f:selector'), {}, 'owned as a whole');
    const status = await refused(path, ours('svc-a1'), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.selector'));
    assert.deepEqual(conflictFields(status), [{ manager: ARGO, field: '.spec.selector' }]);
    const live = await get<{ selector: object }>(path);
    assert.deepEqual(live.spec.selector, { app: 'web' }, 'a refused apply changes nothing');
  });

  it('with force stepwise-controller takes .spec.selector whole; a forced Git apply resets it to Git’s selector', async () => {
    const path = paths.service('svc-a2');
    await applied(path, git('svc-a2'), ARGO, true);
    const ourLive = await applied<{ selector: object }>(path, ours('svc-a2'), US, true);
    assert.deepEqual(ourLive.spec.selector, { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'abc' });
    assert.deepEqual(owners(ourLive, 'f:spec', 'f:selector'), [US]);
    assert.deepEqual(owned(ourLive, US, 'f:spec', 'f:selector'), {});
    assert.ok(owned(ourLive, ARGO, 'f:spec', 'f:ports'), 'argocd-controller keeps the ports');

    const reset = await applied<{ selector: object }>(path, git('svc-a2'), ARGO, true);
    assert.deepEqual(reset.spec.selector, { app: 'web' });
    assert.deepEqual(owners(reset, 'f:spec', 'f:selector'), [ARGO]);
    assert.equal(appliedBy(reset, US), undefined, 'stepwise-controller owns nothing any more');
  });
});

// --- b. HTTPRoute ------------------------------------------------------------------------------

describe('b. Gateway API HTTPRoute (gateway.networking.k8s.io/v1) weights', () => {
  it('the served v1 schema makes both spec.rules and spec.rules[].backendRefs x-kubernetes-list-type: atomic', async () => {
    const crd = await http.json<{
      spec: { versions: { name: string; schema: { openAPIV3Schema: SchemaNode } }[] };
    }>(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io',
    );
    const v1 = crd.spec.versions.find((v) => v.name === 'v1');
    const rules = v1?.schema.openAPIV3Schema.properties?.spec?.properties?.rules;
    assert.equal(rules?.['x-kubernetes-list-type'], 'atomic');
    assert.equal(rules?.items?.properties?.backendRefs?.['x-kubernetes-list-type'], 'atomic');
  });

  it('spec.rules is atomic: a weight change under stepwise-controller conflicts with argocd-controller on .spec.rules', async () => {
    const path = paths.httpRoute('route-b1');
    const created = await applied<Route>(path, gitRoute('route-b1'), ARGO, true);
    assert.deepEqual(owned(created, ARGO, 'f:spec', 'f:rules'), {}, 'rules owned as a whole');
    const status = await refused(path, ourRoute('route-b1', 70, 30), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.rules'));
    assert.deepEqual(conflictFields(status), [{ manager: ARGO, field: '.spec.rules' }]);
    assert.deepEqual(weights(await get<Route>(path)), [[100, 0]]);
  });

  it('with force stepwise-controller owns f:spec.f:rules as a whole (no per-weight ownership); argocd-controller keeps parentRefs', async () => {
    const path = paths.httpRoute('route-b2');
    const created = await applied<Route>(path, gitRoute('route-b2'), ARGO, true);
    const live = await applied<Route>(path, ourRoute('route-b2', 70, 30), US, true);
    assert.deepEqual(weights(live), [[70, 30]]);
    assert.equal(live.metadata.generation, (created.metadata.generation ?? 0) + 1);
    assert.deepEqual(owned(live, US, 'f:spec'), { 'f:rules': {} });
    assert.deepEqual(owners(live, 'f:spec', 'f:rules'), [US]);
    assert.deepEqual(owners(live, 'f:spec', 'f:parentRefs'), [ARGO]);
  });

  it('a forced Git apply by argocd-controller (Git 100/0) resets our weights and takes .spec.rules back', async () => {
    const path = paths.httpRoute('route-b3');
    await applied(path, gitRoute('route-b3'), ARGO, true);
    await applied(path, ourRoute('route-b3', 70, 30), US, true);
    const reset = await applied<Route>(path, gitRoute('route-b3'), ARGO, true);
    assert.deepEqual(weights(reset), [[100, 0]]);
    assert.deepEqual(owners(reset, 'f:spec', 'f:rules'), [ARGO]);
    assert.equal(appliedBy(reset, US), undefined);
  });

  it('the least stepwise-controller can apply is the whole rules list: rules with backendRefs only lose Git’s matches and filters', async () => {
    const path = paths.httpRoute('route-b4');
    await applied(path, gitRoute('route-b4'), ARGO, true);
    const bare = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'route-b4' },
      spec: { rules: [{ backendRefs: backendRefs(70, 30) }] },
    };
    const live = await applied<Route>(path, bare, US, true);
    assert.deepEqual(weights(live), [[70, 30]]);
    const rule = live.spec.rules[0];
    // The CRD's default for a rule without matches: every path.
    assert.deepEqual(rule?.matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
    assert.equal(rule?.filters, undefined, 'Git’s header filter is gone');
  });

  // Measured on this API server: ~96 % of repeated applies carrying `annotations: {}` write a
  // new resourceVersion, ~4 % do not. Five in a row all being no-ops would be one in 10^7.
  it('an apply is a no-op (same resourceVersion) when nothing changes, but one carrying an empty metadata.annotations map is not: the empty map is never stored, and repeating it writes again', async () => {
    const path = paths.httpRoute('route-b8');
    const first = await applied(path, gitRoute('route-b8'), ARGO, true);
    const repeat = await applied(path, gitRoute('route-b8'), ARGO, true);
    assert.equal(repeat.metadata.resourceVersion, first.metadata.resourceVersion);
    const empty = await applied(path, gitRoute('route-b8', 100, 0, {}), ARGO, true);
    assert.equal(empty.metadata.annotations, undefined);
    const versions = new Set([empty.metadata.resourceVersion]);
    for (let i = 0; i < 5; i++) {
      const again = await applied(path, gitRoute('route-b8', 100, 0, {}), ARGO, true);
      assert.equal(again.metadata.annotations, undefined);
      assert.equal(again.metadata.generation, first.metadata.generation);
      versions.add(again.metadata.resourceVersion);
    }
    assert.ok(versions.size > 1, 'five repeats of the empty map, and not one write');
  });

  it('defaults count as changes inside an atomic list: re-applying Git’s very rules without the defaulted group/kind conflicts with argocd-controller on .spec.rules; with them spelled out the apply is equal and ownership is shared', async () => {
    const path = paths.httpRoute('route-b5');
    const created = await applied<Route>(path, gitRoute('route-b5'), ARGO, true);
    assert.deepEqual(created.spec.rules[0]?.backendRefs, backendRefs(100, 0, true), 'defaulted');
    const status = await refused(path, ourRoute('route-b5', 100, 0), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.rules'));
    const shared = await applied<Route>(path, ourRoute('route-b5', 100, 0, true), US, false);
    assert.equal(shared.metadata.generation, created.metadata.generation);
    assert.deepEqual(owners(shared, 'f:spec', 'f:rules'), [ARGO, US]);
  });

  it('Argo CD RespectIgnoreDifferences with Git’s short refs: a forced apply carrying the live weights keeps 70/30 and the generation, bumps resourceVersion, and leaves argocd-controller the only owner of .spec.rules (stepwise-controller loses it)', async () => {
    const path = paths.httpRoute('route-b6');
    await applied(path, gitRoute('route-b6'), ARGO, true);
    const ours = await applied<Route>(path, ourRoute('route-b6', 70, 30), US, true);
    const synced = await applied<Route>(path, gitRoute('route-b6', 70, 30), ARGO, true);
    assert.deepEqual(weights(synced), [[70, 30]]);
    assert.equal(synced.metadata.generation, ours.metadata.generation, 'spec unchanged');
    assert.notEqual(synced.metadata.resourceVersion, ours.metadata.resourceVersion);
    assert.deepEqual(owners(synced, 'f:spec', 'f:rules'), [ARGO]);
    assert.equal(appliedBy(synced, US), undefined, 'stepwise-controller owns nothing any more');

    const again = await applied<Route>(path, gitRoute('route-b6', 70, 30), ARGO, true);
    assertNoOp(synced, again);

    // Our next step conflicts unless forced.
    const status = await refused(path, ourRoute('route-b6', 50, 50), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.rules'));
    const next = await applied<Route>(path, ourRoute('route-b6', 50, 50), US, true);
    assert.deepEqual(weights(next), [[50, 50]]);
    assert.deepEqual(owners(next, 'f:spec', 'f:rules'), [US]);
  });

  it('Argo CD RespectIgnoreDifferences with the live (defaulted) rules: the forced apply is equal, keeps 70/30 and the generation, and argocd-controller and stepwise-controller co-own .spec.rules; a repeat is a no-op', async () => {
    const path = paths.httpRoute('route-b7');
    await applied(path, gitRoute('route-b7'), ARGO, true);
    const ours = await applied<Route>(path, ourRoute('route-b7', 70, 30, true), US, true);
    const synced = await applied<Route>(
      path,
      gitRoute('route-b7', 70, 30, undefined, true),
      ARGO,
      true,
    );
    assert.deepEqual(weights(synced), [[70, 30]]);
    assert.equal(synced.metadata.generation, ours.metadata.generation, 'spec unchanged');
    assert.notEqual(
      synced.metadata.resourceVersion,
      ours.metadata.resourceVersion,
      'managedFields changed: argocd-controller owns .spec.rules again',
    );
    assert.deepEqual(owners(synced, 'f:spec', 'f:rules'), [ARGO, US]);

    const again = await applied<Route>(
      path,
      gitRoute('route-b7', 70, 30, undefined, true),
      ARGO,
      true,
    );
    assertNoOp(synced, again);

    // Shared ownership: our next step conflicts with the co-owner unless forced.
    const status = await refused(path, ourRoute('route-b7', 50, 50, true), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.rules'));
    const next = await applied<Route>(path, ourRoute('route-b7', 50, 50, true), US, true);
    assert.deepEqual(weights(next), [[50, 50]]);
    assert.deepEqual(owners(next, 'f:spec', 'f:rules'), [US]);
  });
});

interface SchemaNode {
  readonly properties?: Record<string, SchemaNode>;
  readonly items?: SchemaNode;
  readonly 'x-kubernetes-list-type'?: string;
}

// --- c. VirtualService ------------------------------------------------------------------------

describe('c. Istio VirtualService (networking.istio.io/v1) route weights', () => {
  interface VirtualServiceSpec {
    http: { name: string; route: { destination: { host: string }; weight: number }[] }[];
  }
  const vs = (name: string, stable: number, canary: number, hosts = true) => ({
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: { name },
    spec: {
      ...(hosts ? { hosts: ['web'] } : {}),
      http: [
        {
          name: 'primary',
          route: [
            { destination: { host: 'web-stable' }, weight: stable },
            { destination: { host: 'web-canary' }, weight: canary },
          ],
        },
      ],
    },
  });
  const vsWeights = (o: Live<VirtualServiceSpec>) =>
    o.spec.http.map((h) => h.route.map((r) => r.weight));

  it('spec.http is atomic (no list type in the schema): two managers cannot own different route weights; a change conflicts on .spec.http', async () => {
    const path = paths.virtualService('vs-c1');
    const created = await applied(path, vs('vs-c1', 100, 0), ARGO, true);
    assert.deepEqual(owned(created, ARGO, 'f:spec', 'f:http'), {}, 'http owned as a whole');
    const status = await refused(path, vs('vs-c1', 70, 30, false), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.http'));
    assert.deepEqual(conflictFields(status), [{ manager: ARGO, field: '.spec.http' }]);
  });

  it('with force stepwise-controller owns .spec.http whole; a forced Git apply resets the weights', async () => {
    const path = paths.virtualService('vs-c2');
    await applied(path, vs('vs-c2', 100, 0), ARGO, true);
    const live = await applied<VirtualServiceSpec>(path, vs('vs-c2', 70, 30, false), US, true);
    assert.deepEqual(vsWeights(live), [[70, 30]]);
    assert.deepEqual(owned(live, US, 'f:spec'), { 'f:http': {} });
    assert.deepEqual(owners(live, 'f:spec', 'f:hosts'), [ARGO]);
    const reset = await applied<VirtualServiceSpec>(path, vs('vs-c2', 100, 0), ARGO, true);
    assert.deepEqual(vsWeights(reset), [[100, 0]]);
    assert.deepEqual(owners(reset, 'f:spec', 'f:http'), [ARGO]);
  });
});

// --- d. DestinationRule -------------------------------------------------------------------------

describe('d. Istio DestinationRule (networking.istio.io/v1) subset labels', () => {
  interface DestinationRuleSpec {
    subsets: { name: string; labels: Record<string, string> }[];
  }
  const dr = (name: string, hashes?: [string, string]) => ({
    apiVersion: 'networking.istio.io/v1',
    kind: 'DestinationRule',
    metadata: { name },
    spec: {
      ...(hashes ? {} : { host: 'web' }),
      subsets: ['stable', 'canary'].map((subset, i) => ({
        name: subset,
        labels: { app: 'web', ...(hashes ? { [POD_TEMPLATE_HASH_LABEL]: hashes[i] } : {}) },
      })),
    },
  });

  it('spec.subsets is atomic: adding rollouts-pod-template-hash to subset labels conflicts with argocd-controller on .spec.subsets', async () => {
    const path = paths.destinationRule('dr-d1');
    const created = await applied(path, dr('dr-d1'), ARGO, true);
    assert.deepEqual(owned(created, ARGO, 'f:spec', 'f:subsets'), {});
    const status = await refused(path, dr('dr-d1', ['s1', 'c1']), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.subsets'));
    assert.deepEqual(conflictFields(status), [{ manager: ARGO, field: '.spec.subsets' }]);
  });

  it('with force stepwise-controller owns .spec.subsets whole; a forced Git apply removes the hash labels', async () => {
    const path = paths.destinationRule('dr-d2');
    await applied(path, dr('dr-d2'), ARGO, true);
    const live = await applied<DestinationRuleSpec>(path, dr('dr-d2', ['s1', 'c1']), US, true);
    assert.deepEqual(
      live.spec.subsets.map((s) => s.labels[POD_TEMPLATE_HASH_LABEL]),
      ['s1', 'c1'],
    );
    assert.deepEqual(owned(live, US, 'f:spec'), { 'f:subsets': {} });
    const reset = await applied<DestinationRuleSpec>(path, dr('dr-d2'), ARGO, true);
    assert.deepEqual(
      reset.spec.subsets.map((s) => s.labels),
      [{ app: 'web' }, { app: 'web' }],
    );
    assert.deepEqual(owners(reset, 'f:spec', 'f:subsets'), [ARGO]);
  });
});

// --- e. TrafficSplit ----------------------------------------------------------------------------

describe('e. SMI TrafficSplit (split.smi-spec.io/v1alpha4) backend weights', () => {
  interface TrafficSplitSpec {
    backends: { service: string; weight: number }[];
  }
  const ts = (name: string, stable: number, canary: number) => ({
    apiVersion: 'split.smi-spec.io/v1alpha4',
    kind: 'TrafficSplit',
    metadata: { name },
    spec: {
      service: 'web',
      backends: [
        { service: 'web-stable', weight: stable },
        { service: 'web-canary', weight: canary },
      ],
    },
  });
  const tsWeights = (o: Live<TrafficSplitSpec>) => o.spec.backends.map((b) => b.weight);

  it('spec.backends is atomic: a weight change conflicts with argocd-controller on .spec.backends', async () => {
    const path = paths.trafficSplit('ts-e1');
    const created = await applied(path, ts('ts-e1', 100, 0), ARGO, true);
    assert.deepEqual(owned(created, ARGO, 'f:spec', 'f:backends'), {});
    const status = await refused(path, ts('ts-e1', 70, 30), US);
    assert.equal(status.message, conflictMessage(ARGO, '.spec.backends'));
    assert.deepEqual(conflictFields(status), [{ manager: ARGO, field: '.spec.backends' }]);
  });

  it('with force stepwise-controller owns .spec.backends whole (and shares the equal .spec.service); a forced Git apply resets the weights', async () => {
    const path = paths.trafficSplit('ts-e2');
    await applied(path, ts('ts-e2', 100, 0), ARGO, true);
    const live = await applied<TrafficSplitSpec>(path, ts('ts-e2', 70, 30), US, true);
    assert.deepEqual(tsWeights(live), [70, 30]);
    assert.deepEqual(owners(live, 'f:spec', 'f:backends'), [US]);
    assert.deepEqual(owners(live, 'f:spec', 'f:service'), [ARGO, US]);
    const reset = await applied<TrafficSplitSpec>(path, ts('ts-e2', 100, 0), ARGO, true);
    assert.deepEqual(tsWeights(reset), [100, 0]);
    assert.deepEqual(owners(reset, 'f:spec', 'f:backends'), [ARGO]);
  });
});

// --- f. managed-by annotation ---------------------------------------------------------------------

describe('f. the stepwise.dev/managed-by annotation on an object argocd-controller manages', () => {
  const TRACKING = 'argocd.argoproj.io/tracking-id';
  const git = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, annotations: { [TRACKING]: `app:/Service:${ns}/${name}` } },
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
  });
  const annotation = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, annotations: { [MANAGED_BY_ANNOTATION]: 'web' } },
  });

  it('metadata.annotations is a granular map: stepwise-controller adds its key without force and owns only that key; a forced Git apply without it keeps it', async () => {
    const path = paths.service('svc-f1');
    await applied(path, git('svc-f1'), ARGO, true);
    const marked = await applied(path, annotation('svc-f1'), US, false);
    assert.equal(marked.metadata.annotations?.[MANAGED_BY_ANNOTATION], 'web');
    assert.deepEqual(owned(marked, US, 'f:metadata'), {
      'f:annotations': { [`f:${MANAGED_BY_ANNOTATION}`]: {} },
    });
    assert.deepEqual(owners(marked, 'f:metadata', 'f:annotations', `f:${TRACKING}`), [ARGO]);

    const synced = await applied(path, git('svc-f1'), ARGO, true);
    assert.equal(synced.metadata.annotations?.[MANAGED_BY_ANNOTATION], 'web', 'kept');
    assert.deepEqual(owners(synced, 'f:metadata', 'f:annotations', `f:${MANAGED_BY_ANNOTATION}`), [
      US,
    ]);
  });

  it('an apply by stepwise-controller that leaves the annotation out removes it: every apply of ours must carry it', async () => {
    const path = paths.service('svc-f2');
    await applied(path, git('svc-f2'), ARGO, true);
    await applied(path, annotation('svc-f2'), US, false);
    const selectorOnly = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc-f2' },
      spec: { selector: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: 'abc' } },
    };
    const live = await applied(path, selectorOnly, US, true);
    assert.equal(live.metadata.annotations?.[MANAGED_BY_ANNOTATION], undefined);
    assert.ok(live.metadata.annotations?.[TRACKING], 'Git’s annotation stays');
  });
});

// --- g. Flux ------------------------------------------------------------------------------------

describe('g. Flux kustomize-controller on the HTTPRoute', () => {
  it('a forced kustomize-controller apply of Git’s copy (100/0) resets our 70/30 and takes .spec.rules, ssa: Merge annotation or not', async () => {
    const path = paths.httpRoute('route-g1');
    const annotations = { 'kustomize.toolkit.fluxcd.io/ssa': 'Merge' };
    await applied(path, gitRoute('route-g1', 100, 0, annotations), FLUX, true);
    const status = await refused(path, ourRoute('route-g1', 70, 30), US);
    assert.equal(status.message, conflictMessage(FLUX, '.spec.rules'));
    const ours = await applied<Route>(path, ourRoute('route-g1', 70, 30), US, true);
    assert.deepEqual(weights(ours), [[70, 30]]);

    const reset = await applied<Route>(path, gitRoute('route-g1', 100, 0, annotations), FLUX, true);
    assert.deepEqual(weights(reset), [[100, 0]]);
    assert.deepEqual(owners(reset, 'f:spec', 'f:rules'), [FLUX]);
    assert.equal(appliedBy(reset, US), undefined);
  });
});
