// The chart's in-cluster dashboard (dashboard.enabled), rendered by the real helm: off by
// default; on, its own Deployment from the controller's image running stepwise-dashboard with
// flags its own parser accepts, a ServiceAccount that only reads and asks TokenReview /
// SubjectAccessReview, and `impersonate` only when a proxy is trusted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseInClusterFlags } from '../../../src/cli/dashboard/in-cluster/flags.ts';
import { findDoc, render, renderChart, type Doc } from '../../helm/render.ts';

interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}
interface Role extends Doc {
  readonly rules: readonly Rule[];
}
interface Container {
  readonly image: string;
  readonly command: readonly string[];
  readonly args: readonly string[];
}
interface Deployment extends Doc {
  readonly spec: {
    readonly template: {
      readonly spec: { readonly serviceAccountName: string; readonly containers: Container[] };
    };
  };
}

const NAME = 'stepwise-dashboard';
const dashboardDocs = (docs: readonly Doc[]): string[] =>
  docs
    .filter((d) => d.metadata.name.startsWith(NAME))
    .map((d) => `${d.kind}/${d.metadata.name}`)
    .sort();
const container = (docs: readonly Doc[]): Container => {
  const c = findDoc<Deployment>(docs, 'Deployment', NAME).spec.template.spec.containers[0];
  assert.ok(c);
  return c;
};
const verbsOn = (rules: readonly Rule[]): string[] =>
  rules
    .flatMap((r) =>
      r.resources.map((res) => `${r.apiGroups[0] || 'core'}/${res}: ${r.verbs.join(',')}`),
    )
    .sort();

describe('chart: dashboard', () => {
  it('renders nothing of the dashboard by default', () => {
    assert.deepEqual(dashboardDocs(render()), []);
  });

  it('on: a Deployment of the controller image running stepwise-dashboard, its Service, and a read-only ServiceAccount', () => {
    const docs = render({ dashboard: { enabled: true } });
    assert.deepEqual(dashboardDocs(docs), [
      `ClusterRole/${NAME}`,
      `ClusterRoleBinding/${NAME}`,
      `Deployment/${NAME}`,
      `Service/${NAME}`,
      `ServiceAccount/${NAME}`,
    ]);
    const c = container(docs);
    const controller = findDoc<Deployment>(docs, 'Deployment', 'stepwise-controller');
    assert.equal(c.image, controller.spec.template.spec.containers[0]?.image);
    assert.deepEqual(c.command, ['/nodejs/bin/node', '/app/dist/bundle/dashboard.mjs']);
    const flags = parseInClusterFlags(c.args);
    assert.equal(flags.port, 3100);
    assert.deepEqual(flags.publicOrigins, ['http://localhost:3100', 'http://127.0.0.1:3100']);
    assert.equal(flags.proxy, undefined);
    assert.equal(
      findDoc<Deployment>(docs, 'Deployment', NAME).spec.template.spec.serviceAccountName,
      NAME,
    );
    // Reads what the page shows; writes nothing; asks who and what.
    assert.deepEqual(verbsOn(findDoc<Role>(docs, 'ClusterRole', NAME).rules), [
      'apps/replicasets: get,list,watch',
      'authentication.k8s.io/tokenreviews: create',
      'authorization.k8s.io/subjectaccessreviews: create',
      'core/events: get,list,watch',
      'core/pods: get,list,watch',
      'stepwise.dev/analysisruns: get,list,watch',
      'stepwise.dev/rollouts: get,list,watch',
    ]);
  });

  it('a trusted proxy: its ranges and headers as flags, and impersonate granted (narrowed when asked)', () => {
    const docs = render({
      dashboard: {
        enabled: true,
        publicOrigins: ['https://rollouts.example.com'],
        proxy: {
          trustedCIDRs: ['10.8.0.0/16'],
          userHeader: 'X-Forwarded-User',
          impersonableNames: ['alice', 'team-a'],
        },
      },
    });
    const flags = parseInClusterFlags(container(docs).args);
    assert.deepEqual(flags.publicOrigins, ['https://rollouts.example.com']);
    assert.equal(flags.proxy?.userHeader, 'X-Forwarded-User');
    assert.equal(flags.proxy?.groupHeader, 'X-Remote-Group');
    assert.deepEqual(
      flags.proxy?.trusted.map((c) => c.text),
      ['10.8.0.0/16'],
    );
    const impersonate = findDoc<Role>(docs, 'ClusterRole', `${NAME}-impersonate`);
    assert.deepEqual(impersonate.rules, [
      {
        apiGroups: [''],
        resources: ['users', 'groups'],
        verbs: ['impersonate'],
        resourceNames: ['alice', 'team-a'],
      },
    ]);
    findDoc(docs, 'ClusterRoleBinding', `${NAME}-impersonate`);
  });

  it('the schema refuses an origin with a path and a malformed range, naming the value', () => {
    const origin = renderChart({
      dashboard: { enabled: true, publicOrigins: ['https://rollouts.example.com/ui'] },
    });
    assert.notEqual(origin.status, 0);
    assert.match(origin.stderr, /dashboard\.publicOrigins|publicOrigins/);
    const cidr = renderChart({
      dashboard: { enabled: true, proxy: { trustedCIDRs: ['10.0.0.0'] } },
    });
    assert.notEqual(cidr.status, 0);
    assert.match(cidr.stderr, /trustedCIDRs/);
  });

  it('is refused with rbac.namespaced, which renders no ClusterRole', () => {
    const out = renderChart({ dashboard: { enabled: true }, rbac: { namespaced: true } });
    assert.notEqual(out.status, 0);
    assert.match(out.stderr, /dashboard\.enabled needs a ClusterRole/);
  });
});
