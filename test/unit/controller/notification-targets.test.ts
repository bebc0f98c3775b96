// Where the controller turns a Rollout's notification annotations into sends (issue 20 items 9
// and 12): a target outside the administrator's map is a Warning Event naming it and is not sent
// to, the cap per Rollout applies without a map, and approval links never outlive the TTL cap.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { verifyApprovalToken } from '../../../src/approval/index.ts';
import type { ApprovalStep, Rollout } from '../../../src/api/index.ts';
import { NotificationBridge } from '../../../src/controller/notifications.ts';
import type { PlannedEvent } from '../../../src/controller/rollout-reconciler.ts';
import { parseTargetPolicy } from '../../../src/notify/index.ts';
import type {
  Notification,
  NotificationTarget,
  Notifier,
  TargetPolicy,
} from '../../../src/notify/index.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const KEY = Buffer.alloc(32, 3);
const HOUR = 3_600_000;

class RecordingNotifier implements Notifier {
  readonly sent: { n: Notification; targets: readonly NotificationTarget[] }[] = [];
  send(n: Notification, targets: readonly NotificationTarget[]): void {
    this.sent.push({ n, targets });
  }
  posted() {
    return [];
  }
  resolve(): void {}
  idle(): Promise<void> {
    return Promise.resolve();
  }
}

function rollout(annotations: Record<string, string>, approval: ApprovalStep = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'team-a', uid: 'uid-1', annotations },
    spec: {
      selector: {},
      template: {},
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }] } },
    },
  };
}

function setup(opts: { policy?: TargetPolicy; linkTtlMs?: number } = {}) {
  const notifier = new RecordingNotifier();
  const events: string[] = [];
  const bridge = new NotificationBridge({
    notifier,
    config: { slackWebhooks: new Map(), webhooks: new Map(), approvalSigningKeys: [KEY] },
    publicUrl: 'https://stepwise.example.com',
    linkTtlMs: opts.linkTtlMs ?? 24 * HOUR,
    ...(opts.policy !== undefined ? { targetPolicy: opts.policy } : {}),
    now: () => NOW,
    events: { event: (_r, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  return { notifier, events, bridge };
}

const requested: PlannedEvent = {
  kind: 'event',
  type: 'Normal',
  reason: 'ApprovalRequested',
  message: 'Rollout is waiting for approval at step 2/2',
  subject: { step: 1, revision: 'abc123', waitStart: NOW - 5_000 },
};

const CHANNELS = 'notifications.stepwise.dev/slack-channel';
const WEBHOOKS = 'notifications.stepwise.dev/webhook';

function policy(yaml: string): TargetPolicy {
  const parsed = parseTargetPolicy(yaml);
  assert.ok(parsed.ok);
  return parsed.policy;
}

describe('notification targets at the bridge', () => {
  it('a channel outside the map is a Warning Event naming it, and nothing goes there', () => {
    const t = setup({ policy: policy('team-a: { slackChannels: ["#team-a"], webhooks: [ci] }') });
    const r = rollout({ [CHANNELS]: '#team-a,#sre-oncall', [WEBHOOKS]: 'ci' });
    t.bridge.onEvent(r, requested);
    assert.deepEqual(t.notifier.sent[0]?.targets, [
      { kind: 'slack', channel: '#team-a' },
      { kind: 'webhook', name: 'ci' },
    ]);
    assert.deepEqual(t.events, [
      'Warning NotificationTargetRefused notifications not sent to: Slack channel #sre-oncall (not allowed for namespace team-a)',
    ]);
    t.bridge.onEvent(r, requested);
    assert.equal(t.events.length, 1, 'said once per Rollout while unchanged');
  });

  it('when every target is refused nothing is sent at all', () => {
    const t = setup({ policy: policy('other: { slackChannels: ["*"] }') });
    t.bridge.onEvent(rollout({ [CHANNELS]: 'C0SREONCALL' }), requested);
    assert.equal(t.notifier.sent.length, 0);
    assert.match(t.events[0] ?? '', /NotificationTargetRefused .*Slack channel C0SREONCALL/);
  });

  it('without a map every target is allowed, up to five per Rollout', () => {
    const t = setup();
    const seven = ['#a', '#b', '#c', '#d', '#e', '#f', '#g'];
    t.bridge.onEvent(rollout({ [CHANNELS]: seven.join(',') }), requested);
    assert.deepEqual(
      t.notifier.sent[0]?.targets.map((x) => (x.kind === 'slack' ? x.channel : '')),
      seven.slice(0, 5),
    );
    assert.match(
      t.events[0] ?? '',
      /Slack channel #f \(over 5 targets per Rollout\); Slack channel #g/,
    );
  });
});

describe('approval link lifetime', () => {
  const expiry = (t: ReturnType<typeof setup>) => {
    const a = t.notifier.sent[0]?.n.approval;
    assert.ok(a);
    const claims = verifyApprovalToken(a.approveToken, [KEY], NOW / 1000);
    assert.ok(claims.ok);
    return claims.claims.expiresAt * 1000;
  };

  it('a step timeout of 720h with a 24h cap gives links that expire within 24h', () => {
    const t = setup({ linkTtlMs: 24 * HOUR });
    t.bridge.onEvent(rollout({ [CHANNELS]: '#a' }, { timeout: '720h' }), requested);
    assert.ok(expiry(t) <= NOW + 24 * HOUR);
    assert.equal(t.notifier.sent[0]?.n.approval?.expiresAt, '2026-12-02T10:00:00.000Z');
  });

  it('a step timeout shorter than the cap wins; no timeout takes the cap', () => {
    const short = setup({ linkTtlMs: 24 * HOUR });
    short.bridge.onEvent(rollout({ [CHANNELS]: '#a' }, { timeout: '30m' }), requested);
    assert.equal(expiry(short), NOW + HOUR / 2);
    const none = setup({ linkTtlMs: 2 * HOUR });
    none.bridge.onEvent(rollout({ [CHANNELS]: '#a' }), requested);
    assert.equal(expiry(none), NOW + 2 * HOUR);
  });
});
