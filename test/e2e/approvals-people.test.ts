// Approvals count people, and only in the wait they were given in (issue 20, H2 and M4), end to
// end: people are client-certificate users of the local control plane, Slack presses are signed
// requests from the Slack double's channel, links come from the controller's own notification,
// and the controller runs with a cluster-wide --approval-people file.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApprovalStep, Rollout, RolloutApproval } from '../../src/api/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import { pollUntil } from '../cluster/poll.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import {
  blockActionsPayload,
  SlackApiDouble,
  signedSlackInteraction,
} from '../fixtures/slack-api-double.ts';
import type { RecordedCall } from '../fixtures/slack-api-double.ts';
import { applyDeployFile, bindApprover } from './support/deploy-files.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { kubectl } from './support/kubectl.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const BIN = join(REPO_ROOT, '.stepwise', 'bin');
const SLACK_TOKEN = 'xoxb-test-0000';
const SLACK_SECRET = 'e2e-slack-signing-secret';
const SIGNING_KEY = Buffer.alloc(32, 43);
const NOTIFY = {
  'notifications.stepwise.dev/webhook': 'audit',
  'notifications.stepwise.dev/slack-channel': 'C0RELEASE',
};
const kubeconfigs: Record<string, string> = {};
const users: Record<string, KubeHttp> = {};
let controller: ControllerProcess;
let slack: SlackApiDouble;
let external = '';

const pluginAs = (user: string, args: string[]) =>
  kubectl(['stepwise', ...args], {
    env: { KUBECONFIG: kubeconfigs[user], PATH: `${BIN}:${process.env.PATH ?? ''}` },
  });

/** A RolloutApproval created as `user` (the identity policy checks it is them). */
async function approveAs(user: string, ns: string, r: Rollout): Promise<RolloutApproval> {
  const body: RolloutApproval = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: { generateName: 'web-' },
    spec: {
      rolloutName: 'web',
      revision: r.status?.currentPodHash ?? '',
      step: 1,
      decision: 'Approve',
      approver: user,
    },
  };
  const who = users[user];
  if (who === undefined) throw new Error(`no user ${user}`);
  const created = await who.json<RolloutApproval>(
    'POST',
    `${GROUP}/namespaces/${ns}/rolloutapprovals`,
    body,
  );
  const name = created.metadata.name ?? '';
  return pollUntil(
    `RolloutApproval ${name} answered`,
    async () => {
      const a = await http.json<RolloutApproval>(
        'GET',
        `${GROUP}/namespaces/${ns}/rolloutapprovals/${name}`,
      );
      return a.status?.phase !== undefined ? a : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

const awaiting = (r: Rollout): boolean =>
  r.status?.phase === 'Paused' && r.status.message === 'AwaitingApproval';

/** A Rollout of 4 pods whose second revision waits at an approval step (index 1). */
async function waitingRollout(ns: string, approval: ApprovalStep): Promise<Rollout> {
  const body = rolloutBody('web', {
    strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
  });
  body.metadata.annotations = NOTIFY;
  await createRollout(ns, body);
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  return waitForRollout(ns, 'web', 'awaiting approval', awaiting);
}

const pausedMessage = (r: Rollout) =>
  r.status?.conditions?.find((c) => c.type === 'Paused')?.message ?? '';

/** The calls to the Slack double matching `pred`, once there are `count` (no polling). */
async function calls(
  what: string,
  count: number,
  pred: (c: RecordedCall) => boolean,
): Promise<RecordedCall[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = slack.calls.filter(pred);
    if (found.length >= count) return found;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`fewer than ${count} ${what} in 30 s`);
    await Promise.race([
      slack.waitForCalls(slack.calls.length + 1),
      new Promise((r) => setTimeout(r, left)),
    ]);
  }
}

interface Asked {
  readonly approveUrl?: string | null;
  readonly rejectUrl?: string | null;
}

/** The links of the `n`th awaiting-approval webhook about `ns`. */
async function asked(ns: string, n = 1): Promise<Asked> {
  const found = await calls(`awaiting-approval webhooks about ${ns}`, n, (c) => {
    const b = c.body as { kind?: string; rollout?: { namespace?: string } };
    return (
      c.path === '/hook/audit' && b.kind === 'awaiting-approval' && b.rollout?.namespace === ns
    );
  });
  const body = found[n - 1]?.body as { approval?: Asked };
  if (body.approval === undefined) throw new Error('no approval in the webhook');
  return body.approval;
}

