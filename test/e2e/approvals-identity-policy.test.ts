// The controller trusts a RolloutApproval's `approver` only while the identity policy
// (deploy/approvals/identity-policy.yaml) is in force. Against a cluster without its binding, a
// plugin approval is refused (IdentityPolicyMissing: the plugin prints it, an Event on the
// Rollout says it) and the Rollout keeps waiting; one made before the binding existed is refused
// too (PredatesIdentityPolicy); one made once it is in force counts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RolloutApproval } from '../../src/api/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { pollUntil } from '../cluster/poll.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { applyDeployFile } from './support/deploy-files.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { kubectl } from './support/kubectl.ts';
import {
  createRollout,
  events,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitFor,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const POLICY = 'stepwise-rolloutapproval-identity';
const BIN = join(REPO_ROOT, '.stepwise', 'bin');
let aliceConfig = '';
let alice: KubeHttp;
let controller: ControllerProcess | undefined;

async function removeIdentityPolicy(): Promise<void> {
  for (const plural of ['validatingadmissionpolicybindings', 'validatingadmissionpolicies']) {
    const res = await http.request('DELETE', `${ADMISSION}/${plural}/${POLICY}`);
    assert.ok([200, 404].includes(res.status), res.body);
  }
}

const pluginAs = (args: string[]) =>
  kubectl(['stepwise', ...args], {
    env: { KUBECONFIG: aliceConfig, PATH: `${BIN}:${process.env.PATH ?? ''}` },
  });

async function approveAsAlice(ns: string, hash: string): Promise<RolloutApproval> {
  const body: RolloutApproval = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: { generateName: 'web-' },
    spec: { rolloutName: 'web', revision: hash, step: 1, decision: 'Approve', approver: 'alice' },
  };
  return alice.json<RolloutApproval>('POST', `${GROUP}/namespaces/${ns}/rolloutapprovals`, body);
}

const answered = (ns: string, name: string): Promise<RolloutApproval> =>
  waitFor(
    `RolloutApproval ${name} answered`,
    `${GROUP}/namespaces/${ns}/rolloutapprovals`,
    name,
    (a: RolloutApproval) => a.status?.phase !== undefined,
  );

/** A Rollout whose second revision waits for alice at step 2 (index 1). */
async function waitingForAlice(ns: string): Promise<string> {
  await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'approver-alice' },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'stepwise-approver',
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  });
  const approval = { approvers: { users: ['alice'] } };
  await createRollout(
    ns,
    rolloutBody('web', {
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    }),
  );
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  const waiting = await waitForRollout(
    ns,
    'web',
    'awaiting approval at step 2',
    phase('Paused', (r) => r.status?.message === 'AwaitingApproval'),
  );
  return waiting.status?.currentPodHash ?? '';
}

before(async () => {
  // approvals.test.ts and helm.test.ts apply or remove the same policy.
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS);
  await installCrds();
  await applyDeployFile('rbac/rbac.yaml');
  await removeIdentityPolicy();
  aliceConfig = await userKubeconfig('alice');
  alice = new KubeHttp(readCredentials(aliceConfig));
});
after(async () => {
  await controller?.kill();
  // Leave the cluster as approvals.test.ts expects it.
  await applyDeployFile('approvals/identity-policy.yaml');
});

describe('the identity policy, checked by the controller', () => {
  it('without it a plugin approval is refused visibly; made before its binding, too; after, it counts', async () => {
    controller = await startController();
    await controller.waitForLog((l) => l.msg.startsWith('identity policy missing'));
    const ns = await testNamespace('identity-missing');
    const hash = await waitingForAlice(ns);

    const refused = await pluginAs(['approve', 'web', '-n', ns]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(
      refused.stderr,
      /approval of rollout 'web' refused \(IdentityPolicyMissing\): the identity policy is not in force \(ValidatingAdmissionPolicy stepwise-rolloutapproval-identity not found\)/,
    );
    await waitForEvents(ns, ['IdentityPolicyMissing']);
    const event = (await events(ns)).find((e) => e.reason === 'IdentityPolicyMissing');
    assert.match(event?.message ?? '', /^Approve by alice \(RolloutApproval web-\S+\) refused: /);
    const still = await waitForRollout(ns, 'web', 'still waiting', phase('Paused'));
    assert.equal(still.status?.currentStepIndex, 1);
    assert.equal(still.status?.approvals, undefined, 'nothing recorded');

    // Made while no controller runs and no policy checks it; the binding comes a second later
    // (creation times have whole seconds: the binding's must be strictly later).
    await controller.kill();
    controller = undefined;
    const early = await approveAsAlice(ns, hash);
    const earlySecond = Math.floor(Date.parse(String(early.metadata.creationTimestamp)) / 1000);
    await pollUntil(
      'the next second',
      () => Promise.resolve(Math.floor(Date.now() / 1000) > earlySecond + 1 || undefined),
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    await applyDeployFile('approvals/identity-policy.yaml');
    controller = await startController();
    await controller.waitForLog((l) => l.msg.startsWith('identity policy in force'));
    const predates = await answered(ns, early.metadata.name ?? '');
    assert.equal(predates.status?.phase, 'Refused');
    assert.equal(predates.status?.reason, 'PredatesIdentityPolicy');
    await waitForEvents(ns, ['PredatesIdentityPolicy']);

    const counted = await pluginAs(['approve', 'web', '-n', ns]);
    assert.equal(counted.code, 0, counted.stderr);
    assert.match(counted.stdout, /approval of rollout 'web' step 2 recorded as alice/);
    const done = await waitForRollout(ns, 'web', 'Healthy after approval', phase('Healthy'));
    assert.deepEqual(
      done.status?.approvals?.map((r) => [r.by, r.via]),
      [['alice', 'plugin']],
    );
  });
});
