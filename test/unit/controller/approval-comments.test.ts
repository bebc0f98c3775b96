// Approval comments lose their control characters where they enter (issue 20, L3): a link
// holder's POST and a RolloutApproval's comment are recorded, and shown in Events, without the
// escape sequences, carriage returns or bidi overrides they were sent with.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signApprovalToken } from '../../../src/approval/index.ts';
import type { Rollout } from '../../../src/api/index.ts';
import { stripControlCharacters } from '../../../src/api/control-chars.ts';
import { approvalRoutes } from '../../../src/controller/approval-endpoints.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { dispatch } from '../../../src/server/external.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';

const EVIL = '\x1b]52;c;ZXZpbA==\x07\x1b[2AHealthy\r ok \u202eevil\x9b';
const CLEAN = ']52;c;ZXZpbA==[2AHealthy ok evil';

describe('stripControlCharacters', () => {
  it('drops C0 (but \\n and \\t), DEL, C1 and bidi controls, and keeps the rest', () => {
    assert.equal(stripControlCharacters(EVIL), CLEAN);
    assert.equal(stripControlCharacters('a\x00b\x7fc\u2066d\u2069'), 'abcd');
    assert.equal(stripControlCharacters('line\nnext\ttab ünï 😀'), 'line\nnext\ttab ünï 😀');
  });
});

describe('where comments enter', () => {
  it('a link POST records the comment without control characters', async () => {
    const NOW = Date.parse('2026-12-01T10:00:00Z');
    const KEY = Buffer.alloc(32, 7);
    const rollout: Rollout = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', generation: 2 },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } } },
        strategy: { canary: { steps: [{ setWeight: 25 }, { approval: {} }, { setWeight: 50 }] } },
      },
      status: {
        observedGeneration: '2',
        currentPodHash: 'abc123',
        stableRS: 'stable1',
        currentStepIndex: 1,
        controllerPause: true,
        pauseConditions: [{ reason: 'AwaitingApproval', startTime: '2026-12-01T09:55:00Z' }],
      },
    };
    const api = new FakeKubeApi();
    api.seed(rollout);
    const events: string[] = [];
    const routes = approvalRoutes({
      api,
      cached: () => api.stored(Resources.Rollout, 'ns', 'web') as Rollout,
      keys: () => [KEY],
      slackSigningSecret: () => undefined,
      events: { event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
      now: () => NOW,
      log: { debug() {}, info() {}, warn() {}, error() {} },
      onRecorded: () => undefined,
    });
    const token = signApprovalToken(
      {
        rolloutUid: 'uid-1',
        namespace: 'ns',
        name: 'web',
        revision: 'abc123',
        step: 1,
        decision: 'Approve',
        waitStart: Date.parse('2026-12-01T09:55:00Z'),
        expiresAt: NOW / 1000 + 1800,
        id: 'AAAAAAAAAAAAAAAAAAAAAA',
      },
      KEY,
    );
    const body = new URLSearchParams({ comment: EVIL }).toString();
    const { response } = await dispatch(
      { routes, leading: () => true },
      { method: 'POST', path: `/approvals/${token}`, headers: {}, rawBody: Buffer.from(body) },
    );
    assert.equal(response.status, 200, response.body);
    const stored = api.stored(Resources.Rollout, 'ns', 'web') as Rollout;
    assert.equal(stored.status?.approvals?.[0]?.comment, CLEAN);
    assert.ok(
      events.some((e) => e.endsWith(`: ${CLEAN}`)),
      events.join('\n'),
    );
  });

  it('a RolloutApproval comment is recorded, and put in the Event, without them', () => {
    const sim = new Sim(
      rolloutFixture({
        strategy: { canary: { steps: [{ setWeight: 25 }, { approval: {} }, { setWeight: 50 }] } },
      }),
    );
    sim.run();
    sim.setImage('web:2');
    sim.run();
    sim.decide('Approve', 'alice', { comment: EVIL });
    sim.run();
    assert.equal(sim.rollout.status?.approvals?.[0]?.comment, CLEAN);
    assert.ok(
      sim.events().some((e) => e.endsWith(`: ${CLEAN}`)),
      sim.events().join('\n'),
    );
  });
});
