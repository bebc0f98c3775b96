// Status patch rights do not approve (issue 20, H1): the API server's status policy
// (deploy/approvals/status-policy.yaml) refuses a user bound to `edit` every status change that
// records or removes a decision or moves a Rollout past an approval step, while the plugin's
// promote, abort, retry and pause keep working for them where no approval is pending. The
// controller runs as a user holding only deploy/rbac's controller roles, so its own writes pass
// by the custom verb record-approvals, not by cluster-admin. Break-glass goes through a
// RolloutApproval with decision Override, recorded with the user's name.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApprovalRecord, Rollout, RolloutApproval } from '../../src/api/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { pollUntil } from '../cluster/poll.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { untilAllowed, type ResourceAttributes } from './support/access.ts';
import { applyDeployFile } from './support/deploy-files.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { kubectl } from './support/kubectl.ts';
import {
  createRollout,
  createService,
  events,
  getService,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const BIN = join(REPO_ROOT, '.stepwise', 'bin');
const CONTROLLER_USER = 'stepwise-controller-e2e';
const kubeconfigs: Record<string, string> = {};
const people: Record<string, KubeHttp> = {};
let controller: ControllerProcess;

/** `kubectl stepwise ARGS` as `user`, through kubectl's plugin mechanism. */
const pluginAs = (user: string, args: string[]) =>
  kubectl(['stepwise', ...args], {
    env: { KUBECONFIG: kubeconfigs[user], PATH: `${BIN}:${process.env.PATH ?? ''}` },
  });

const subject = (user: string) => ({
  apiGroup: 'rbac.authorization.k8s.io',
  kind: 'User',
  name: user,
});

async function bindCluster(role: string, user: string): Promise<void> {
  await http.json(
    'PATCH',
    `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}-e2e?fieldManager=stepwise-tests&force=true`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${role}-e2e` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [subject(user)],
    },
    'application/apply-patch+yaml',
  );
}

/** A right each role bound here grants, asked of the authorizer until the binding counts. */
const GRANTS: Readonly<Record<string, Omit<ResourceAttributes, 'namespace'>>> = {
  edit: { group: '', resource: 'configmaps', verb: 'create' },
  'stepwise-approver': { group: 'stepwise.dev', resource: 'rolloutapprovals', verb: 'create' },
  'stepwise-break-glass': { group: 'stepwise.dev', resource: 'rollouts', verb: 'break-glass' },
};

/** Binds `role` to `user` in `ns` and returns once the API server's authorizer applies it (its
 *  RBAC cache follows a new binding a moment later; under load, after the next request). */
async function bind(ns: string, role: string, user: string): Promise<void> {
  const grant = GRANTS[role];
  if (grant === undefined) throw new Error(`bind: no right known to wait for in ${role}`);
  await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    metadata: { name: `${role}-${user}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [subject(user)],
  });
  await untilAllowed(user, { ...grant, namespace: ns });
}

function person(name: string): KubeHttp {
  const who = people[name];
  if (who === undefined) throw new Error(`no credentials for ${name}`);
  return who;
}

/** A merge patch of `status` as `who`; the raw answer, so refusals can be read. */
function patchStatusAs(who: string, ns: string, status: object) {
  return person(who).request(
    'PATCH',
    `${GROUP}/namespaces/${ns}/rollouts/web/status`,
    { status },
    'application/merge-patch+json',
  );
}

function approvalBody(
  revision: string,
  step: number,
  approver: string,
  decision: RolloutApproval['spec']['decision'],
): RolloutApproval {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: { generateName: 'web-' },
    spec: { rolloutName: 'web', revision, step, decision, approver },
  };
}

/** A Rollout of 4 pods whose second revision waits at an approval step (index 1) for alice. */
async function waitingRollout(ns: string): Promise<Rollout> {
  const body = rolloutBody('web', {
    strategy: {
      canary: {
        steps: [
          { setWeight: 25 },
          { approval: { approvers: { users: ['alice'] } } },
          { setWeight: 50 },
        ],
      },
    },
  });
  await createRollout(ns, body);
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  return waitForRollout(
    ns,
    'web',
    'awaiting approval at step 2',
    phase('Paused', (r) => r.status?.message === 'AwaitingApproval'),
  );
}

