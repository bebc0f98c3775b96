// The controller's RBAC grants what its extensions use: every kind a registered traffic router
// watches (get, list, watch, and the verbs it writes with) and every kind a metric provider uses
// (Jobs for the job provider), in deploy/rbac/rbac.yaml and in the Helm chart's copy that its
// rbac.yaml template renders. A router added to the registry without its RBAC fails here, not
// with "forbidden" in a cluster.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { CHART_DIR } from '../helm/chart-copies.ts';
import { providerKinds } from '../../src/analysis/providers/index.ts';
import type { KindAccess } from '../../src/kube/resources.ts';
import { identityPolicyKinds } from '../../src/controller/identity-policy.ts';
import { routerKinds } from '../../src/traffic/index.ts';
import { workloadKinds } from '../../src/controller/workload-wiring.ts';
import { REPO_ROOT } from '../cluster/state.ts';

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
}
interface RbacDocument {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly rules?: readonly Rule[];
}

const CONTROLLER_ROLE = 'stepwise-controller';
const SOURCE = join(REPO_ROOT, 'deploy', 'rbac', 'rbac.yaml');
const CHART_COPY = join(CHART_DIR, 'files', 'rbac.yaml');
const CHART_TEMPLATE = join(CHART_DIR, 'templates', 'rbac.yaml');

const rulesOf = (path: string): readonly Rule[] => {
  const docs = loadAll(readFileSync(path, 'utf8')) as RbacDocument[];
  const role = docs.find((d) => d?.kind === 'ClusterRole' && d.metadata?.name === CONTROLLER_ROLE);
  assert.ok(role, `${path}: no ClusterRole ${CONTROLLER_ROLE}`);
  return role.rules ?? [];
};

/** Each kind's verbs the rules do not grant, as `verb resource.group` lines. */
function missingGrants(rules: readonly Rule[], kinds: readonly KindAccess[]): string[] {
  return kinds.flatMap(({ type, verbs }) => {
    const granted = new Set(
      rules
        .filter((r) => r.apiGroups?.includes(type.group) && r.resources?.includes(type.plural))
        .flatMap((r) => r.verbs ?? []),
    );
    const resource = type.group ? `${type.plural}.${type.group}` : type.plural;
    return granted.has('*')
      ? []
      : verbs.filter((v) => !granted.has(v)).map((v) => `${v} ${resource}`);
  });
}

const EXTENSIONS: readonly [string, () => readonly KindAccess[]][] = [
  ['traffic routers', routerKinds],
  ['metric providers', providerKinds],
  ['identity policy check', identityPolicyKinds],
  ['workloadRef informers and scale-down', workloadKinds],
];

describe('RBAC for the registered routers and providers', () => {
  for (const [where, path] of [
    ['deploy/rbac/rbac.yaml', SOURCE],
    ["the chart's files/rbac.yaml", CHART_COPY],
  ] as const) {
    for (const [what, kinds] of EXTENSIONS) {
      it(`${where} grants every verb the ${what} use`, () => {
        assert.deepEqual(missingGrants(rulesOf(path), kinds()), []);
      });
    }
  }

  it("the chart's controller ClusterRole is rendered from that copy", () => {
    assert.match(
      readFileSync(CHART_TEMPLATE, 'utf8'),
      /include "stepwise\.sourceRules" \(list \. "ClusterRole" "stepwise-controller"\)/,
    );
  });

  it('the registries declare what they use (Jobs for the job provider, each router its kinds)', () => {
    const names = (kinds: readonly KindAccess[]) => kinds.map((k) => k.type.plural);
    assert.ok(names(providerKinds()).includes('jobs'));
    assert.deepEqual([...new Set(names(routerKinds()))].sort(), [
      'destinationrules',
      'httproutes',
      'ingresses',
      'trafficsplits',
      'virtualservices',
    ]);
  });

  it('workloadRef: Deployments are patched (server-side apply), never updated or deleted', () => {
    for (const path of [SOURCE, CHART_COPY]) {
      const verbs = rulesOf(path)
        .filter((r) => r.apiGroups?.includes('apps') && r.resources?.includes('deployments'))
        .flatMap((r) => r.verbs ?? []);
      assert.deepEqual([...verbs].sort(), ['get', 'list', 'patch', 'watch'], path);
    }
  });

  it('a kind missing from the RBAC is reported, by verb and resource', () => {
    const rules = rulesOf(SOURCE);
    const withoutRoutes = rules.filter((r) => !r.resources?.includes('httproutes'));
    assert.equal(withoutRoutes.length, rules.length - 1, 'one rule removed');
    assert.deepEqual(missingGrants(withoutRoutes, routerKinds()), [
      'get httproutes.gateway.networking.k8s.io',
      'list httproutes.gateway.networking.k8s.io',
      'watch httproutes.gateway.networking.k8s.io',
      'patch httproutes.gateway.networking.k8s.io',
    ]);
    const noJobDelete = rules.map((r) =>
      r.resources?.includes('jobs') ? { ...r, verbs: r.verbs?.filter((v) => v !== 'delete') } : r,
    );
    assert.deepEqual(missingGrants(noJobDelete, providerKinds()), ['delete jobs.batch']);
  });
});
