// Approval steps end to end: people are client-certificate users of the local control plane,
// the API server's admission policy (deploy/approvals) refuses a RolloutApproval that claims to
// be someone else, RBAC (deploy/rbac: stepwise-approver) lets people approve without editing
// Rollouts, and the controller records, refuses, times out and aborts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApprovalStep, Rollout, RolloutApproval } from '../../src/api/index.ts';
import { newTokenId, signApprovalToken } from '../../src/approval/index.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import {
  blockActionsPayload,
  SlackApiDouble,
  signedSlackInteraction,
} from '../fixtures/slack-api-double.ts';
import type { RecordedCall } from '../fixtures/slack-api-double.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { pollUntil } from '../cluster/poll.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { applyDeployFile, bindApprover } from './support/deploy-files.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { neverReadyTemplate, QUIET_WINDOW_MS } from './support/faults.ts';
import { kubectl } from './support/kubectl.ts';
import {
  createRollout,
  events,
  http,
  installCrds,
  patchSpec,
  phase,
  rolloutBody,
  setImage,
  split,
  waitFor,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const GROUP = '/apis/stepwise.dev/v1alpha1';
const BIN = join(REPO_ROOT, '.stepwise', 'bin');
const kubeconfigs: Record<string, string> = {};

/** `kubectl stepwise ARGS` as `user` (their own client certificate), through kubectl's plugin
 *  mechanism (.stepwise/bin first on PATH; `make plugin` writes the shim). */
const pluginAs = (user: string, args: string[]) =>
  kubectl(['stepwise', ...args], {
    env: { KUBECONFIG: kubeconfigs[user], PATH: `${BIN}:${process.env.PATH ?? ''}` },
  });
const SLACK_TOKEN = 'xoxb-test-0000';
const SLACK_SECRET = 'e2e-slack-signing-secret';
const SIGNING_KEY = Buffer.alloc(32, 42);
let controller: ControllerProcess;
let slack: SlackApiDouble;
let external = '';
const people: Record<'alice' | 'bob' | 'carol', KubeHttp> = {} as never;

function approvalBody(
  rollout: string,
  revision: string,
  step: number,
  approver: string,
  extra: Partial<RolloutApproval['spec']> = {},
): RolloutApproval {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: { generateName: `${rollout}-` },
    spec: { rolloutName: rollout, revision, step, decision: 'Approve', approver, ...extra },
  };
}

/** Creates a RolloutApproval as `who`; the raw answer, so refusals can be read. */
function create(who: KubeHttp, ns: string, body: RolloutApproval) {
  return who.request('POST', `${GROUP}/namespaces/${ns}/rolloutapprovals`, body);
}

function answered(ns: string, name: string): Promise<RolloutApproval> {
  return waitFor(
    `RolloutApproval ${name} answered`,
    `${GROUP}/namespaces/${ns}/rolloutapprovals`,
    name,
    (a: RolloutApproval) => a.status?.phase !== undefined,
  );
}

/** A Rollout of 4 pods whose second revision waits at an approval step (index 1). */
async function waitingRollout(
  ns: string,
  approval: ApprovalStep,
  annotations: Record<string, string> = {},
) {
  const body = rolloutBody('web', {
    strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
  });
  body.metadata.annotations = annotations;
  await createRollout(ns, body);
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  return waitForRollout(
    ns,
    'web',
    'awaiting approval at step 1',
    phase('Paused', (r) => r.status?.message === 'AwaitingApproval'),
  );
}