/** A namespace where eve holds `edit` (stepwise-operator aggregated in), once RBAC says so. */
async function editorNamespace(prefix: string): Promise<string> {
  const ns = await testNamespace(prefix);
  await bind(ns, 'edit', 'eve');
  return ns;
}

before(async () => {
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await installCrds();
  await applyDeployFile('approvals/identity-policy.yaml');
  await applyDeployFile('approvals/status-policy.yaml');
  await applyDeployFile('rbac/rbac.yaml');
  for (const user of ['eve', 'alice', 'mallory', 'oncall', CONTROLLER_USER]) {
    kubeconfigs[user] = await userKubeconfig(user);
    people[user] = new KubeHttp(readCredentials(kubeconfigs[user]));
  }
  // The controller as deploy/rbac makes it, not as cluster-admin.
  await bindCluster('stepwise-controller', CONTROLLER_USER);
  await bindCluster('stepwise-controller-record-approvals', CONTROLLER_USER);
  controller = await startController({
    args: ['--leader-elect=false'],
    env: { KUBECONFIG: kubeconfigs[CONTROLLER_USER] },
  });
  // Aggregation into `edit` and the new policy's compilation happen in the background: wait
  // until eve's forged record is refused by the policy, not by RBAC. A dry run, so that an attempt
  // made before the policy is enforced changes nothing (a record written then would make every
  // later attempt an unchanged list, which the policy allows).
  const ns = await editorNamespace('status-gate-ready');
  await createRollout(ns, rolloutBody('web'));
  const forged = { step: 0, revision: 'h', decision: 'Approve', by: 'eve', via: 'plugin' };
  await pollUntil(
    'the status policy to be enforced for an editor',
    async () => {
      const res = await person('eve').request(
        'PATCH',
        `${GROUP}/namespaces/${ns}/rollouts/web/status?dryRun=All`,
        { status: { approvals: [{ ...forged, at: new Date().toISOString() }] } },
        'application/merge-patch+json',
      );
      if (res.status === 403 && res.body.includes('approvals-controller-only')) return true;
      throw new Error(`last answer ${res.status}: ${res.body.slice(0, 300)}`);
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
});
after(async () => {
  await controller?.kill();
});

describe('a user bound to edit cannot approve through rollouts/status', () => {
  it('refuses a record, promoteFull, a later step index, removing the pause and stableRS, naming the rule', async () => {
    const ns = await editorNamespace('status-gate');
    const waiting = await waitingRollout(ns);
    const hash = waiting.status?.currentPodHash ?? '';
    const forged: ApprovalRecord = {
      step: 1,
      revision: hash,
      decision: 'Approve',
      by: 'alice',
      via: 'plugin',
      at: '2026-12-05T00:00:00Z',
      ref: 'RolloutApproval/forged',
    };
    const attempts: [string, object, RegExp][] = [
      ['add a record', { approvals: [forged] }, /rule approvals-controller-only/],
      ['promoteFull', { promoteFull: true }, /rule promote-full-skips-approval/],
      ['step index past the approval', { currentStepIndex: 2 }, /rule step-index-past-approval/],
      [
        'remove the AwaitingApproval pause',
        { pauseConditions: null },
        /rule awaiting-approval-kept/,
      ],
      ['stableRS set to the canary', { stableRS: hash }, /rule controller-fields/],
    ];
    for (const [what, status, rule] of attempts) {
      const res = await patchStatusAs('eve', ns, status);
      assert.equal(res.status, 403, `${what}: ${res.body}`);
      assert.match(res.body, rule, what);
      assert.match(res.body, /stepwise-rollout-status-gate/, what);
    }
    // The plugin says the same before asking: --full no longer skips approvals.
    const full = await pluginAs('eve', ['promote', 'web', '--full', '-n', ns]);
    assert.equal(full.code, 1, full.stdout);
    assert.match(full.stderr, /has an approval step ahead \(step 2\)/);
    // A pause of eve's own is still hers to add and take back; the wait is untouched.
    const paused = await pluginAs('eve', ['pause', 'web', '-n', ns]);
    assert.equal(paused.code, 0, paused.stderr);
    const resumed = await pluginAs('eve', ['resume', 'web', '-n', ns]);
    assert.equal(resumed.code, 0, resumed.stderr);

    const still = await waitForRollout(ns, 'web', 'still waiting', phase('Paused'));
    assert.equal(still.status?.currentStepIndex, 1);
    assert.equal(still.status?.approvals, undefined);
    assert.ok(still.status?.pauseConditions?.some((c) => c.reason === 'AwaitingApproval'));

    // alice approves; the controller (record-approvals, not cluster-admin) records it and goes on.
    await bind(ns, 'stepwise-approver', 'alice');
    const approve = await pluginAs('alice', ['approve', 'web', '-n', ns]);
    assert.equal(approve.code, 0, approve.stderr);
    const done = await waitForRollout(ns, 'web', 'Healthy after approval', phase('Healthy'));
    assert.equal(done.status?.stableRS, hash);
    const records = done.status?.approvals ?? [];
    assert.deepEqual(
      records.map((r) => [r.by, r.decision]),
      [['alice', 'Approve']],
    );
    // The record is the controller's: eve can neither change nor remove it.
    const changed = await patchStatusAs('eve', ns, {
      approvals: records.map((r) => ({ ...r, by: 'mallory' })),
    });
    assert.equal(changed.status, 403, changed.body);
    assert.match(changed.body, /rule approvals-controller-only/);
    const removed = await patchStatusAs('eve', ns, { approvals: null });
    assert.equal(removed.status, 403, removed.body);
    assert.match(removed.body, /rule approvals-controller-only/);
  });
});

describe('where no approval is pending, the plugin works for an editor', () => {
  it('pause, resume, promote, abort, retry and promote --full, as eve', async () => {
    const ns = await editorNamespace('status-gate-plugin');
    await createRollout(
      ns,
      rolloutBody('web', {
        strategy: {
          canary: { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }] },
        },
      }),
    );
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    const atPause = (index: number) =>
      waitForRollout(
        ns,
        'web',
        `paused at step ${index + 1}`,
        phase('Paused', (r) => r.status?.currentStepIndex === index),
      );
    await atPause(1);
    const as = async (...args: string[]) => {
      const run = await pluginAs('eve', [...args, '-n', ns]);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      return run.stdout;
    };
    assert.match(await as('pause', 'web'), /paused/);
    assert.match(await as('resume', 'web'), /resumed/);
    assert.match(await as('promote', 'web'), /promoted/);
    await atPause(3);
    assert.match(await as('abort', 'web'), /aborted/);
    await waitForRollout(ns, 'web', 'aborted', phase('Degraded'));
    assert.match(await as('retry', 'rollout', 'web'), /retried/);
    await atPause(1);
    assert.match(await as('promote', 'web', '--full'), /fully promoted/);
    const done = await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    assert.equal(done.status?.stableRS, done.status?.currentPodHash);
  });
});

