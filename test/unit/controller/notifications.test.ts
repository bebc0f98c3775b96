// From recorded events to notifications: who hears what (the Rollout's annotations), signed
// tokens and links for an approval request, a decision closing the Slack message only once it
// settles the step, and a bad annotation said once as a Warning, never thrown.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifyApprovalToken } from '../../../src/approval/index.ts';
import type { ApprovalRecord, ApprovalStep, Rollout } from '../../../src/api/index.ts';
import { NotificationBridge } from '../../../src/controller/notifications.ts';
import type { PlannedEvent } from '../../../src/controller/rollout-reconciler.ts';
import type {
  ApprovalMessageKey,
  ApprovalOutcome,
  Notification,
  NotificationTarget,
  Notifier,
} from '../../../src/notify/index.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const KEY = Buffer.alloc(32, 3);

class RecordingNotifier implements Notifier {
  readonly sent: { n: Notification; targets: readonly NotificationTarget[] }[] = [];
  readonly resolved: { key: ApprovalMessageKey; outcome: ApprovalOutcome }[] = [];
  send(n: Notification, targets: readonly NotificationTarget[]): void {
    this.sent.push({ n, targets });
  }
  posted() {
    return [];
  }
  resolve(key: ApprovalMessageKey, outcome: ApprovalOutcome): void {
    this.resolved.push({ key, outcome });
  }
  idle(): Promise<void> {
    return Promise.resolve();
  }
}

function rollout(annotations: Record<string, string>, approval: ApprovalStep = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', annotations },
    spec: {
      selector: {},
      template: {},
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    },
  };
}

function setup(publicUrl?: string) {
  const notifier = new RecordingNotifier();
  const warnings: string[] = [];
  const bridge = new NotificationBridge({
    notifier,
    config: { slackWebhooks: new Map(), webhooks: new Map(), approvalSigningKeys: [KEY] },
    ...(publicUrl ? { publicUrl } : {}),
    linkTtlMs: 24 * 3_600_000,
    now: () => NOW,
    events: { event: (_r, type, reason, message) => warnings.push(`${type} ${reason} ${message}`) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  return { notifier, warnings, bridge };
}

const requested: PlannedEvent = {
  kind: 'event',
  type: 'Normal',
  reason: 'ApprovalRequested',
  message: 'Rollout is waiting for approval at step 2/3',
  subject: { step: 1, revision: 'abc123', waitStart: NOW - 5_000 },
};

const recorded = (record: Partial<ApprovalRecord>): PlannedEvent => {
  const r: ApprovalRecord = {
    step: 1,
    revision: 'abc123',
    decision: 'Approve',
    by: 'alice',
    via: 'plugin',
    at: '2026-12-01T10:00:00.000Z',
    ...record,
  };
  return {
    kind: 'event',
    type: 'Normal',
    reason: 'ApprovalRecorded',
    message: 'Approved',
    subject: { step: r.step, revision: r.revision, record: r },
  };
};

const SLACK = { 'notifications.stepwise.dev/slack-channel': 'C0RELEASE' };

describe('notifications from events', () => {
  it('an approval request carries signed tokens bound to the step, and links when anyone may decide', () => {
    const t = setup('https://stepwise.example.com');
    t.bridge.onEvent(rollout(SLACK, { timeout: '30m' }), requested);
    const [sent] = t.notifier.sent;
    assert.deepEqual(sent?.targets, [{ kind: 'slack', channel: 'C0RELEASE' }]);
    const a = sent?.n.approval;
    assert.ok(a);
    const verified = verifyApprovalToken(a.approveToken, [KEY], NOW / 1000);
    assert.ok(verified.ok);
    assert.deepEqual(
      { ...verified.claims, id: '' },
      {
        rolloutUid: 'uid-1',
        namespace: 'ns',
        name: 'web',
        revision: 'abc123',
        step: 1,
        waitStart: NOW - 5_000,
        decision: 'Approve',
        expiresAt: NOW / 1000 + 1800,
        id: '',
      },
    );
    assert.equal(a.approveUrl, `https://stepwise.example.com/approvals/${a.approveToken}`);
    assert.equal(a.expiresAt, '2026-12-01T10:30:00.000Z');
    const reject = verifyApprovalToken(a.rejectToken, [KEY], NOW / 1000);
    assert.equal(reject.ok && reject.claims.decision, 'Reject');
  });

  it('no links when the step names its approvers (a link proves nobody); buttons stay', () => {
    const t = setup('https://stepwise.example.com');
    t.bridge.onEvent(rollout(SLACK, { approvers: { slackUsers: ['U0ALICE1'] } }), requested);
    const a = t.notifier.sent[0]?.n.approval;
    assert.equal(a?.approveUrl, undefined);
    assert.ok(a?.approveToken);
    assert.deepEqual(a?.approvers.slackUsers, ['U0ALICE1']);
  });

  it('sends only the kinds the Rollout asks for, and nothing without a target', () => {
    const t = setup();
    const only = { ...SLACK, 'notifications.stepwise.dev/on': 'aborted' };
    t.bridge.onEvent(rollout(only), requested);
    assert.equal(t.notifier.sent.length, 0);
    t.bridge.onEvent(rollout(only), {
      kind: 'event',
      type: 'Warning',
      reason: 'RolloutAborted',
      message: 'Rollout aborted update to revision 2',
    });
    assert.equal(t.notifier.sent[0]?.n.kind, 'aborted');
    t.bridge.onEvent(rollout({}), requested);
    assert.equal(t.notifier.sent.length, 1);
  });

  it('a bad annotation is one Warning event, not an exception, and sends nothing', () => {
    const t = setup();
    const bad = { 'notifications.stepwise.dev/on': 'everything' };
    t.bridge.onEvent(rollout(bad), requested);
    t.bridge.onEvent(rollout(bad), requested);
    assert.equal(t.warnings.length, 1);
    assert.match(
      t.warnings[0] ?? '',
      /^Warning NotificationConfigInvalid notifications not sent: /,
    );
    assert.equal(t.notifier.sent.length, 0);
  });

  it('closes the Slack message when a decision settles the step, not before', () => {
    const t = setup();
    const two = rollout(SLACK, { minApprovals: 2 });
    t.bridge.onEvent(two, recorded({ by: 'alice' }));
    assert.equal(t.notifier.resolved.length, 0, 'one of two');
    two.status = { approvals: [{ ...recorded({}).subject!.record! }] };
    t.bridge.onEvent(two, recorded({ by: 'bob' }));
    assert.deepEqual(t.notifier.resolved[0]?.key, { uid: 'uid-1', revision: 'abc123', step: 1 });
    assert.equal(t.notifier.resolved[0]?.outcome.by, 'bob');
    t.bridge.onEvent(rollout(SLACK, { minApprovals: 2 }), recorded({ decision: 'Reject' }));
    assert.equal(t.notifier.resolved.length, 2, 'a rejection settles at once');
  });

  it('a Slack press and the link of the same message do not close it: one person', () => {
    const t = setup();
    const two = rollout(SLACK, { minApprovals: 2 });
    const press = { ...recorded({ by: 'U0BOB', via: 'slack' }).subject!.record! };
    two.status = { approvals: [press] };
    t.bridge.onEvent(two, recorded({ by: 'link:abc', via: 'link' }));
    assert.equal(t.notifier.resolved.length, 0, 'still one of two: the buttons stay');
    t.bridge.onEvent(two, recorded({ by: 'U0CAROL', via: 'slack' }));
    assert.equal(t.notifier.resolved.length, 1);
  });
});
