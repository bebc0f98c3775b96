// Slack workspaces (issue 20 item 9, L1): with `slack-team-id` in the notification Secret, a
// signed button press from another workspace, or by a Slack Connect user of another
// organisation, is refused with 403 and a message saying why, in "anyone" mode too.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signApprovalToken } from '../../../src/approval/index.ts';
import type { Rollout } from '../../../src/api/index.ts';
import { approvalRoutes } from '../../../src/controller/approval-endpoints.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { parseNotifyConfig } from '../../../src/notify/index.ts';
import { dispatch } from '../../../src/server/external.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { blockActionsPayload, signedSlackInteraction } from '../../fixtures/slack-api-double.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const KEY = Buffer.alloc(32, 7);
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

function setup(teams: readonly string[]) {
  const api = new FakeKubeApi();
  api.seed({
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', generation: 2 },
    // No approvers: "anyone" mode.
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } } },
      strategy: { canary: { steps: [{ approval: {} }] } },
    },
    status: {
      observedGeneration: '2',
      currentPodHash: 'abc123',
      stableRS: 'stable1',
      currentStepIndex: 0,
      controllerPause: true,
      pauseConditions: [{ reason: 'AwaitingApproval', startTime: '2026-12-01T09:55:00Z' }],
    },
  } as Rollout);
  const routes = approvalRoutes({
    api,
    cached: () => api.stored(Resources.Rollout, 'ns', 'web') as Rollout,
    keys: () => [KEY],
    slackSigningSecret: () => SECRET,
    slackTeamIds: () => teams,
    events: { event() {} },
    now: () => NOW,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const press = async (payload: object) => {
    const req = signedSlackInteraction(payload, SECRET, NOW / 1000);
    return (
      await dispatch(
        { routes, leading: () => true },
        { method: 'POST', path: '/slack/interactions', headers: req.headers, rawBody: req.body },
      )
    ).response;
  };
  const approvals = () =>
    (api.stored(Resources.Rollout, 'ns', 'web') as Rollout).status?.approvals ?? [];
  return { press, approvals };
}

const value = signApprovalToken(
  {
    rolloutUid: 'uid-1',
    namespace: 'ns',
    name: 'web',
    revision: 'abc123',
    step: 0,
    decision: 'Approve',
    waitStart: Date.parse('2026-12-01T09:55:00Z'),
    expiresAt: NOW / 1000 + 1800,
    id: 'AAAAAAAAAAAAAAAAAAAAAA',
  },
  KEY,
);
const payload = (teamId: string, userTeam?: string) => {
  const p = blockActionsPayload({
    userId: 'U0ALICE1',
    actionId: 'stepwise_approve',
    value,
    teamId,
  }) as { user: { team_id: string } };
  if (userTeam !== undefined) p.user.team_id = userTeam;
  return p;
};

describe('Slack team allowlist', () => {
  it('a press from an allowed workspace counts', async () => {
    const t = setup(['T0OURTEAM', 'T0SECOND']);
    const res = await t.press(payload('T0SECOND'));
    assert.equal(res.status, 200, res.body);
    assert.equal(t.approvals()[0]?.by, 'U0ALICE1');
  });

  it('a press from another workspace is 403 saying so, and nothing is recorded', async () => {
    const t = setup(['T0OURTEAM']);
    const res = await t.press(payload('T0ELSEWHERE'));
    assert.equal(res.status, 403);
    assert.match(res.body, /U0ALICE1 is from workspace T0ELSEWHERE, which may not approve here/);
    assert.deepEqual(t.approvals(), []);
  });

  it('a Slack Connect user of another organisation in our workspace is refused', async () => {
    const t = setup(['T0OURTEAM']);
    const res = await t.press(payload('T0OURTEAM', 'T0THEIRORG'));
    assert.equal(res.status, 403);
    assert.match(res.body, /T0THEIRORG/);
    assert.deepEqual(t.approvals(), []);
  });

  it('without the setting any workspace may press (as before)', async () => {
    const t = setup([]);
    assert.equal((await t.press(payload('T0ELSEWHERE'))).status, 200);
  });

  it('is read from the Secret key slack-team-id, a comma list of team ids', () => {
    const ok = parseNotifyConfig({ 'slack-team-id': Buffer.from('T0OURTEAM, E0GRID01\n') });
    assert.ok(ok.ok);
    assert.deepEqual(ok.config.slackTeamIds, ['T0OURTEAM', 'E0GRID01']);
    const bad = parseNotifyConfig({ 'slack-team-id': Buffer.from('T0OURTEAM,our-team') });
    assert.deepEqual(!bad.ok && bad.problems, [
      'slack-team-id must be a comma list of Slack team ids (T…)',
    ]);
  });
});