/** The Approve button's token of the first approval message posted to Slack about `ns`. */
async function approveButton(ns: string): Promise<string> {
  const [posted] = await calls(
    `approval messages about ${ns}`,
    1,
    (c) =>
      c.path === '/api/chat.postMessage' &&
      JSON.stringify(c.body).includes(ns) &&
      JSON.stringify(c.body).includes('stepwise_approve'),
  );
  type Block = { elements?: { action_id?: string; value?: string }[] };
  const blocks = (posted?.body as { blocks?: Block[] }).blocks ?? [];
  const value = blocks
    .flatMap((b) => b.elements ?? [])
    .find((e) => e.action_id === 'stepwise_approve')?.value;
  if (!value) throw new Error(`no Approve button in ${JSON.stringify(blocks)}`);
  return value;
}

function pressApprove(userId: string, token: string): Promise<Response> {
  const req = signedSlackInteraction(
    blockActionsPayload({
      userId,
      actionId: 'stepwise_approve',
      value: token,
      channelId: 'C0RELEASE',
    }),
    SLACK_SECRET,
    Math.floor(Date.now() / 1000),
  );
  return fetch(`${external}/slack/interactions`, {
    method: 'POST',
    headers: req.headers,
    body: req.body,
  });
}

const post = (url: string) => fetch(url, { method: 'POST' });