before(async () => {
  // helm.test.ts uninstalls what these two files apply: the two never run at once.
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await installCrds();
  await applyDeployFile('approvals/identity-policy.yaml');
  await applyDeployFile('approvals/status-policy.yaml');
  await applyDeployFile('rbac/rbac.yaml');
  kubeconfigs.alice = await userKubeconfig('alice', ['release']);
  kubeconfigs.bob = await userKubeconfig('bob');
  kubeconfigs.carol = await userKubeconfig('carol');
  kubeconfigs.dave = await userKubeconfig('dave');
  people.alice = new KubeHttp(readCredentials(kubeconfigs.alice));
  people.bob = new KubeHttp(readCredentials(kubeconfigs.bob));
  people.carol = new KubeHttp(readCredentials(kubeconfigs.carol));
  // The API server compiles a new policy in the background: wait until it refuses a forgery.
  const ns = await testNamespace('approval-policy');
  await bindApprover(ns, 'alice');
  await pollUntil(
    'the identity policy to be enforced',
    async () => {
      const res = await create(people.alice, `${ns}`, approvalBody('any', 'h', 0, 'someone-else'));
      return res.status === 403 ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  // The notification Secret, a Slack API double, and the external port people reach.
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
  const { port } = await freeLoopbackPorts(['port']);
  external = `http://127.0.0.1:${port}`;
  controller = await startController({
    args: [
      '--leader-elect=false',
      `--external-bind-address=127.0.0.1:${port}`,
      `--public-url=${external}`,
      `--notifications-secret=${system}/notify`,
      `--slack-api-url=${slack.apiUrl}`,
    ],
  });
});
after(async () => {
  await controller?.kill();
  await slack?.close();
});

const NOTIFY = {
  'notifications.stepwise.dev/webhook': 'audit',
  'notifications.stepwise.dev/slack-channel': 'C0RELEASE',
};

interface HookBody {
  kind: string;
  rollout: { namespace: string; name: string };
  approval?: { approveUrl?: string; rejectUrl?: string } | null;
}

/** The first call to the Slack double matching `pred` (calls wake the waiter; no polling). */
async function call(what: string, pred: (c: RecordedCall) => boolean): Promise<RecordedCall> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = slack.calls.find(pred);
    if (found) return found;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new Error(`no ${what} in 30 s; calls: ${slack.calls.map((c) => c.path).join(' ')}`);
    await Promise.race([
      slack.waitForCalls(slack.calls.length + 1),
      new Promise((r) => setTimeout(r, left)),
    ]);
  }
}

/** The generic webhook call of `kind` about `ns/web`. */
async function hook(ns: string, kind: string): Promise<HookBody> {
  const found = await call(`webhook ${kind}`, (c) => {
    const b = c.body as HookBody;
    return c.path === '/hook/audit' && b.kind === kind && b.rollout?.namespace === ns;
  });
  return found.body as HookBody;
}

const about = (c: RecordedCall, ns: string, path: string): boolean =>
  c.path === path && JSON.stringify(c.body).includes(ns);

/** The awaiting-approval message posted to Slack about `ns` (its buttons carry the tokens). */
async function approvalPost(ns: string): Promise<{ blocks: unknown }> {
  const posted = await call(
    'approval message',
    (c) =>
      about(c, ns, '/api/chat.postMessage') && JSON.stringify(c.body).includes('stepwise_approve'),
  );
  return posted.body as { blocks: unknown };
}

/** The chat.update that closed the approval message about `ns`. */
async function approvalClosed(ns: string): Promise<RecordedCall> {
  return call('approval message update', (c) => about(c, ns, '/api/chat.update'));
}

function buttonValue(blocks: unknown, actionId: string): string {
  type Block = { elements?: { action_id?: string; value?: string }[] };
  const buttons = (blocks as Block[]).flatMap((b) => b.elements ?? []);
  const value = buttons.find((e) => e.action_id === actionId)?.value;
  if (!value) throw new Error(`no ${actionId} button in ${JSON.stringify(blocks)}`);
  return value;
}

function pressButton(userId: string, actionId: string, value: string) {
  const req = signedSlackInteraction(
    blockActionsPayload({ userId, actionId, value, channelId: 'C0RELEASE' }),
    SLACK_SECRET,
    Math.floor(Date.now() / 1000),
  );
  return fetch(`${external}/slack/interactions`, {
    method: 'POST',
    headers: req.headers,
    body: req.body,
  });
}

/** When the Rollout's current wait for approval began: links are bound to it. */
const waitStartOf = (r: Rollout): number =>
  Date.parse(
    r.status?.pauseConditions?.find((c) => c.reason === 'AwaitingApproval')?.startTime ?? '',
  );

