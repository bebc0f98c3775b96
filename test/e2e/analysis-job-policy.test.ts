// The job provider's admission policy (deploy/analysis/job-provider-policy.yaml) on the real API
// server: people are client-certificate users. A user who may write AnalysisTemplates and
// AnalysisRuns but not create Jobs is refused a job metric (403 naming the rule), one who may
// create Jobs is not; a ClusterAnalysisTemplate needs Jobs in every namespace; updates that leave
// the job metrics as they were pass; the controller's own ClusterRole may create such runs.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AnalysisTemplate, Metric } from '../../src/api/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import type { KubeResponse } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { pollUntil } from '../cluster/poll.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { applyDeployFile } from './support/deploy-files.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { http, installCrds } from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const RULE = 'stepwise-analysis-job-provider';

const jobMetric = (image = 'registry.invalid/smoke:1'): Metric => ({
  name: 'smoke',
  provider: {
    job: {
      spec: {
        backoffLimit: 0,
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image }] },
        },
      },
    },
  },
});
const webMetric: Metric = { name: 'web', provider: { web: { url: 'https://example.invalid/' } } };

function body(kind: string, name: string, metrics: Metric[]): AnalysisTemplate {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind,
    metadata: { name },
    spec: { metrics },
  };
}

const collection = (ns: string, plural: string): string =>
  ns === '' ? `${GROUP}/${plural}` : `${GROUP}/namespaces/${ns}/${plural}`;

async function as(user: string, groups: string[] = []): Promise<KubeHttp> {
  return new KubeHttp(readCredentials(await userKubeconfig(user, groups)));
}

