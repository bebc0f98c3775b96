// The approval endpoints as a person and Slack use them: a link's GET never acts, its POST
// records once; forged, expired, reused, wrong-revision or wrong-step tokens are refused and
// nothing is written; Slack requests need a valid signature and an allowed user.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signApprovalToken } from '../../../src/approval/index.ts';
import type { ApprovalClaims } from '../../../src/approval/index.ts';
import type { ApprovalRecord, ApprovalStep, Person, Rollout } from '../../../src/api/index.ts';
import { approvalRoutes } from '../../../src/controller/approval-endpoints.ts';
import type { PlannedEvent } from '../../../src/controller/rollout-reconciler.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { dispatch } from '../../../src/server/external.ts';
import type { ExternalResponse } from '../../../src/server/external.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { blockActionsPayload, signedSlackInteraction } from '../../fixtures/slack-api-double.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 9);
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const HASH = 'abc123';

function waitingRollout(approval: ApprovalStep = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', generation: 2 },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } } },
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    },
    status: {
      observedGeneration: '2',
      currentPodHash: HASH,
      stableRS: 'stable1',
      currentStepIndex: 1,
      controllerPause: true,
      pauseConditions: [{ reason: 'AwaitingApproval', startTime: '2026-12-01T09:55:00Z' }],
    },
  };
}

function claims(fields: Partial<ApprovalClaims> = {}): ApprovalClaims {
  return {
    rolloutUid: 'uid-1',
    namespace: 'ns',
    name: 'web',
    revision: HASH,
    step: 1,
    waitStart: Date.parse('2026-12-01T09:55:00Z'),
    decision: 'Approve',
    expiresAt: NOW / 1000 + 1800,
    id: 'AAAAAAAAAAAAAAAAAAAAAA',
    ...fields,
  };
}

