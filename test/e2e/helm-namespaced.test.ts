// The chart installed by a namespace admin (rbac.namespaced): a person whose only right is the
// built-in `admin` ClusterRole bound in one namespace installs it with helm, and the controller it
// installs, with nothing but the chart's Role, walks a canary in that namespace to Healthy. Before
// that, what a cluster admin installs once for such tenants: the CRDs and the user ClusterRoles of
// deploy/rbac (aggregated into view, edit and admin), which also let namespace editors write
// Rollouts and AnalysisTemplates and viewers read them.
//
// kwok runs no containers: the controller runs here, from the sources, with the installed
// Deployment's flags and a token of the chart's ServiceAccount.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dump } from 'js-yaml';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { eventually, testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { untilAllowed } from './support/access.ts';
import { ControllerProcess } from './support/controller.ts';
import { applyDeployFile } from './support/deploy-files.ts';
import type { LogLine } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { CHART_DIR, helm, setArgs } from './support/helm.ts';
import { kubectl } from './support/kubectl.ts';
import {
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

interface Deployment {
  spec: {
    template: {
      spec: {
        serviceAccountName: string;
        containers: { args?: string[]; env?: { name: string; value?: string }[] }[];
      };
    };
  };
}

const RELEASE = 'tenant';
const CONTROLLER = `${RELEASE}-stepwise-controller`;
const work = await mkdtemp(join(tmpdir(), 'stepwise-helm-namespaced-'));

// Shared: this file applies deploy/'s CRDs and user ClusterRoles as they ship and removes none.
before(() => holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared'));
before(installCrds);
after(() => rm(work, { recursive: true, force: true }));

/** The cluster admin's binding of the record-approvals ClusterRole to a tenant's controller,
 *  once the API server's RBAC has it. */
async function bindRecordApprovals(ns: string, serviceAccount: string): Promise<void> {
  const name = `stepwise-controller-record-approvals-${ns}`;
  await http.json(
    'PATCH',
    `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}?fieldManager=stepwise-tests&force=true`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'stepwise-controller-record-approvals',
      },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
    },
    'application/apply-patch+yaml',
  );
  await untilAllowed(`system:serviceaccount:${ns}:${serviceAccount}`, {
    group: 'stepwise.dev',
    resource: 'rollouts',
    subresource: 'status',
    verb: 'record-approvals',
  });
}

async function ok(run: Promise<{ code: number | null; stdout: string; stderr: string }>) {
  const result = await run;
  assert.equal(result.code, 0, `exit ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `kubectl auth can-i` as `kubeconfig`'s user: "yes" or "no". */
async function can(kubeconfig: string, ...args: string[]): Promise<string> {
  const run = await kubectl(['auth', 'can-i', ...args], { env: { KUBECONFIG: kubeconfig } });
  return run.stdout.trim();
}

/** Binds the built-in ClusterRole `role` to `user` in `namespace` (as the cluster admin). */
async function bind(namespace: string, role: string, user: string): Promise<void> {
  await http.json(
    'POST',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
    {
      metadata: { name: `${role}-${user}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  );
}

/** A kubeconfig with `token` on the harness's API server. */
async function tokenKubeconfig(name: string, token: string): Promise<string> {
  const admin = readCredentials(process.env.KUBECONFIG ?? '');
  const file = join(work, `${name}.kubeconfig`);
  const cluster = {
    server: admin.server,
    'certificate-authority-data': Buffer.from(admin.ca).toString('base64'),
  };
  await writeFile(
    file,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster }],
      users: [{ name, user: { token } }],
      contexts: [{ name, context: { cluster: 'local', user: name } }],
      'current-context': name,
    }),
    { mode: 0o600 },
  );
  return file;
}