describe('break-glass', () => {
  it('an Override needs the break-glass right; its use is recorded and announced with the user', async () => {
    const ns = await editorNamespace('status-gate-break-glass');
    await bind(ns, 'stepwise-approver', 'mallory');
    await bind(ns, 'stepwise-break-glass', 'oncall');
    const waiting = await waitingRollout(ns);
    const hash = waiting.status?.currentPodHash ?? '';

    // mallory may create RolloutApprovals, but not an Override.
    const refused = await person('mallory').request(
      'POST',
      `${GROUP}/namespaces/${ns}/rolloutapprovals`,
      approvalBody(hash, 1, 'mallory', 'Override'),
    );
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.body, /rule override-needs-break-glass/);
    const viaPlugin = await pluginAs('mallory', ['approve', 'web', '--break-glass', '-n', ns]);
    assert.equal(viaPlugin.code, 1);
    assert.match(viaPlugin.stderr, /admission policy stepwise-rolloutapproval-break-glass/);
    // Nor does break-glass let oncall approve as someone else (the identity policy).
    const asAlice = await person('oncall').request(
      'POST',
      `${GROUP}/namespaces/${ns}/rolloutapprovals`,
      approvalBody(hash, 1, 'alice', 'Override'),
    );
    assert.equal(asAlice.status, 403, asAlice.body);

    const run = await pluginAs('oncall', [
      'approve',
      'web',
      '--break-glass',
      '--comment',
      'hotfix for the outage',
      '-n',
      ns,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /break-glass override of rollout 'web' step 2 recorded as oncall/);
    const done = await waitForRollout(ns, 'web', 'Healthy after the override', phase('Healthy'));
    assert.deepEqual(
      (done.status?.approvals ?? []).map((r) => [r.decision, r.by, r.step, r.revision, r.comment]),
      [['Override', 'oncall', 1, hash, 'hotfix for the outage']],
    );
    await waitForEvents(ns, ['ApprovalOverridden']);
    const overridden = (await events(ns)).find((e) => e.reason === 'ApprovalOverridden');
    assert.match(
      overridden?.message ?? '',
      /Approval overridden \(break-glass\) by oncall via plugin at step 2 of revision/,
    );
  });
});