function setup(
  approval: ApprovalStep = {},
  opts: { keys?: Buffer[]; slack?: boolean; cache?: { stale?: Rollout }; people?: Person[] } = {},
) {
  const api = new FakeKubeApi();
  api.seed(waitingRollout(approval));
  const events: string[] = [];
  const recorded: PlannedEvent[] = [];
  const routes = approvalRoutes({
    api,
    cached: () => opts.cache?.stale ?? (api.stored(Resources.Rollout, 'ns', 'web') as Rollout),
    keys: () => opts.keys ?? [KEY],
    slackSigningSecret: () => (opts.slack === false ? undefined : SLACK_SECRET),
    people: () => opts.people ?? [],
    events: { event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    now: () => NOW,
    log: { debug() {}, info() {}, warn() {}, error() {} },
    onRecorded: (_r, e) => recorded.push(e),
  });
  const call = async (
    method: string,
    path: string,
    body = '',
    headers: Record<string, string> = {},
  ): Promise<ExternalResponse> =>
    (
      await dispatch(
        { routes, leading: () => true },
        { method, path, headers, rawBody: Buffer.from(body) },
      )
    ).response;
  const rollout = () => api.stored(Resources.Rollout, 'ns', 'web') as Rollout;
  const statusWrites = () => api.writes().filter((w) => w.verb === 'patch').length;
  return { api, events, recorded, call, rollout, statusWrites };
}

const link = (c: ApprovalClaims = claims(), key = KEY) => `/approvals/${signApprovalToken(c, key)}`;

describe('approval links', () => {
  it('GET shows what is asked and changes nothing', async () => {
    const t = setup({ message: 'check the <dashboard>', timeout: '30m' });
    const res = await t.call('GET', link());
    assert.equal(res.status, 200);
    assert.match(res.contentType ?? '', /text\/html/);
    assert.match(res.body, /Approve web\?/);
    assert.match(res.body, /step 2\/3/);
    assert.match(res.body, new RegExp(HASH));
    assert.match(res.body, /check the &lt;dashboard&gt;/, 'escaped');
    assert.match(res.body, /30 min/);
    assert.match(res.body, /<form method="post">/);
    assert.equal(t.statusWrites(), 0);
  });

  it('POST records the decision once, with the comment; the same link again is refused', async () => {
    const t = setup();
    const res = await t.call('POST', link(), 'comment=looks+good');
    assert.equal(res.status, 200, res.body);
    assert.match(res.body, /Approved/);
    const [record] = t.rollout().status?.approvals ?? [];
    assert.deepEqual(record, {
      step: 1,
      revision: HASH,
      decision: 'Approve',
      by: 'link:AAAAAAAAAAAAAAAAAAAAAA',
      via: 'link',
      at: new Date(NOW).toISOString(),
      comment: 'looks good',
      ref: 'link:AAAAAAAAAAAAAAAAAAAAAA',
    });
    const [write] = t.api.writes().filter((w) => w.verb === 'patch');
    const opts = write?.opts as { fieldManager?: string; subresource?: string } | undefined;
    assert.equal(opts?.fieldManager, 'stepwise-approvals');
    assert.equal(opts?.subresource, 'status');
    assert.ok(t.events.some((e) => e.startsWith('Normal ApprovalRecorded Approved by link:')));
    assert.equal(t.recorded.length, 1);
    const again = await t.call('POST', link(), '');
    assert.equal(again.status, 409);
    assert.match(again.body, /already used/i);
    assert.equal(t.rollout().status?.approvals?.length, 1);
  });

  it('a reject link records a rejection', async () => {
    const t = setup();
    const res = await t.call('POST', link(claims({ decision: 'Reject' })));
    assert.equal(res.status, 200);
    assert.equal(t.rollout().status?.approvals?.[0]?.decision, 'Reject');
  });

  for (const [label, path, status, text] of [
    ['a forged signature', link(claims(), OTHER_KEY), 400, /not valid/],
    ['an expired token', link(claims({ expiresAt: NOW / 1000 })), 410, /expired/],
    ['another revision', link(claims({ revision: 'old999' })), 409, /is for revision old999/],
    ['another step', link(claims({ step: 2 })), 409, /is for step 3/],
    [
      'a Rollout recreated under the same name',
      link(claims({ rolloutUid: 'uid-2' })),
      410,
      /earlier Rollout/,
    ],
    ['garbage', '/approvals/v1.not-a-token.x', 400, /not valid/],
    [
      'a token issued for an earlier wait at the step (before a retry or a rollback)',
      link(claims({ waitStart: Date.parse('2026-12-01T09:00:00Z') })),
      409,
      /issued for an earlier wait at this step; the current wait began at 2026-12-01T09:55:00.000Z \(EarlierWait\)/,
    ],
  ] as const) {
    it(`refuses ${label} on GET and POST, writing nothing`, async () => {
      const t = setup();
      for (const method of ['GET', 'POST']) {
        const res = await t.call(method, path);
        assert.equal(res.status, status, `${method}: ${res.body}`);
        assert.match(res.body, text);
      }
      assert.equal(t.statusWrites(), 0);
      assert.equal(t.rollout().status?.approvals, undefined);
    });
  }

  it('a link does not count when the step names its approvers', async () => {
    const t = setup({ approvers: { users: ['alice'] } });
    const res = await t.call('POST', link());
    assert.equal(res.status, 409);
    assert.match(res.body, /not among the approvers/);
    assert.equal(t.statusWrites(), 0);
  });

  it('links are off without a signing key', async () => {
    const t = setup({}, { keys: [] });
    assert.equal((await t.call('GET', link())).status, 404);
  });

  it('a decision racing another write is judged again on the newer version', async () => {
    // The cache still shows the Rollout from before someone else's write.
    const cache: { stale?: Rollout } = {};
    const t = setup({}, { cache });
    cache.stale = structuredClone(t.rollout());
    await t.api.patchMerge(Resources.Rollout, 'ns', 'web', { status: { replicas: 4 } });
    const res = await t.call('POST', link());
    assert.equal(res.status, 200, res.body);
    assert.equal(t.rollout().status?.approvals?.length, 1);
    assert.equal(t.rollout().status?.replicas, 4, 'the other write is kept');
    assert.equal(
      t.api.requests.filter((r) => r.verb === 'patch').length,
      3,
      'the other write, the refused one on the stale version, the one that landed',
    );
  });

  it('a refusal on a stale cache is checked on a fresh read before it is answered', async () => {
    const cache: { stale?: Rollout } = {};
    const t = setup({}, { cache });
    cache.stale = { ...t.rollout(), status: { ...t.rollout().status, pauseConditions: [] } };
    const res = await t.call('POST', link());
    assert.equal(res.status, 200, res.body);
  });
});

describe('Slack interactions', () => {
  const token = (c = claims()) => signApprovalToken(c, KEY);
  const press = (
    t: ReturnType<typeof setup>,
    userId: string,
    value = token(),
    actionId = 'stepwise_approve',
    nowSeconds = NOW / 1000,
    secret = SLACK_SECRET,
  ) => {
    const req = signedSlackInteraction(
      blockActionsPayload({ userId, actionId, value }),
      secret,
      nowSeconds,
    );
    return t.call('POST', '/slack/interactions', req.body.toString(), req.headers);
  };

  it('a person who approved with kubectl is refused in Slack under their mapped identity', async () => {
    const alice: Person = { name: 'alice', kubeUser: 'alice', slackUser: 'U0ALICE1' };
    const step = {
      minApprovals: 2,
      approvers: { users: ['alice', 'dave'], slackUsers: ['U0ALICE1'] },
    };
    const t = setup(step, { people: [alice] });
    const byKubectl: ApprovalRecord = {
      step: 1,
      revision: HASH,
      decision: 'Approve',
      by: 'alice',
      via: 'plugin',
      at: new Date(NOW - 1000).toISOString(),
      ref: 'RolloutApproval/web-1',
    };
    await t.api.patchMerge(Resources.Rollout, 'ns', 'web', { status: { approvals: [byKubectl] } });
    const res = await press(t, 'U0ALICE1');
    assert.equal(res.status, 200);
    assert.match(
      res.body,
      /U0ALICE1 \(alice\) already decided Approve .* via plugin \(AlreadyDecided\)/,
    );
    assert.equal(t.rollout().status?.approvals?.length, 1);
  });

  it('a Slack approval names the person it was mapped to', async () => {
    const alice: Person = { name: 'alice', kubeUser: 'alice', slackUser: 'U0ALICE1' };
    const t = setup({ approvers: { users: ['alice'] } }, { people: [alice] });
    assert.equal((await press(t, 'U0ALICE1')).status, 200);
    const [record] = t.rollout().status?.approvals ?? [];
    assert.equal(record?.by, 'U0ALICE1');
    assert.equal(record?.person, 'alice');
  });

  it('an allowed Slack user approves; pressing again does not count twice', async () => {
    const t = setup({ approvers: { slackUsers: ['U0ALICE1'] } });
    const res = await press(t, 'U0ALICE1');
    assert.equal(res.status, 200);
    assert.match(res.body, /Approved by <@U0ALICE1>/);
    const [record] = t.rollout().status?.approvals ?? [];
    assert.equal(record?.by, 'U0ALICE1');
    assert.equal(record?.via, 'slack');
    assert.equal(t.recorded[0]?.subject?.record?.by, 'U0ALICE1');
    const again = await press(t, 'U0ALICE1');
    assert.match(again.body, /already used/i);
    assert.equal(t.rollout().status?.approvals?.length, 1);
  });

  it('a Slack user not listed is told why, and nothing is recorded', async () => {
    const t = setup({ approvers: { slackUsers: ['U0ALICE1'] } });
    const res = await press(t, 'U0MALLORY');
    assert.equal(res.status, 200);
    assert.match(res.body, /U0MALLORY is not among the approvers/);
    assert.equal(t.statusWrites(), 0);
  });

  for (const [label, change, status] of [
    ['a bad signature', { secret: 'another-secret' }, 401],
    ['a timestamp older than 5 minutes', { nowSeconds: NOW / 1000 - 301 }, 401],
  ] as const) {
    it(`refuses ${label} before reading the body`, async () => {
      const t = setup();
      const res = await press(
        t,
        'U0ALICE1',
        token(),
        'stepwise_approve',
        'nowSeconds' in change ? change.nowSeconds : NOW / 1000,
        'secret' in change ? change.secret : SLACK_SECRET,
      );
      assert.equal(res.status, status);
      assert.equal(t.statusWrites(), 0);
    });
  }

  it('refuses a request without signature headers, and a signed body that is not an interaction', async () => {
    const t = setup();
    const unsigned = await t.call('POST', '/slack/interactions', 'payload=%7B%7D');
    assert.equal(unsigned.status, 401);
    const garbage = signedSlackInteraction({ type: 'nonsense' }, SLACK_SECRET, NOW / 1000);
    const res = await t.call(
      'POST',
      '/slack/interactions',
      garbage.body.toString(),
      garbage.headers,
    );
    assert.equal(res.status, 400);
    assert.equal(t.statusWrites(), 0);
  });

  it('a reject token behind an approve button is refused', async () => {
    const t = setup();
    const res = await press(t, 'U0ALICE1', token(claims({ decision: 'Reject' })));
    assert.equal(res.status, 400);
    assert.equal(t.statusWrites(), 0);
  });

  it('an expired button says so', async () => {
    const t = setup();
    const res = await press(t, 'U0ALICE1', token(claims({ expiresAt: NOW / 1000 - 1 })));
    assert.match(res.body, /no longer works.*expired/);
    assert.equal(t.statusWrites(), 0);
  });

  it('is off without a signing secret', async () => {
    const t = setup({}, { slack: false });
    assert.equal((await press(t, 'U0ALICE1')).status, 404);
  });
});
