// The notification Secret and a Rollout's subscription annotations: typed config or problems that
// name the key and never the value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  NOTIFY_ON_ANNOTATION,
  NOTIFY_SLACK_CHANNEL_ANNOTATION,
  NOTIFY_SLACK_WEBHOOK_ANNOTATION,
  NOTIFY_WEBHOOK_ANNOTATION,
} from '../../../src/api/index.ts';
import {
  NOTIFICATION_KINDS,
  parseNotifyConfig,
  parseSubscriptions,
  unconfiguredTargets,
} from '../../../src/notify/index.ts';

const b = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s) : s);
const key32 = Buffer.alloc(32, 0xab);

describe('notification Secret', () => {
  it('parses every setting, trimming the newline text values often end with', () => {
    const r = parseNotifyConfig({
      'slack-token': b('xoxb-123-456-abcDEF\n'),
      'slack-signing-secret': b('8f742231b10e8888abcd99yyyzzz85a5'),
      'slack-webhook-ops': b('https://hooks.slack.com/services/T0/B0/XXX'),
      'webhook-audit-url': b('http://audit.tools.svc:8080/stepwise'),
      'webhook-audit-secret': b('s3cret'),
      'webhook-ops-team-url': b('https://example.com/hook'),
      'approval-signing-key': key32,
      'approval-signing-key-previous': Buffer.alloc(40, 1),
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.config.slackToken, 'xoxb-123-456-abcDEF');
    assert.equal(r.config.slackSigningSecret, '8f742231b10e8888abcd99yyyzzz85a5');
    assert.deepEqual(
      [...r.config.slackWebhooks],
      [['ops', 'https://hooks.slack.com/services/T0/B0/XXX']],
    );
    assert.deepEqual(
      [...r.config.webhooks],
      [
        ['audit', { url: 'http://audit.tools.svc:8080/stepwise', secret: 's3cret' }],
        ['ops-team', { url: 'https://example.com/hook' }],
      ],
    );
    assert.deepEqual(r.config.approvalSigningKeys, [key32, Buffer.alloc(40, 1)]);
    assert.deepEqual(r.warnings, []);
  });

  it('an empty or missing Secret is a valid, empty configuration', () => {
    for (const data of [undefined, {}]) {
      const r = parseNotifyConfig(data);
      assert.ok(r.ok);
      assert.equal(r.config.slackToken, undefined);
      assert.deepEqual(r.config.approvalSigningKeys, []);
    }
  });

  it('warns about keys it does not know', () => {
    const r = parseNotifyConfig({ slack_token: b('xoxb-1') });
    assert.ok(r.ok);
    assert.deepEqual(r.warnings, ['slack_token is not a notification setting and is ignored']);
  });

  const secretValues = [
    'xoxp-user-TOKENVALUE',
    'http://hooks.slack.com/services/T0/B0/WEBHOOKSECRET',
    'ftp://x/FTPSECRET',
    'not a url SPACESECRET',
    'https://user:PASSWORDSECRET@example.com/x',
    'SHORTKEYSECRET',
  ];
  it('problems name the key, never the value', () => {
    const r = parseNotifyConfig({
      'slack-token': b(secretValues[0] ?? ''),
      'slack-webhook-ops': b(secretValues[1] ?? ''),
      'webhook-a-url': b(secretValues[2] ?? ''),
      'webhook-b-url': b(secretValues[3] ?? ''),
      'webhook-c-url': b(secretValues[4] ?? ''),
      'approval-signing-key': b(secretValues[5] ?? ''),
      'slack-webhook-Bad_Name': b('https://hooks.slack.com/x'),
      'webhook-d-secret': b('orphan'),
      'slack-signing-secret': b('has space'),
    });
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [
      'slack-token must be a Slack bot token (xoxb-…)',
      'slack-webhook-ops: must be an https URL',
      'webhook-a-url: must be an https URL',
      'webhook-b-url: must be an absolute URL',
      'webhook-c-url: must not carry a user or password',
      'approval-signing-key must be at least 32 bytes (it has 14)',
      'slack-webhook-Bad_Name: the name must be a DNS label (a-z, 0-9, -)',
      "slack-signing-secret must be the app's signing secret (no spaces)",
      'webhook-d-secret has no webhook-d-url',
    ]);
    const text = r.problems.join('\n');
    for (const v of [
      'TOKENVALUE',
      'WEBHOOKSECRET',
      'FTPSECRET',
      'SPACESECRET',
      'PASSWORDSECRET',
      'SHORTKEYSECRET',
      'orphan',
    ]) {
      assert.ok(!text.includes(v), v);
    }
  });

  it('a previous signing key needs a current one', () => {
    const r = parseNotifyConfig({ 'approval-signing-key-previous': key32 });
    assert.ok(!r.ok);
    assert.match(
      r.problems[0] ?? '',
      /approval-signing-key-previous is set without approval-signing-key/,
    );
  });

  it('a Slack webhook may be plain http on loopback only (tests)', () => {
    assert.ok(parseNotifyConfig({ 'slack-webhook-t': b('http://127.0.0.1:8080/webhook/x') }).ok);
  });
});

