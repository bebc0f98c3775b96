// Writing a Rollout is no way to scale down a Deployment one cannot touch: the API server's policy
// (deploy/approvals/status-policy.yaml, stepwise-workloadref-scaledown) refuses a workloadRef
// with scaleDown onsuccess or progressively from a user who may not patch that Deployment, and
// lets the same user write `scaleDown: never`, or keep a scaleDown someone allowed has set.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RolloutSpec } from '../../src/api/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { pollUntil } from '../cluster/poll.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { applyDeployFile } from './support/deploy-files.ts';
import { untilAllowed as untilAllowedTo } from './support/access.ts';
import { ARGO_API, installArgoCrds } from './support/argo.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { http, installCrds, rolloutBody } from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const WRITER = 'rollout-writer';
const EDITOR = 'rollout-editor';
let writer: KubeHttp;
let editor: KubeHttp;

before(async () => {
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await Promise.all([installCrds(), installArgoCrds()]);
  await applyDeployFile('approvals/status-policy.yaml');
  writer = new KubeHttp(readCredentials(await userKubeconfig(WRITER)));
  editor = new KubeHttp(readCredentials(await userKubeconfig(EDITOR)));
  // A policy just (re)created is enforced once the API server has compiled it, in the
  // background: wait until the writer's scale-down is refused by it.
  const ns = await namespaceFor('wref-rights-ready', false);
  await pollUntil(
    'the workloadRef policy to be enforced',
    async () => {
      const res = await create(writer, ns, referencing('onsuccess'));
      if (res.status === 201)
        await http.request('DELETE', `${GROUP}/namespaces/${ns}/rollouts/web`);
      return res.status === 403 && res.body.includes('workloadref-scaledown-needs-patch')
        ? true
        : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
});

/** Until the API server's RBAC has the binding: a refusal is then the policy's, not RBAC's. */
const untilAllowed = (user: string, ns: string, group: string, resource: string, verb: string) =>
  untilAllowedTo(user, { namespace: ns, group, resource, verb, name: 'web' });

/** A namespace where the writer and the editor may create and update Rollouts, and the writer,
 *  if `deployments`, patch the Deployment `web`. */
async function namespaceFor(prefix: string, deployments: boolean): Promise<string> {
  const ns = await testNamespace(prefix);
  const rollouts = {
    apiGroups: ['stepwise.dev', 'argoproj.io'],
    resources: ['rollouts'],
    verbs: ['create', 'get', 'update'],
  };
  const patchWeb = {
    apiGroups: ['apps'],
    resources: ['deployments'],
    resourceNames: ['web'],
    verbs: ['patch'],
  };
  const grants: [string, object[]][] = [
    [WRITER, deployments ? [rollouts, patchWeb] : [rollouts]],
    [EDITOR, [rollouts]],
  ];
  for (const [user, rules] of grants) {
    await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
      metadata: { name: user },
      rules,
    });
    await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    await untilAllowed(user, ns, 'stepwise.dev', 'rollouts', 'update');
  }
  if (deployments) await untilAllowed(WRITER, ns, 'apps', 'deployments', 'patch');
  return ns;
}

function referencing(scaleDown: 'never' | 'onsuccess' | 'progressively') {
  const body = rolloutBody('web', { strategy: { canary: { steps: [{ setWeight: 50 }] } } });
  const withRef: RolloutSpec = {
    ...body.spec,
    template: undefined,
    workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', scaleDown },
  };
  return { ...body, spec: withRef };
}

const create = (who: KubeHttp, ns: string, body: object) =>
  who.request('POST', `${GROUP}/namespaces/${ns}/rollouts`, body);

describe('workloadRef scaleDown needs the right to patch the Deployment', () => {
  it('refuses onsuccess and progressively from a Rollout writer who cannot patch it, naming the rule', async () => {
    const ns = await namespaceFor('wref-rights-no', false);
    for (const mode of ['onsuccess', 'progressively'] as const) {
      const res = await create(writer, ns, referencing(mode));
      assert.equal(res.status, 403, res.body);
      assert.match(res.body, /rule workloadref-scaledown-needs-patch/);
      assert.match(res.body, new RegExp(`scaleDown ${mode}`));
    }
    const never = await create(writer, ns, referencing('never'));
    assert.equal(never.status, 201, never.body);
    // Turning it on later is the same request for the same right.
    const live = JSON.parse(never.body) as ReturnType<typeof referencing>;
    const turnedOn = await writer.request('PUT', `${GROUP}/namespaces/${ns}/rollouts/web`, {
      ...live,
      spec: { ...live.spec, workloadRef: { ...live.spec.workloadRef, scaleDown: 'onsuccess' } },
    });
    assert.equal(turnedOn.status, 403, turnedOn.body);
  });

  it("the same for Argo's own Rollouts (argoproj.io), which a controller serving them in place scales down alike", async () => {
    const ns = await namespaceFor('wref-rights-argo', false);
    const argo = (mode: 'never' | 'onsuccess') => ({
      ...referencing(mode),
      apiVersion: 'argoproj.io/v1alpha1',
    });
    const refused = await writer.request(
      'POST',
      `${ARGO_API}/namespaces/${ns}/rollouts`,
      argo('onsuccess'),
    );
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.body, /rule workloadref-scaledown-needs-patch/);
    const never = await writer.request(
      'POST',
      `${ARGO_API}/namespaces/${ns}/rollouts`,
      argo('never'),
    );
    assert.equal(never.status, 201, never.body);
  });

  it('allows it to a writer who may patch that Deployment; an editor who may not can still edit the rest', async () => {
    const ns = await namespaceFor('wref-rights-yes', true);
    const res = await create(writer, ns, referencing('onsuccess'));
    assert.equal(res.status, 201, res.body);
    const live = JSON.parse(res.body) as ReturnType<typeof referencing>;
    const edited = await editor.request('PUT', `${GROUP}/namespaces/${ns}/rollouts/web`, {
      ...live,
      spec: { ...live.spec, replicas: 3 },
    });
    assert.equal(edited.status, 200, edited.body);
    // Pointing it at another Deployment is a new scale-down: the editor may not.
    const again = JSON.parse(edited.body) as ReturnType<typeof referencing>;
    const moved = await editor.request('PUT', `${GROUP}/namespaces/${ns}/rollouts/web`, {
      ...again,
      spec: { ...again.spec, workloadRef: { ...again.spec.workloadRef, name: 'api' } },
    });
    assert.equal(moved.status, 403, moved.body);
  });
});
