// The approval port and notification targets hardened (issue 20 items 8, 9, 12), against the
// real controller on the local control plane: its external port on 127.0.0.1 read through a
// trusted proxy (this test plays the Ingress: it is on 127.0.0.1 and sets X-Forwarded-For),
// a Slack API double for Slack and the webhooks, and an administrator's target map.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApprovalStep } from '../../src/api/index.ts';
import { newTokenId, signApprovalToken } from '../../src/approval/index.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import { testNamespace } from '../cluster/testing.ts';
import {
  blockActionsPayload,
  SlackApiDouble,
  signedSlackInteraction,
} from '../fixtures/slack-api-double.ts';
import type { RecordedCall } from '../fixtures/slack-api-double.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  events,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const SLACK_TOKEN = 'xoxb-test-0000';
const SLACK_SECRET = 'e2e-port-slack-signing-secret';
const OUR_TEAM = 'T0123ABCD';
let controller: ControllerProcess;
let slack: SlackApiDouble;
let external = '';
let dir = '';
let allowedNs = '';

before(async () => {
  await installCrds();
  slack = await SlackApiDouble.start({ token: SLACK_TOKEN, channels: ['C0RELEASE'] });
  // Named now (the map is read at start), created by its test: a namespace made in this hook
  // would be deleted when the hook ends.
  allowedNs = `port-targets-${randomBytes(4).toString('hex')}`;
  // The administrator's map: this namespace may use the audit webhook and nothing else.
  dir = await mkdtemp(join(tmpdir(), 'stepwise-targets-'));
  await writeFile(join(dir, 'targets.yaml'), `${allowedNs}:\n  webhooks: [audit]\n`);
  const system = await testNamespace('stepwise-system');
  await http.json('POST', `/api/v1/namespaces/${system}/secrets`, {
    metadata: { name: 'notify' },
    data: { 'approval-signing-key': Buffer.alloc(32, 42).toString('base64') },
    stringData: {
      'slack-token': SLACK_TOKEN,
      'slack-signing-secret': SLACK_SECRET,
      'slack-team-id': OUR_TEAM,
      'webhook-audit-url': slack.hookUrl('audit'),
      'webhook-other-url': slack.hookUrl('other'),
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
      '--trusted-proxy-cidrs=127.0.0.0/8',
      `--notification-targets=${join(dir, 'targets.yaml')}`,
      '--approval-link-ttl=24h',
    ],
  });
});
after(async () => {
  await controller?.kill();
  await slack?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A Rollout whose second revision waits at an approval step (index 1). */
async function waitingRollout(
  ns: string,
  approval: ApprovalStep,
  annotations: Record<string, string>,
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

/** The first call to the Slack double matching `pred` (calls wake the waiter; no polling). */
async function call(what: string, pred: (c: RecordedCall) => boolean): Promise<RecordedCall> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = slack.calls.find(pred);
    if (found) return found;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} in 30 s`);
    await Promise.race([
      slack.waitForCalls(slack.calls.length + 1),
      new Promise((r) => setTimeout(r, left)),
    ]);
  }
}

interface AwaitingHook {
  kind: string;
  rollout: { namespace: string };
  approval?: { approveUrl: string | null; expiresAt: string | null } | null;
}

const awaiting = (ns: string) =>
  call('awaiting-approval webhook', (c) => {
    const b = c.body as AwaitingHook;
    return (
      c.path === '/hook/audit' && b.kind === 'awaiting-approval' && b.rollout?.namespace === ns
    );
  }).then((c) => c.body as AwaitingHook);

const mentions = (ns: string) => slack.calls.filter((c) => JSON.stringify(c.body).includes(ns));

describe('notification targets', () => {
  it('a target outside the map is a Warning Event naming it and gets nothing; the allowed one arrives', async (t) => {
    const ns = allowedNs;
    await http.json('POST', '/api/v1/namespaces', {
      metadata: { name: ns, labels: { 'stepwise.dev/test-namespace': 'true' } },
    });
    t.after(() => http.json('DELETE', `/api/v1/namespaces/${ns}`));
    const asked = new Date();
    await waitingRollout(
      ns,
      { timeout: '720h' },
      {
        'notifications.stepwise.dev/webhook': 'audit,other',
        'notifications.stepwise.dev/slack-channel': 'C0RELEASE',
      },
    );
    const hook = await awaiting(ns);
    // The link's lifetime is capped at --approval-link-ttl, not the step's 30 days.
    const expires = Date.parse(hook.approval?.expiresAt ?? '');
    assert.ok(expires <= Date.now() + 24 * 3_600_000, hook.approval?.expiresAt ?? 'no expiry');
    assert.ok(expires >= asked.getTime() + 23 * 3_600_000);
    await waitForEvents(ns, ['NotificationTargetRefused']);
    const refused = (await events(ns)).filter((e) => e.reason === 'NotificationTargetRefused');
    assert.match(refused[0]?.message ?? '', /webhook other \(not allowed for namespace/);
    assert.match(refused[0]?.message ?? '', /Slack channel C0RELEASE \(not allowed/);
    assert.deepEqual(
      mentions(ns)
        .filter((c) => c.path !== '/hook/audit')
        .map((c) => c.path),
      [],
      'nothing to the refused webhook or channel',
    );
  });
});

/** A signed button press; `team` is the workspace it claims to come from. */
function press(value: string, xff: string, team = OUR_TEAM) {
  const req = signedSlackInteraction(
    blockActionsPayload({ userId: 'U0ALICE1', actionId: 'stepwise_approve', value, teamId: team }),
    SLACK_SECRET,
    Math.floor(Date.now() / 1000),
  );
  return fetch(`${external}/slack/interactions`, {
    method: 'POST',
    headers: { ...req.headers, 'x-forwarded-for': xff },
    body: req.body,
  });
}

/** Forged links from `xff` until the first 429; how many came before it. */
async function floodUntilLimited(xff: string): Promise<number> {
  for (let n = 0; n < 200; n++) {
    const res = await fetch(`${external}/approvals/v1.Zm9yZ2Vk.AAAA`, {
      method: 'POST',
      headers: { 'x-forwarded-for': xff },
    });
    await res.arrayBuffer();
    if (res.status === 429) return n;
  }
  throw new Error('never limited');
}

describe('the approval port under a flood', () => {
  it('clients behind the proxy are limited apart, and a signed Slack press still lands', async () => {
    const ns = await testNamespace('port-flood');
    const waiting = await waitingRollout(ns, { approvers: { slackUsers: ['U0ALICE1'] } }, {});
    const token = signApprovalToken(
      {
        rolloutUid: waiting.metadata.uid ?? '',
        namespace: ns,
        name: 'web',
        revision: waiting.status?.currentPodHash ?? '',
        step: 1,
        decision: 'Approve',
        waitStart: Date.parse(
          waiting.status?.pauseConditions?.find((c) => c.reason === 'AwaitingApproval')
            ?.startTime ?? '',
        ),
        expiresAt: Math.floor(Date.now() / 1000) + 600,
        id: newTokenId(),
      },
      Buffer.alloc(32, 42),
    );
    const flooded = await floodUntilLimited('203.0.113.66');
    assert.ok(flooded <= 5, `a forged link costs 5 of the 20-request burst (${flooded} got in)`);
    const neighbour = await fetch(`${external}/approvals/v1.Zm9yZ2Vk.AAAA`, {
      method: 'POST',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(neighbour.status, 400, 'another client behind the proxy has its own bucket');

    const stranger = await press(token, '203.0.113.66', 'T0ELSEWHERE');
    assert.equal(stranger.status, 403);
    assert.match(await stranger.text(), /from workspace T0ELSEWHERE, which may not approve here/);

    // Slack behind the same address as the flood: its signed press is not charged.
    const res = await press(token, '203.0.113.66');
    assert.equal(res.status, 200, await res.text());
    const done = await waitForRollout(ns, 'web', 'Healthy after Slack', phase('Healthy'));
    assert.deepEqual(
      done.status?.approvals?.map((r) => [r.by, r.via]),
      [['U0ALICE1', 'slack']],
    );
  });
});