describe('who may approve is the API server’s business', () => {
  it('an approver approves without rights to edit Rollouts; forgeries and strangers are refused', async () => {
    const ns = await testNamespace('approve');
    await bindApprover(ns, 'alice');
    const waiting = await waitingRollout(ns, { approvers: { users: ['alice'] } });
    const hash = waiting.status?.currentPodHash ?? '';
    assert.deepEqual(await split(ns, waiting), [1, 3]);

    // alice cannot promote (status is not hers to write) nor edit the Rollout.
    const promote = await people.alice.request(
      'PATCH',
      `${GROUP}/namespaces/${ns}/rollouts/web/status`,
      { status: { pauseConditions: null } },
      'application/merge-patch+json',
    );
    assert.equal(promote.status, 403);

    // A forged approver is refused by the API server, not by the controller.
    const forged = await create(people.alice, ns, approvalBody('web', hash, 1, 'bob'));
    assert.equal(forged.status, 403, forged.body);
    assert.match(forged.body, /spec\.approver must be the requesting user \\"alice\\"/);
    const forgedGroup = await create(
      people.alice,
      ns,
      approvalBody('web', hash, 1, 'alice', { approverGroups: ['system:masters'] }),
    );
    assert.equal(forgedGroup.status, 403);
    assert.match(forgedGroup.body, /approverGroups must list only groups of/);

    // bob has no approver role at all.
    const stranger = await create(people.bob, ns, approvalBody('web', hash, 1, 'bob'));
    assert.equal(stranger.status, 403);
    assert.match(stranger.body, /cannot create resource \\"rolloutapprovals\\"/);

    const ok = await create(
      people.alice,
      ns,
      approvalBody('web', hash, 1, 'alice', { comment: 'error rate flat' }),
    );
    assert.equal(ok.status, 201, ok.body);
    const name = (JSON.parse(ok.body) as RolloutApproval).metadata.name ?? '';
    const answer = await answered(ns, name);
    assert.equal(answer.status?.phase, 'Recorded');
    const done = await waitForRollout(ns, 'web', 'Healthy after approval', phase('Healthy'));
    assert.equal(done.status?.stableRS, hash);
    const [record] = done.status?.approvals ?? [];
    assert.equal(record?.by, 'alice');
    assert.equal(record?.via, 'plugin');
    assert.equal(record?.revision, hash);
    assert.equal(record?.step, 1);
    assert.equal(record?.comment, 'error rate flat');
    await waitForEvents(ns, ['ApprovalRequested', 'ApprovalRecorded']);
    const recorded = (await events(ns)).find((e) => e.reason === 'ApprovalRecorded');
    assert.match(recorded?.message ?? '', /Approved by alice via plugin at step 2 of revision/);
  });

  it('someone RBAC lets in but the step does not name is refused with a reason', async () => {
    const ns = await testNamespace('approve-refused');
    await bindApprover(ns, 'carol');
    const waiting = await waitingRollout(ns, { approvers: { users: ['alice'] } });
    const hash = waiting.status?.currentPodHash ?? '';
    const res = await create(people.carol, ns, approvalBody('web', hash, 1, 'carol'));
    assert.equal(res.status, 201, res.body);
    const answer = await answered(
      ns,
      (JSON.parse(res.body) as RolloutApproval).metadata.name ?? '',
    );
    assert.equal(answer.status?.phase, 'Refused');
    assert.equal(answer.status?.reason, 'NotAnApprover');
    assert.match(answer.status?.message ?? '', /carol is not among the approvers of step 2/);
    await waitForEvents(ns, ['ApprovalRefused']);
    const still = await waitForRollout(ns, 'web', 'still waiting', phase('Paused'));
    assert.equal(still.status?.currentStepIndex, 1);
    assert.equal(still.status?.approvals, undefined);
  });
});

describe('what a decision does', () => {
  it('a rejection aborts: stable back to full size, the reason in the Progressing condition', async () => {
    const ns = await testNamespace('approve-reject');
    await bindApprover(ns, 'alice');
    const waiting = await waitingRollout(ns, {});
    const hash = waiting.status?.currentPodHash ?? '';
    const res = await create(
      people.alice,
      ns,
      approvalBody('web', hash, 1, 'alice', { decision: 'Reject', comment: 'p99 doubled' }),
    );
    assert.equal(res.status, 201, res.body);
    const aborted = await waitForRollout(ns, 'web', 'aborted', phase('Degraded'));
    const progressing = aborted.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'RolloutAborted');
    assert.match(
      progressing?.message ?? '',
      /rejected by alice via plugin at step 2\/3: p99 doubled/,
    );
    await waitForRollout(ns, 'web', 'canary scaled down', (r) => r.status?.updatedReplicas === 0);
  });

  it('the timeout aborts on its own, and says so', async () => {
    const ns = await testNamespace('approve-timeout');
    await waitingRollout(ns, { timeout: '2s' });
    const aborted = await waitForRollout(ns, 'web', 'aborted by the timeout', phase('Degraded'));
    const progressing = aborted.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.match(progressing?.message ?? '', /approval of step 2\/3 timed out after 2s/);
    await waitForEvents(ns, ['ApprovalTimedOut']);
  });

  it('a canary whose pods never become Ready is never put to people; an early approval is refused', async () => {
    const ns = await testNamespace('approve-never-ready');
    await bindApprover(ns, 'alice');
    await createRollout(
      ns,
      rolloutBody('web', {
        progressDeadlineSeconds: 600,
        strategy: { canary: { steps: [{ setWeight: 25 }, { approval: {} }, { setWeight: 50 }] } },
      }),
    );
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    const broken = await patchSpec(ns, 'web', neverReadyTemplate('web'));
    const stuck = await waitForRollout(
      ns,
      'web',
      'canary created, step 0',
      (r) =>
        r.status?.observedGeneration === String(broken.metadata.generation) &&
        r.status.currentPodHash !== r.status.stableRS,
    );
    const hash = stuck.status?.currentPodHash ?? '';
    const res = await create(people.alice, ns, approvalBody('web', hash, 1, 'alice'));
    const answer = await answered(
      ns,
      (JSON.parse(res.body) as RolloutApproval).metadata.name ?? '',
    );
    assert.equal(answer.status?.reason, 'NotAwaitingApproval');
    // Quiet: no approval requested while the canary is not there to judge.
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    const after = (await events(ns)).map((e) => e.reason);
    assert.ok(!after.includes('ApprovalRequested'), after.join(','));
    assert.equal(
      (await waitForRollout(ns, 'web', 'still at step 0', () => true)).status?.currentStepIndex,
      0,
    );
  });
});