before(async () => {
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await installCrds();
  await applyDeployFile('approvals/identity-policy.yaml');
  await applyDeployFile('rbac/rbac.yaml');
  for (const user of ['alice', 'dave']) {
    kubeconfigs[user] = await userKubeconfig(user);
    users[user] = new KubeHttp(readCredentials(kubeconfigs[user] ?? ''));
  }
  const policyNs = await testNamespace('people-policy');
  await bindApprover(policyNs, 'alice');
  await pollUntil(
    'the identity policy to be enforced',
    async () => {
      const res = await users.alice?.request(
        'POST',
        `${GROUP}/namespaces/${policyNs}/rolloutapprovals`,
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'RolloutApproval',
          metadata: { generateName: 'x-' },
          spec: {
            rolloutName: 'x',
            revision: 'h',
            step: 0,
            decision: 'Approve',
            approver: 'mallory',
          },
        },
      );
      return res?.status === 403 ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  slack = await SlackApiDouble.start({ token: SLACK_TOKEN, channels: ['C0RELEASE'] });
  const system = await testNamespace('stepwise-system');
  await http.json('POST', `/api/v1/namespaces/${system}/secrets`, {
    metadata: { name: 'notify' },
    data: { 'approval-signing-key': SIGNING_KEY.toString('base64') },
    stringData: {
      'slack-token': SLACK_TOKEN,
      'slack-signing-secret': SLACK_SECRET,
      'webhook-audit-url': slack.hookUrl('audit'),
    },
  });
  const dir = await mkdtemp(join(tmpdir(), 'stepwise-people-'));
  const peopleFile = join(dir, 'people.yaml');
  await writeFile(peopleFile, '- name: alice\n  kubeUser: alice\n  slackUser: U0ALICE1\n');
  const { port } = await freeLoopbackPorts(['port']);
  external = `http://127.0.0.1:${port}`;
  controller = await startController({
    args: [
      '--leader-elect=false',
      `--external-bind-address=127.0.0.1:${port}`,
      `--public-url=${external}`,
      `--notifications-secret=${system}/notify`,
      `--slack-api-url=${slack.apiUrl}`,
      `--approval-people=${peopleFile}`,
    ],
  });
});
after(async () => {
  await controller?.kill();
  await slack?.close();
});

describe('approvals count people (H2)', () => {
  it('alice with kubectl and again in Slack under her mapped Slack user stays at 1 of 2', async () => {
    const ns = await testNamespace('people-one');
    for (const user of ['alice', 'dave']) await bindApprover(ns, user);
    const waiting = await waitingRollout(ns, {
      minApprovals: 2,
      approvers: { users: ['alice', 'dave'], slackUsers: ['U0ALICE1'] },
    });
    const byKubectl = await approveAs('alice', ns, waiting);
    assert.equal(byKubectl.status?.phase, 'Recorded', byKubectl.status?.message);
    const inSlack = await pressApprove('U0ALICE1', await approveButton(ns));
    assert.equal(inSlack.status, 200);
    assert.match(
      await inSlack.text(),
      /U0ALICE1 \(alice\) already decided Approve .* via plugin \(AlreadyDecided\)/,
    );

    const still = await waitForRollout(ns, 'web', '1 of 2', (r) =>
      pausedMessage(r).endsWith('(1 of 2)'),
    );
    assert.deepEqual(
      still.status?.approvals?.map((r) => [r.by, r.via, r.person]),
      [['alice', 'plugin', 'alice']],
    );
    const shown = await pluginAs('alice', ['get', 'rollout', 'web', '-n', ns]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /Awaiting:\s+step 2\/3: 1 of 2 from/);

    assert.equal((await approveAs('dave', ns, waiting)).status?.phase, 'Recorded');
    await waitForRollout(ns, 'web', 'Healthy after a second person', phase('Healthy'));
  });

  it('anyone mode: a Slack press and the link of the same message stay at 1 of 2', async () => {
    const ns = await testNamespace('people-link');
    await waitingRollout(ns, { minApprovals: 2 });
    const request = await asked(ns);
    const token = await approveButton(ns);
    assert.ok(request.approveUrl?.endsWith(`/approvals/${token}`), 'the link is the button token');
    assert.equal((await pressApprove('U0BOB', token)).status, 200);
    const link = await post(request.approveUrl ?? '');
    assert.equal(link.status, 200, await link.text());

    const still = await waitForRollout(
      ns,
      'web',
      'both recorded, one counted',
      (r) => (r.status?.approvals?.length ?? 0) === 2 && pausedMessage(r).endsWith('(1 of 2)'),
    );
    assert.deepEqual(
      still.status?.approvals?.map((r) => r.via),
      ['slack', 'link'],
    );
    assert.equal((await pressApprove('U0CAROL', token)).status, 200);
    await waitForRollout(ns, 'web', 'Healthy after a second person', phase('Healthy'));
  });
});

describe('only the current wait counts (M4)', () => {
  it('after a rejection and retry: the old rejection does not abort again, the old link is refused (EarlierWait)', async () => {
    const ns = await testNamespace('people-retry');
    const first = await waitingRollout(ns, {});
    const wait1 = await asked(ns, 1);
    const rejected = await post(wait1.rejectUrl ?? '');
    assert.equal(rejected.status, 200, await rejected.text());
    await waitForRollout(
      ns,
      'web',
      'aborted',
      (r) => r.status?.abort === true && r.status.phase === 'Degraded',
    );

    await patchStatus(ns, 'web', { abort: false });
    const again = await waitForRollout(ns, 'web', 'a new wait', (r) => {
      const start = r.status?.pauseConditions?.find(
        (c) => c.reason === 'AwaitingApproval',
      )?.startTime;
      return (
        awaiting(r) &&
        start !== undefined &&
        start !== first.status?.pauseConditions?.[0]?.startTime
      );
    });
    assert.equal(again.status?.abort, false, 'the earlier rejection did not abort again');
    assert.match(pausedMessage(again), /\(0 of 1\)$/);

    const old = await post(wait1.approveUrl ?? '');
    assert.equal(old.status, 409);
    assert.match(await old.text(), /issued for an earlier wait at this step.*\(EarlierWait\)/);
    const wait2 = await asked(ns, 2);
    assert.equal((await post(wait2.approveUrl ?? '')).status, 200);
    await waitForRollout(ns, 'web', 'Healthy after the new link', phase('Healthy'));
  });

  it('a rollback to an approved revision asks again', async () => {
    const ns = await testNamespace('people-rollback');
    await bindApprover(ns, 'alice');
    const two = await waitingRollout(ns, { approvers: { users: ['alice'] } });
    await approveAs('alice', ns, two);
    await waitForRollout(ns, 'web', 'app:2 Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:3');
    const three = await waitForRollout(ns, 'web', 'app:3 awaiting', awaiting);
    await approveAs('alice', ns, three);
    await waitForRollout(
      ns,
      'web',
      'app:3 Healthy',
      (r) => r.status?.phase === 'Healthy' && r.status.stableRS === three.status?.currentPodHash,
    );
    await setImage(ns, 'web', 'app:2');
    const back = await waitForRollout(ns, 'web', 'app:2 awaiting again', awaiting);
    assert.equal(back.status?.currentPodHash, two.status?.currentPodHash, 'the same revision');
    assert.match(pausedMessage(back), /\(0 of 1\)$/);
    assert.ok(
      (back.status?.approvals ?? []).some((r) => r.revision === two.status?.currentPodHash),
      'its old approval is still on record, and does not count',
    );
  });
});