async function bind(ns: string, user: string, role: { kind: string; name: string }) {
  const path = ns === '' ? `${RBAC}/clusterrolebindings` : `${RBAC}/namespaces/${ns}/rolebindings`;
  await http.json('POST', path, {
    metadata: { name: `${user}-${role.name}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

/** A namespace where `writer` may write templates and runs (no Jobs) and `jobber` also Jobs. */
async function namespaceWithWriters(prefix: string): Promise<string> {
  const ns = await testNamespace(prefix);
  const analysis = {
    apiGroups: ['stepwise.dev'],
    resources: ['analysistemplates', 'analysisruns'],
    verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
  };
  const jobs = { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] };
  await http.json('POST', `${RBAC}/namespaces/${ns}/roles`, {
    metadata: { name: 'analysis-writer' },
    rules: [analysis],
  });
  await http.json('POST', `${RBAC}/namespaces/${ns}/roles`, {
    metadata: { name: 'analysis-and-jobs-writer' },
    rules: [analysis, jobs],
  });
  await bind(ns, 'writer', { kind: 'Role', name: 'analysis-writer' });
  await bind(ns, 'jobber', { kind: 'Role', name: 'analysis-and-jobs-writer' });
  return ns;
}

function assertRefused(res: KubeResponse, user: string, where: RegExp): void {
  assert.equal(res.status, 403, res.body);
  const { message } = JSON.parse(res.body) as { message: string };
  assert.match(message, new RegExp(RULE));
  assert.match(message, new RegExp(`"${user}" may not create Jobs`));
  assert.match(message, where);
}

let writer: KubeHttp;
let jobber: KubeHttp;

before(async () => {
  // helm.test.ts installs and uninstalls the same cluster-scoped objects.
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await installCrds();
  await applyDeployFile('analysis/job-provider-policy.yaml', {
    ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
    ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  });
  await applyDeployFile('rbac/rbac.yaml', { ClusterRole: 'clusterroles' });
  writer = await as('writer');
  jobber = await as('jobber');
  // The API server compiles a new policy in the background: wait until it refuses.
  const ns = await namespaceWithWriters('job-policy-ready');
  await pollUntil(
    'the job provider policy to be enforced',
    async () => {
      const res = await writer.request('POST', collection(ns, 'analysistemplates'), {
        ...body('AnalysisTemplate', '', [jobMetric()]),
        metadata: { generateName: 'probe-' },
      });
      return res.status === 403 ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
});

describe('the job provider admission policy', () => {
  it('refuses a job metric from a user who cannot create Jobs there, naming the rule', async () => {
    const ns = await namespaceWithWriters('job-policy-no');
    for (const [kind, plural] of [
      ['AnalysisTemplate', 'analysistemplates'],
      ['AnalysisRun', 'analysisruns'],
    ] as const) {
      const res = await writer.request(
        'POST',
        collection(ns, plural),
        body(kind, 'smoke', [webMetric, jobMetric()]),
      );
      assertRefused(res, 'writer', new RegExp(`in namespace "${ns}"`));
    }
    // The same user, without a job metric: the policy does not apply.
    const plain = await writer.request(
      'POST',
      collection(ns, 'analysistemplates'),
      body('AnalysisTemplate', 'plain', [webMetric]),
    );
    assert.equal(plain.status, 201, plain.body);
    // Nor can a job metric be added later.
    const added = await writer.request('PUT', `${collection(ns, 'analysistemplates')}/plain`, {
      ...(JSON.parse(plain.body) as object),
      spec: { metrics: [webMetric, jobMetric()] },
    });
    assertRefused(added, 'writer', new RegExp(`in namespace "${ns}"`));
  });

  it('admits a user who may create Jobs; others may then edit all but the job metric', async () => {
    const ns = await namespaceWithWriters('job-policy-yes');
    for (const [kind, plural] of [
      ['AnalysisTemplate', 'analysistemplates'],
      ['AnalysisRun', 'analysisruns'],
    ] as const) {
      const res = await jobber.request(
        'POST',
        collection(ns, plural),
        body(kind, 'smoke', [webMetric, jobMetric()]),
      );
      assert.equal(res.status, 201, res.body);
    }
    const path = `${collection(ns, 'analysistemplates')}/smoke`;
    const labelled = await writer.request(
      'PATCH',
      path,
      { metadata: { labels: { team: 'a' } } },
      'application/merge-patch+json',
    );
    assert.equal(labelled.status, 200, 'an update leaving the job metric as it was passes');
    const swapped = await writer.request(
      'PATCH',
      path,
      { spec: { metrics: [webMetric, jobMetric('registry.invalid/other:1')] } },
      'application/merge-patch+json',
    );
    assertRefused(swapped, 'writer', new RegExp(`in namespace "${ns}"`));
    const terminated = await writer.request(
      'PATCH',
      `${collection(ns, 'analysisruns')}/smoke`,
      { spec: { terminate: true } },
      'application/merge-patch+json',
    );
    assert.equal(terminated.status, 200, terminated.body);
    const changed = await writer.request(
      'PATCH',
      `${collection(ns, 'analysisruns')}/smoke`,
      { spec: { metrics: [webMetric, jobMetric('registry.invalid/other:1')] } },
      'application/merge-patch+json',
    );
    assertRefused(changed, 'writer', new RegExp(`in namespace "${ns}"`));
  });

  it('a ClusterAnalysisTemplate with a job metric needs Jobs in every namespace', async () => {
    const ns = await testNamespace('job-policy-cluster');
    await http.json('POST', `${RBAC}/clusterroles`, {
      metadata: { name: `cluster-template-writer-${ns}` },
      rules: [
        {
          apiGroups: ['stepwise.dev'],
          resources: ['clusteranalysistemplates'],
          verbs: ['create', 'delete'],
        },
      ],
    });
    await http.json('POST', `${RBAC}/clusterroles`, {
      metadata: { name: `job-creator-${ns}` },
      rules: [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] }],
    });
    const user = `ops-${ns}`;
    await bind('', user, { kind: 'ClusterRole', name: `cluster-template-writer-${ns}` });
    // Jobs in one namespace only: not enough for a template any namespace can use.
    await bind(ns, user, { kind: 'ClusterRole', name: `job-creator-${ns}` });
    const ops = await as(user);
    const name = `smoke-${ns}`;
    const refused = await ops.request(
      'POST',
      collection('', 'clusteranalysistemplates'),
      body('ClusterAnalysisTemplate', name, [jobMetric()]),
    );
    assertRefused(refused, user, /in every namespace/);
    await bind('', user, { kind: 'ClusterRole', name: `job-creator-${ns}` });
    await pollUntil(
      'the cluster-wide binding to take effect',
      async () => {
        const res = await ops.request(
          'POST',
          collection('', 'clusteranalysistemplates'),
          body('ClusterAnalysisTemplate', name, [jobMetric()]),
        );
        return res.status === 201 ? true : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    await http.request('DELETE', `${collection('', 'clusteranalysistemplates')}/${name}`);
    for (const path of [
      `${RBAC}/clusterrolebindings/${user}-cluster-template-writer-${ns}`,
      `${RBAC}/clusterrolebindings/${user}-job-creator-${ns}`,
      `${RBAC}/clusterroles/cluster-template-writer-${ns}`,
      `${RBAC}/clusterroles/job-creator-${ns}`,
    ]) {
      await http.request('DELETE', path);
    }
  });

  it("the controller's ClusterRole may create AnalysisRuns with a job metric", async () => {
    const ns = await testNamespace('job-policy-controller');
    // Bound in the namespace, as the chart's watchNamespace mode does; the default install binds
    // the same ClusterRole cluster-wide.
    await bind(ns, 'controller-stand-in', { kind: 'ClusterRole', name: 'stepwise-controller' });
    const controller = await as('controller-stand-in');
    const res = await controller.request(
      'POST',
      collection(ns, 'analysisruns'),
      body('AnalysisRun', 'from-template', [jobMetric()]),
    );
    assert.equal(res.status, 201, res.body);
  });
});