describe('from a link or a Slack button, through the external port', () => {
  it('a signed link: GET confirms without acting, POST approves once, the rollout moves on', async () => {
    const ns = await testNamespace('approve-link');
    await waitingRollout(ns, { timeout: '10m', message: 'check the error rate' }, NOTIFY);
    const asked = await hook(ns, 'awaiting-approval');
    const url = asked.approval?.approveUrl ?? '';
    assert.ok(url.startsWith(`${external}/approvals/`), url);

    const page = await fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Approve web\?/);
    assert.match(html, /check the error rate/);
    const still = await waitForRollout(ns, 'web', 'still waiting', phase('Paused'));
    assert.equal(still.status?.approvals, undefined, 'a GET changes nothing');

    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'comment=from+the+link',
    });
    assert.equal(res.status, 200, await res.text());
    const done = await waitForRollout(ns, 'web', 'Healthy after the link', phase('Healthy'));
    const [record] = done.status?.approvals ?? [];
    assert.equal(record?.via, 'link');
    assert.equal(record?.comment, 'from the link');
    assert.match(record?.by ?? '', /^link:/);
    await hook(ns, 'completed');

    const again = await fetch(url, { method: 'POST' });
    assert.equal(again.status, 409, 'single use');
    // The Slack message lost its buttons and says who decided.
    const closed = await approvalClosed(ns);
    assert.ok(!JSON.stringify(closed.body).includes('stepwise_approve'));
    assert.match(JSON.stringify(closed.body), /link:/);
  });

  it('forged and wrong-step tokens are refused by the controller and nothing moves', async () => {
    const ns = await testNamespace('approve-forged');
    const waiting = await waitingRollout(ns, {}, NOTIFY);
    const claims = {
      rolloutUid: waiting.metadata.uid ?? '',
      namespace: ns,
      name: 'web',
      revision: waiting.status?.currentPodHash ?? '',
      step: 1,
      waitStart: waitStartOf(waiting),
      decision: 'Approve' as const,
      expiresAt: Math.floor(Date.now() / 1000) + 600,
      id: newTokenId(),
    };
    const forged = signApprovalToken(claims, Buffer.alloc(32, 1));
    assert.equal((await fetch(`${external}/approvals/${forged}`, { method: 'POST' })).status, 400);
    const wrongStep = signApprovalToken({ ...claims, step: 0 }, SIGNING_KEY);
    const res = await fetch(`${external}/approvals/${wrongStep}`, { method: 'POST' });
    assert.equal(res.status, 409);
    assert.match(
      await res.text(),
      /is for step 1, but rollout &#39;web&#39; waits for approval at step 2/,
    );
    const still = await waitForRollout(ns, 'web', 'still waiting', phase('Paused'));
    assert.equal(still.status?.approvals, undefined);
  });

  it('a Slack button: a user not listed is refused, a listed one approves and the message is closed', async () => {
    const ns = await testNamespace('approve-slack');
    await waitingRollout(ns, { approvers: { slackUsers: ['U0ALICE1'] } }, NOTIFY);
    const asked = await hook(ns, 'awaiting-approval');
    assert.equal(asked.approval?.approveUrl ?? null, null, 'no link: the step names its approvers');
    const posted = await approvalPost(ns);
    const token = buttonValue(posted.blocks, 'stepwise_approve');

    const mallory = await pressButton('U0MALLORY', 'stepwise_approve', token);
    assert.equal(mallory.status, 200);
    assert.match(await mallory.text(), /U0MALLORY is not among the approvers/);
    const unsigned = await fetch(`${external}/slack/interactions`, {
      method: 'POST',
      body: 'payload=%7B%7D',
    });
    assert.equal(unsigned.status, 401);

    const alice = await pressButton('U0ALICE1', 'stepwise_approve', token);
    assert.equal(alice.status, 200);
    const done = await waitForRollout(ns, 'web', 'Healthy after Slack', phase('Healthy'));
    assert.deepEqual(
      done.status?.approvals?.map((r) => [r.by, r.via]),
      [['U0ALICE1', 'slack']],
    );
    const closed = await approvalClosed(ns);
    assert.match(JSON.stringify(closed.body), /U0ALICE1/);
    assert.ok(!JSON.stringify(closed.body).includes('stepwise_approve'));
  });
});