describe('blue-green: the approval gate before the switch', () => {
  it('an editor can neither skip it nor step past it; alice passes it and the active Service switches', async () => {
    const ns = await editorNamespace('status-gate-bg');
    await createService(ns, 'web-active', 'web');
    await createService(ns, 'web-preview', 'web');
    await createRollout(
      ns,
      rolloutBody('web', {
        replicas: 2,
        strategy: {
          blueGreen: {
            activeService: 'web-active',
            previewService: 'web-preview',
            approval: { approvers: { users: ['alice'] } },
          },
        },
      }),
    );
    const first = await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    const waiting = await waitForRollout(
      ns,
      'web',
      'awaiting approval of the switch',
      phase('Paused', (r) => r.status?.message === 'AwaitingApproval'),
    );
    const hash = waiting.status?.currentPodHash ?? '';
    assert.equal(waiting.status?.currentStepIndex, 0);
    const attempts: [string, object, RegExp][] = [
      ['promoteFull', { promoteFull: true }, /rule promote-full-skips-approval/],
      ['step index past the gate', { currentStepIndex: 1 }, /rule step-index-past-approval/],
      [
        'remove the AwaitingApproval pause',
        { pauseConditions: null },
        /rule awaiting-approval-kept/,
      ],
    ];
    for (const [what, status, rule] of attempts) {
      const res = await patchStatusAs('eve', ns, status);
      assert.equal(res.status, 403, `${what}: ${res.body}`);
      assert.match(res.body, rule, what);
    }
    const active = await getService(ns, 'web-active');
    assert.equal(active.spec?.selector?.['rollouts-pod-template-hash'], first.status?.stableRS);

    await bind(ns, 'stepwise-approver', 'alice');
    const created = await person('alice').request(
      'POST',
      `${GROUP}/namespaces/${ns}/rolloutapprovals`,
      approvalBody(hash, 0, 'alice', 'Approve'),
    );
    assert.equal(created.status, 201, created.body);
    const done = await waitForRollout(ns, 'web', 'Healthy after approval', phase('Healthy'));
    assert.equal(done.status?.stableRS, hash);
    assert.deepEqual(
      (done.status?.approvals ?? []).map((r) => [r.by, r.decision, r.step]),
      [['alice', 'Approve', 0]],
    );
    const switched = await getService(ns, 'web-active');
    assert.equal(switched.spec?.selector?.['rollouts-pod-template-hash'], hash);
  });
});