describe('subscription annotations', () => {
  it('give targets and all kinds by default', () => {
    const r = parseSubscriptions({
      [NOTIFY_SLACK_CHANNEL_ANNOTATION]: 'C0123, #releases',
      [NOTIFY_SLACK_WEBHOOK_ANNOTATION]: 'ops',
      [NOTIFY_WEBHOOK_ANNOTATION]: 'audit,ops-team,audit',
    });
    assert.deepEqual(r, {
      ok: true,
      targets: [
        { kind: 'slack', channel: 'C0123' },
        { kind: 'slack', channel: '#releases' },
        { kind: 'slack-webhook', name: 'ops' },
        { kind: 'webhook', name: 'audit' },
        { kind: 'webhook', name: 'ops-team' },
      ],
      kinds: NOTIFICATION_KINDS,
    });
    assert.equal(NOTIFY_SLACK_CHANNEL_ANNOTATION, 'notifications.stepwise.dev/slack-channel');
  });

  it('narrow the kinds with notifications.stepwise.dev/on', () => {
    const r = parseSubscriptions({ [NOTIFY_ON_ANNOTATION]: 'completed, awaiting-approval' });
    assert.ok(r.ok);
    assert.deepEqual(r.kinds, ['awaiting-approval', 'completed']);
    assert.deepEqual(r.targets, []);
  });

  it('no annotations: no targets', () => {
    assert.deepEqual(parseSubscriptions(undefined), {
      ok: true,
      targets: [],
      kinds: NOTIFICATION_KINDS,
    });
  });

  it('report unknown kinds, empty names and bad channels', () => {
    const r = parseSubscriptions({
      [NOTIFY_ON_ANNOTATION]: 'completed,finished',
      [NOTIFY_WEBHOOK_ANNOTATION]: 'audit,,',
      [NOTIFY_SLACK_WEBHOOK_ANNOTATION]: '',
      [NOTIFY_SLACK_CHANNEL_ANNOTATION]: 'releases',
    });
    assert.ok(!r.ok);
    assert.deepEqual(r.problems, [
      'notifications.stepwise.dev/slack-channel: "releases" must be a channel id (C…) or #channel-name',
      'notifications.stepwise.dev/slack-webhook: empty name in the list',
      'notifications.stepwise.dev/webhook: empty name in the list',
      'notifications.stepwise.dev/on: "finished" is not a notification kind (awaiting-approval, step-completed, analysis-failed, aborted, completed, approval-recorded)',
    ]);
  });

  it('unconfiguredTargets names targets the Secret does not have', () => {
    const config = parseNotifyConfig({ 'webhook-audit-url': b('https://x.example/h') });
    assert.ok(config.ok);
    assert.deepEqual(
      unconfiguredTargets(
        [
          { kind: 'slack', channel: 'C1' },
          { kind: 'webhook', name: 'audit' },
          { kind: 'slack-webhook', name: 'ops' },
        ],
        config.config,
      ),
      ['Slack channel C1: no slack-token is configured', 'Slack webhook "ops" is not configured'],
    );
  });
});