describe('from the plugin, as the people they are', () => {
  it('waits for approval in CI, shows who is asked, and records two people before moving on', async () => {
    const ns = await testNamespace('approve-plugin');
    for (const user of ['alice', 'carol', 'dave']) await bindApprover(ns, user);
    const approval = { minApprovals: 2, approvers: { users: ['alice', 'dave'] }, timeout: '10m' };
    const body = rolloutBody('web', {
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    });
    await createRollout(ns, body);
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    const ci = pluginAs('alice', [
      'status',
      'web',
      '-n',
      ns,
      '--until',
      'awaiting-approval',
      '--timeout',
      '60s',
    ]);
    await setImage(ns, 'web', 'app:2');
    const waited = await ci;
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, /Paused - AwaitingApproval/);

    const shown = await pluginAs('alice', ['get', 'rollout', 'web', '-n', ns]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      /Awaiting:\s+step 2\/3: 0 of 2 from users alice, dave \(\d+m left, then abort\)/,
    );

    const stranger = await pluginAs('bob', ['approve', 'web', '-n', ns]);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /^Error: forbidden: user "bob" cannot get rollouts/);
    const unlisted = await pluginAs('carol', ['approve', 'web', '-n', ns]);
    assert.equal(unlisted.code, 1);
    assert.match(unlisted.stderr, /refused \(NotAnApprover\): carol is not among the approvers/);
    const promote = await pluginAs('alice', ['promote', 'web', '-n', ns]);
    assert.equal(promote.code, 1);
    assert.match(
      promote.stderr,
      /waits for approval at step 2; use 'kubectl stepwise approve web'/,
    );

    const first = await pluginAs('alice', ['approve', 'web', '-n', ns, '-c', 'dashboards flat']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /approval of rollout 'web' step 2 recorded as alice/);
    const twice = await pluginAs('alice', ['approve', 'web', '-n', ns]);
    assert.match(twice.stderr, /refused \(AlreadyDecided\)/);
    const second = await pluginAs('dave', ['approve', 'web', '-n', ns]);
    assert.equal(second.code, 0, second.stderr);
    const done = await waitForRollout(ns, 'web', 'Healthy after two approvals', phase('Healthy'));
    assert.deepEqual(
      done.status?.approvals?.map((r) => [r.by, r.via, r.comment]),
      [
        ['alice', 'plugin', 'dashboards flat'],
        ['dave', 'plugin', undefined],
      ],
    );
    const after = await pluginAs('alice', ['get', 'rollout', 'web', '-n', ns]);
    assert.match(
      after.stdout,
      /Approvals:\s+step 2: approved by alice via plugin at .* — dashboards flat/,
    );
    assert.match(after.stdout, /step 2: approved by dave via plugin/);
  });

  it('reject from the plugin aborts the update', async () => {
    const ns = await testNamespace('reject-plugin');
    await bindApprover(ns, 'alice');
    await waitingRollout(ns, {});
    const r = await pluginAs('alice', ['reject', 'web', '-n', ns, '-c', 'errors up']);
    assert.equal(r.code, 0, r.stderr);
    const aborted = await waitForRollout(ns, 'web', 'aborted', phase('Degraded'));
    assert.match(
      aborted.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '',
      /rejected by alice via plugin at step 2\/3: errors up/,
    );
  });
});

describe('secrets stay secret', () => {
  it('the Slack token, signing secret, signing key and link tokens never reach the log', () => {
    const text = controller.logs.map((l) => JSON.stringify(l)).join('\n');
    for (const secret of [SLACK_TOKEN, SLACK_SECRET, SIGNING_KEY.toString('base64'), 'v1.ey']) {
      assert.ok(!text.includes(secret), `log contains ${secret.slice(0, 6)}…`);
    }
  });
});