describe('the chart installed by a namespace admin (rbac.namespaced)', () => {
  it('a cluster admin installs the user ClusterRoles alone, by their label', async () => {
    const applied = await ok(
      kubectl([
        'apply',
        '--server-side',
        '-f',
        join(REPO_ROOT, 'deploy', 'rbac', 'rbac.yaml'),
        '-l',
        'app.kubernetes.io/component=user-roles',
      ]),
    );
    const names = [...applied.matchAll(/clusterrole\.rbac\.authorization\.k8s\.io\/(\S+)/g)]
      .map((m) => m[1])
      .sort();
    assert.deepEqual(names, [
      'stepwise-admin',
      'stepwise-edit',
      'stepwise-operator',
      'stepwise-view',
    ]);
  });

  it('namespace editors write Rollouts and AnalysisTemplates, viewers read them, operators promote', async () => {
    const ns = await testNamespace('tenant-roles');
    const suffix = randomBytes(3).toString('hex');
    const [editor, viewer] = [`editor-${suffix}`, `viewer-${suffix}`];
    await bind(ns, 'edit', editor);
    await bind(ns, 'view', viewer);
    const [asEditor, asViewer] = await Promise.all([
      userKubeconfig(editor),
      userKubeconfig(viewer),
    ]);
    // The aggregation controller fills edit and view a moment after the roles appear.
    await eventually('edit may create Rollouts', async () =>
      (await can(asEditor, 'create', 'rollouts.stepwise.dev', '-n', ns)) === 'yes'
        ? true
        : undefined,
    );
    for (const verb of ['create', 'patch', 'delete']) {
      assert.equal(
        await can(asEditor, verb, 'analysistemplates.stepwise.dev', '-n', ns),
        'yes',
        verb,
      );
    }
    assert.equal(
      await can(asEditor, 'patch', 'rollouts.stepwise.dev', '--subresource=status', '-n', ns),
      'yes',
    );
    assert.equal(
      await can(asEditor, 'update', 'rollouts.stepwise.dev', '--subresource=scale', '-n', ns),
      'yes',
    );
    assert.equal(await can(asEditor, 'create', 'clusteranalysistemplates.stepwise.dev'), 'no');
    await eventually('view may list Rollouts', async () =>
      (await can(asViewer, 'list', 'rollouts.stepwise.dev', '-n', ns)) === 'yes' ? true : undefined,
    );
    assert.equal(await can(asViewer, 'get', 'analysistemplates.stepwise.dev', '-n', ns), 'yes');
    assert.equal(await can(asViewer, 'create', 'rollouts.stepwise.dev', '-n', ns), 'no');
    assert.equal(
      await can(asViewer, 'patch', 'rollouts.stepwise.dev', '--subresource=status', '-n', ns),
      'no',
    );

    // As written by an editor, through the API server's own checks.
    const template = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'always', namespace: ns },
      spec: { metrics: [{ name: 'ok', provider: { web: { url: 'https://example.invalid/' } } }] },
    };
    await ok(kubectl(['create', '-f', '-'], { env: { KUBECONFIG: asEditor }, input: template }));
    await ok(
      kubectl(['create', '-f', '-'], {
        env: { KUBECONFIG: asEditor },
        input: { ...rolloutBody('web'), metadata: { name: 'web', namespace: ns } },
      }),
    );
    const refused = await kubectl(['delete', 'rollouts.stepwise.dev', 'web', '-n', ns], {
      env: { KUBECONFIG: asViewer },
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /forbidden/);
  });

  it('installs with helm as that admin, and the controller with its Role (and the record-approvals binding the status policy asks a cluster admin for) walks a canary to Healthy', async (t) => {
    const ns = await testNamespace('tenant');
    const user = `tenant-admin-${randomBytes(3).toString('hex')}`;
    await bind(ns, 'admin', user);
    const asAdmin = await userKubeconfig(user);
    const env = { KUBECONFIG: asAdmin };
    // No cluster rights at all: the chart's default (cluster-wide) install is not for them.
    assert.equal(await can(asAdmin, 'create', 'clusterroles'), 'no');
    assert.equal(await can(asAdmin, 'list', 'rollouts.stepwise.dev', '-n', 'default'), 'no');
    // What admin holds through stepwise-admin, which the controller's Role asks for.
    await eventually('admin holds rollouts/status update', async () =>
      (await can(asAdmin, 'update', 'rollouts.stepwise.dev', '--subresource=status', '-n', ns)) ===
      'yes'
        ? true
        : undefined,
    );

    const values = setArgs({
      'rbac.namespaced': true,
      replicas: 1,
      'approvals.enabled': false,
      'notifications.secretName': '',
    });
    await ok(
      helm(['install', RELEASE, CHART_DIR, '-n', ns, ...values, '--wait', '--timeout=120s'], {
        env,
      }),
    );
    t.after(() => helm(['uninstall', RELEASE, '-n', ns, '--wait'], { env }));

    const deployment = await http.json<Deployment>(
      'GET',
      `/apis/apps/v1/namespaces/${ns}/deployments/${CONTROLLER}`,
    );
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    assert.ok(container?.args);
    assert.ok(container.args.includes(`--namespace=${ns}`), container.args.join(' '));
    assert.ok(container.args.includes('--namespaced'), container.args.join(' '));
    const role = await http.request(
      'GET',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/${CONTROLLER}`,
    );
    assert.equal(role.status, 200);

    // The ServiceAccount's token, asked for by the namespace admin.
    const token = await ok(
      kubectl(['create', 'token', pod.serviceAccountName, '-n', ns, '--duration=1h'], { env }),
    );
    const asController = await tokenKubeconfig('controller', token.trim());
    assert.equal(
      await can(asController, 'patch', 'rollouts.stepwise.dev', '--subresource=status', '-n', ns),
      'yes',
    );
    assert.equal(await can(asController, 'list', 'rollouts.stepwise.dev', '-n', 'default'), 'no');
    assert.equal(await can(asController, 'list', 'clusteranalysistemplates.stepwise.dev'), 'no');

    // The status policy is cluster-wide (other files apply it as well): where a cluster admin has
    // applied it, a controller writes stableRS only holding record-approvals, which only a
    // ClusterRoleBinding grants (docs/installation.md "Install as a namespace admin"). The cluster admin's step,
    // done here whether or not the policy is present, so the outcome does not depend on the order.
    await applyDeployFile('approvals/status-policy.yaml');
    await applyDeployFile('rbac/rbac.yaml');
    await bindRecordApprovals(ns, pod.serviceAccountName);

    // The installed flags, listeners moved to loopback; the downward API's values by hand.
    const args = container.args.map((arg) =>
      arg.startsWith('--metrics-bind-address=') ? '--metrics-bind-address=127.0.0.1:0' : arg,
    );
    const controllerEnv: Record<string, string> = { KUBECONFIG: asController };
    for (const e of container.env ?? []) if (e.value !== undefined) controllerEnv[e.name] = e.value;
    Object.assign(controllerEnv, { POD_NAMESPACE: ns, POD_NAME: `${CONTROLLER}-local` });
    const running = await new ControllerProcess({ args, env: controllerEnv }).ready();
    try {
      await running.waitForLog((l) => l.msg === 'workers started');
      const starting = running.logs.find((l) => l.msg === 'starting');
      const config = starting?.config as { namespace?: string; namespaced?: boolean } | undefined;
      assert.equal(config?.namespace, ns);
      assert.equal(config?.namespaced, true);

      // Created by the namespace admin, as a tenant would.
      const body = rolloutBody('web', {
        strategy: {
          canary: {
            steps: [
              { setWeight: 25 },
              { pause: { duration: '1s' } },
              { setWeight: 50 },
              { pause: { duration: '1s' } },
            ],
          },
        },
      });
      await ok(kubectl(['create', '-n', ns, '-f', '-'], { env, input: body }));
      const first = await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
      await setImage(ns, 'web', 'app:2');
      const done = await waitForRollout(
        ns,
        'web',
        'canary promoted',
        phase(
          'Healthy',
          (r) => r.status?.stableRS !== first.status?.stableRS && r.status?.currentStepIndex === 4,
        ),
      );
      assert.deepEqual(await split(ns, done), [0, 4]);
      await waitForEvents(ns, ['RolloutStepCompleted', 'RolloutCompleted']);

      // A ClusterAnalysisTemplate is there, but not for a namespaced controller: a Rollout that
      // names one is InvalidSpec, saying so, rather than waiting for a cache it may not fill.
      const shared = `shared-${randomBytes(3).toString('hex')}`;
      const clusterTemplates = '/apis/stepwise.dev/v1alpha1/clusteranalysistemplates';
      await http.json('POST', clusterTemplates, {
        apiVersion: 'stepwise.dev/v1alpha1',
        kind: 'ClusterAnalysisTemplate',
        metadata: { name: shared },
        spec: { metrics: [{ name: 'ok', provider: { web: { url: 'https://example.invalid/' } } }] },
      });
      t.after(() => http.request('DELETE', `${clusterTemplates}/${shared}`));
      const analysed = rolloutBody('analysed', {
        strategy: {
          canary: {
            steps: [{ analysis: { templates: [{ templateName: shared, clusterScope: true }] } }],
          },
        },
      });
      await ok(kubectl(['create', '-n', ns, '-f', '-'], { env, input: analysed }));
      const stopped = await waitForRollout(ns, 'analysed', 'InvalidSpec', phase('Degraded'));
      const said = [
        stopped.status?.message,
        ...(stopped.status?.conditions ?? []).map((c) => c.message),
      ].join('\n');
      assert.ok(said.includes(`ClusterAnalysisTemplate "${shared}" not found`), said);
      assert.equal(
        stopped.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.status,
        'True',
      );
      // Its Role refused it nothing it needed: only the routers' kinds, which it then leaves
      // unwatched (rbac.extraRules would grant them), were forbidden.
      const unwatched = (l: LogLine) => l.msg === 'traffic router objects not watched';
      assert.deepEqual(
        running.logs.filter((l) => !unwatched(l) && /forbidden/i.test(JSON.stringify(l))),
        [],
      );
      for (const line of running.logs.filter(unwatched)) {
        assert.ok(
          ['httproutes', 'virtualservices', 'destinationrules', 'trafficsplits'].includes(
            String(line.resource),
          ),
          JSON.stringify(line),
        );
      }
    } finally {
      await running.stop();
    }
  });
});
