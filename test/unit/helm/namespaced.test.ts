// rbac.namespaced and the people's aggregated roles, rendered by the real helm: namespaced, the
// chart holds nothing cluster-scoped and runs the controller on its own namespace; the user
// roles let namespace editors write Rollouts and templates, and admins grant a namespaced
// controller its Role. That a namespace admin can install it is test/e2e/helm-namespaced.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadAll } from 'js-yaml';
import { parseConfig } from '../../../src/controller/config.ts';
import { CHART_DIR } from '../../helm/chart-copies.ts';
import { findDoc, render, renderChart } from '../../helm/render.ts';
import type { Doc } from '../../helm/render.ts';

interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}
type Role = Doc & { readonly rules: readonly Rule[] };
type Deployment = Doc & {
  spec: { template: { spec: { containers: { args: string[] }[] } } };
};

const CLUSTER_SCOPED = new Set([
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);
const sourceRoles = (
  loadAll(readFileSync(join(CHART_DIR, 'files', 'rbac.yaml'), 'utf8')) as Role[]
).filter((d) => d?.kind === 'ClusterRole');
const sourceRole = (name: string): Role => {
  const role = sourceRoles.find((r) => r.metadata.name === name);
  assert.ok(role, name);
  return role;
};
/** Every (group, resource, verb) a list of rules grants, as `verb resource.group`. */
const grants = (rules: readonly Rule[]): Set<string> =>
  new Set(
    rules.flatMap((r) =>
      r.apiGroups.flatMap((g) =>
        r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${res}.${g}`)),
      ),
    ),
  );

describe('rbac.namespaced', () => {
  const namespaced = { rbac: { namespaced: true } };

  it('renders nothing cluster-scoped, whatever the other values ask for', () => {
    const docs = render(
      {
        ...namespaced,
        crds: { install: true },
        breakGlass: { subjects: [{ kind: 'User', name: 'oncall' }] },
      },
      { namespace: 'team-a' },
    );
    assert.deepEqual(
      docs.filter((d) => CLUSTER_SCOPED.has(d.kind)).map((d) => `${d.kind}/${d.metadata.name}`),
      [],
    );
    for (const d of docs)
      assert.equal(d.metadata.namespace, 'team-a', `${d.kind} ${d.metadata.name}`);
    assert.deepEqual(
      docs
        .filter((d) => d.kind === 'Role' || d.kind === 'RoleBinding')
        .map((d) => `${d.kind}/${d.metadata.name}`)
        .sort(),
      [
        'Role/stepwise-controller',
        'Role/stepwise-controller-leader-election',
        'RoleBinding/stepwise-controller',
        'RoleBinding/stepwise-controller-leader-election',
      ],
    );
  });

  it('runs the controller on the release namespace, --namespaced', () => {
    const docs = render(namespaced, { namespace: 'team-a' });
    const args =
      findDoc<Deployment>(docs, 'Deployment', 'stepwise-controller').spec.template.spec
        .containers[0]?.args ?? [];
    const config = parseConfig(args, {});
    assert.equal(config.namespace, 'team-a');
    assert.equal(config.namespaced, true);
    assert.deepEqual(
      render({ ...namespaced, watchNamespace: 'team-a' }, { namespace: 'team-a' }).length,
      docs.length,
    );
    const elsewhere = renderChart(
      { ...namespaced, watchNamespace: 'team-b' },
      { namespace: 'team-a' },
    );
    assert.notEqual(elsewhere.status, 0);
    assert.match(elsewhere.stderr, /rbac\.namespaced watches the release namespace only/);
  });

  it("grants the controller's rules that a Role can hold, without routers only their installs aggregate", () => {
    const role = findDoc<Role>(render(namespaced), 'Role', 'stepwise-controller');
    const granted = grants(role.rules);
    const left = [...grants(sourceRole('stepwise-controller').rules)].filter(
      (g) => !granted.has(g),
    );
    const leftGroups = new Set(left.map((g) => g.slice(g.indexOf('.') + 1)));
    assert.deepEqual([...leftGroups].sort(), [
      'admissionregistration.k8s.io',
      'gateway.networking.k8s.io',
      'networking.istio.io',
      'split.smi-spec.io',
      // clusteranalysistemplates.stepwise.dev, and nothing else of stepwise.dev
      'stepwise.dev',
    ]);
    assert.deepEqual(
      left.filter((g) => g.endsWith('.stepwise.dev')).map((g) => g.split(' ')[1]),
      [
        'clusteranalysistemplates.stepwise.dev',
        'clusteranalysistemplates.stepwise.dev',
        'clusteranalysistemplates.stepwise.dev',
      ],
    );
    for (const g of granted) assert.ok(grants(sourceRole('stepwise-controller').rules).has(g), g);
  });

  it('rbac.extraRules adds a router back (to the Role, or the ClusterRole when cluster-wide)', () => {
    const routes = {
      apiGroups: ['gateway.networking.k8s.io'],
      resources: ['httproutes'],
      verbs: ['get', 'list', 'watch', 'patch'],
    };
    const role = findDoc<Role>(
      render({ rbac: { namespaced: true, extraRules: [routes] } }),
      'Role',
      'stepwise-controller',
    );
    assert.deepEqual(role.rules.at(-1), routes);
    const extra = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    const cluster = findDoc<Role>(
      render({ rbac: { extraRules: [extra] } }),
      'ClusterRole',
      'stepwise-controller',
    );
    assert.deepEqual(cluster.rules.at(-1), extra);
    assert.equal(cluster.rules.length, sourceRole('stepwise-controller').rules.length + 1);
  });
});

describe("people's roles, aggregated into view, edit and admin", () => {
  const rendered = render();
  const role = (name: string): Role => findDoc<Role>(rendered, 'ClusterRole', name);

  it('view reads Rollouts and templates; edit writes them and scales Rollouts; operator uses the status requests', () => {
    const view = role('stepwise-view');
    assert.equal(view.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-view'], 'true');
    for (const g of ['list rollouts', 'get analysistemplates', 'watch analysisruns']) {
      assert.ok(grants(view.rules).has(`${g}.stepwise.dev`), g);
    }
    const edit = role('stepwise-edit');
    assert.equal(edit.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
    for (const g of [
      'create rollouts',
      'patch rollouts',
      'delete rollouts',
      'create analysistemplates',
      'update analysistemplates',
      'create analysisruns',
      'patch rollouts/scale',
    ]) {
      assert.ok(grants(edit.rules).has(`${g}.stepwise.dev`), g);
    }
    // Cluster-wide templates stay with whoever administers the cluster.
    assert.ok(![...grants(edit.rules)].some((g) => g.includes('clusteranalysistemplates')));
    const operator = role('stepwise-operator');
    assert.equal(operator.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
    assert.ok(grants(operator.rules).has('patch rollouts/status.stepwise.dev'));
    // `kubectl scale rollout` as an HPA scales it, through the scale subresource only.
    for (const verb of ['get', 'update', 'patch']) {
      assert.ok(grants(operator.rules).has(`${verb} rollouts/scale.stepwise.dev`), verb);
    }
    assert.ok(!grants(operator.rules).has('patch rollouts.stepwise.dev'), 'no spec writes');
  });

  it("admin holds what the namespaced controller's Role needs beyond the built-in edit", () => {
    const admin = role('stepwise-admin');
    assert.equal(admin.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-admin'], 'true');
    const held = grants(admin.rules);
    for (const g of [
      'update rollouts/status.stepwise.dev',
      'patch analysisruns/status.stepwise.dev',
      'patch rolloutapprovals/status.stepwise.dev',
      'list podtemplates.',
      'create events.events.k8s.io',
    ]) {
      assert.ok(held.has(g), g);
    }
  });

  it('carry one label a cluster admin can apply them by, and are left out with rbac.userRoles=false', () => {
    for (const name of ['stepwise-view', 'stepwise-operator', 'stepwise-edit', 'stepwise-admin']) {
      assert.equal(
        sourceRole(name).metadata.labels?.['app.kubernetes.io/component'],
        'user-roles',
        name,
      );
    }
    const none = render({ rbac: { userRoles: false } });
    assert.ok(!none.some((d) => d.kind === 'ClusterRole' && d.metadata.name === 'stepwise-edit'));
  });
});
