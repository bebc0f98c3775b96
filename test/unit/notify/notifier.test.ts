// The background notifier against the double: send never blocks or throws, results and retries
// are counted, the queue drops its oldest when full, approval messages are updated after a
// decision, and no token or webhook path reaches a log line.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import {
  BackgroundNotifier,
  GenericWebhook,
  IncomingWebhook,
  NotificationKind,
  SlackWebApi,
  notifyMetrics,
  type BackgroundNotifierOptions,
  type NotificationTarget,
  type PostedMessage,
} from '../../../src/notify/index.ts';
import { SlackApiDouble } from '../../fixtures/slack-api-double.ts';
import {
  TOKEN,
  awaiting,
  captureLogger,
  fast,
  notification,
  recordMetrics,
  refusedUrl,
} from './support.ts';

const SECRET_PATH = 'T0000/B0000/HOOKSECRETPATH';
const channel: NotificationTarget = { kind: 'slack', channel: 'C0123ABCD' };
const key = { uid: 'uid-1', revision: '7c9d8b6f5', step: 2 };

describe('BackgroundNotifier', () => {
  let slack: SlackApiDouble;
  before(async () => {
    slack = await SlackApiDouble.start({ token: TOKEN });
  });
  after(() => slack.close());
  beforeEach(() => {
    slack.calls.length = 0;
  });

  function notifier(over: Partial<BackgroundNotifierOptions> = {}) {
    const log = captureLogger();
    const metrics = recordMetrics();
    const n = new BackgroundNotifier({
      slack: new SlackWebApi({ token: TOKEN, baseUrl: slack.apiUrl, ...fast }),
      slackWebhooks: new Map([
        ['ops', new IncomingWebhook({ name: 'ops', url: slack.webhookUrl(SECRET_PATH), ...fast })],
      ]),
      webhooks: new Map([
        ['audit', new GenericWebhook({ name: 'audit', url: slack.hookUrl('audit'), ...fast })],
      ]),
      log,
      metrics,
      ...over,
    });
    return { n, log, metrics };
  }

  it('sends to every target in the background and counts each', async () => {
    const { n, metrics } = notifier();
    n.send(notification(NotificationKind.Completed), [
      channel,
      { kind: 'slack-webhook', name: 'ops' },
      { kind: 'webhook', name: 'audit' },
    ]);
    await n.idle();
    assert.deepEqual(slack.calls.map((c) => c.path).sort(), [
      '/api/chat.postMessage',
      '/hook/audit',
      `/webhook/${SECRET_PATH}`,
    ]);
    assert.deepEqual(metrics.results.sort(), [
      ['slack', 'sent'],
      ['slack-webhook', 'sent'],
      ['webhook', 'sent'],
    ]);
    const hook = slack.calls.find((c) => c.path === '/hook/audit');
    assert.equal((hook?.body as { kind: string }).kind, 'completed');
  });

  it('send returns at once while the server hangs, and never throws', async () => {
    slack.failNext(3, { hang: true });
    const { n, metrics } = notifier({
      slack: new SlackWebApi({
        token: TOKEN,
        baseUrl: slack.apiUrl,
        timeoutMs: 100,
        retries: 2,
        minRetryDelayMs: 5,
      }),
    });
    // CPU time: whether send does the work before returning, not how busy the machine is.
    const started = process.cpuUsage();
    n.send(awaiting, [channel]);
    const used = process.cpuUsage(started);
    const returnedAfter = (used.user + used.system) / 1000;
    assert.ok(returnedAfter < 50, `send took ${returnedAfter} ms of CPU`);
    assert.deepEqual(metrics.results, [], 'nothing finished yet');
    await slack.waitForCalls(1);
    await n.idle();
    assert.deepEqual(metrics.results, [['slack', 'failed']]);
    assert.deepEqual(metrics.retries, ['slack', 'slack']);
  });

  it('a server that is down: failed after the retries, counted, logged once', async () => {
    const down = await refusedUrl(`/services/${SECRET_PATH}`);
    const { n, log, metrics } = notifier({
      slackWebhooks: new Map([['ops', new IncomingWebhook({ name: 'ops', url: down, ...fast })]]),
    });
    n.send(notification(NotificationKind.Aborted), [{ kind: 'slack-webhook', name: 'ops' }]);
    await n.idle();
    assert.deepEqual(metrics.results, [['slack-webhook', 'failed']]);
    assert.equal(metrics.retries.length, 2);
    const warns = log.lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, 'one warning per send');
    assert.equal(warns[0]?.msg, 'notification not sent');
    assert.deepEqual(
      [
        warns[0]?.fields['channel'],
        warns[0]?.fields['target'],
        warns[0]?.fields['code'],
        warns[0]?.fields['attempts'],
      ],
      ['slack-webhook', 'ops', 'SW_NOTIFY_TRANSPORT', 3],
    );
  });

  it('a send that succeeds after retries is logged once, with the first error', async () => {
    slack.failNext(2, { status: 500 });
    const { n, log, metrics } = notifier();
    n.send(notification(NotificationKind.StepCompleted), [channel]);
    await n.idle();
    assert.deepEqual(metrics.results, [['slack', 'sent']]);
    const warns = log.lines.filter((l) => l.level === 'warn');
    assert.deepEqual(
      warns.map((w) => [w.msg, w.fields['code'], w.fields['attempts']]),
      [['notification sent after retries', 'SW_NOTIFY_HTTP', 3]],
    );
  });

  it('a full queue drops its oldest notification, logs and counts it', async () => {
    slack.failNext(1, { hang: true });
    const { n, log, metrics } = notifier({
      concurrency: 1,
      maxQueue: 2,
      webhooks: new Map([
        [
          'audit',
          new GenericWebhook({
            name: 'audit',
            url: slack.hookUrl('audit'),
            timeoutMs: 100,
            retries: 0,
          }),
        ],
      ]),
    });
    for (const message of ['first', 'second', 'third', 'fourth']) {
      n.send(notification(NotificationKind.StepCompleted, message), [
        { kind: 'webhook', name: 'audit' },
      ]);
    }
    await n.idle();
    assert.deepEqual(
      slack.calls.map((c) => (c.body as { message: string }).message),
      ['first', 'third', 'fourth'],
    );
    assert.deepEqual(metrics.results, [
      ['webhook', 'dropped'],
      ['webhook', 'failed'],
      ['webhook', 'sent'],
      ['webhook', 'sent'],
    ]);
    assert.ok(log.lines.some((l) => l.level === 'warn' && /queue full/.test(l.msg)));
  });

  it('an unknown webhook or a missing Slack token is unconfigured, not thrown', async () => {
    const { n, log, metrics } = notifier({ slack: undefined });
    n.send(notification(NotificationKind.Completed), [
      { kind: 'webhook', name: 'nope' },
      { kind: 'slack-webhook', name: 'nope' },
      channel,
    ]);
    await n.idle();
    assert.deepEqual(metrics.results, [
      ['webhook', 'unconfigured'],
      ['slack-webhook', 'unconfigured'],
      ['slack', 'unconfigured'],
    ]);
    assert.equal(slack.calls.length, 0);
    assert.equal(log.lines.filter((l) => l.level === 'warn').length, 3);
  });

  it('remembers where an approval message landed and updates it after the decision', async () => {
    const seen: PostedMessage[] = [];
    const { n } = notifier({ onPosted: (_k, m) => seen.push(m) });
    n.send(awaiting, [channel]);
    await n.idle();
    const posted = n.posted(key);
    assert.equal(posted.length, 1);
    assert.deepEqual(seen, posted);
    const before = slack.messages.get(`${posted[0]?.channel}/${posted[0]?.ts}`);
    assert.ok(JSON.stringify(before?.blocks).includes('stepwise_approve'));

    n.resolve(key, {
      decision: 'Approve',
      by: 'U0123ABCD',
      via: 'slack',
      at: '2026-01-02T03:10:00Z',
    });
    await n.idle();
    assert.equal(slack.calls.at(-1)?.path, '/api/chat.update');
    const afterUpdate = slack.messages.get(`${posted[0]?.channel}/${posted[0]?.ts}`);
    const blocks = JSON.stringify(afterUpdate?.blocks);
    assert.ok(!blocks.includes('stepwise_approve'), 'buttons removed');
    assert.match(blocks, /Approved by <@U0123ABCD> via slack/);
  });

  it('a decision that arrives before the post lands is applied once it lands', async () => {
    const { n } = notifier();
    n.send(awaiting, [channel]);
    n.resolve(key, { decision: 'Reject', by: 'alice', via: 'plugin', at: '2026-01-02T03:10:00Z' });
    await n.idle();
    assert.deepEqual(
      slack.calls.map((c) => c.path),
      ['/api/chat.postMessage', '/api/chat.update'],
    );
    const [m] = n.posted(key);
    assert.match(
      JSON.stringify(slack.messages.get(`${m?.channel}/${m?.ts}`)?.blocks),
      /Rejected by \*alice\*/,
    );
  });

  it('after a restart, resolve updates the message it is told about', async () => {
    const first = notifier();
    first.n.send(awaiting, [channel]);
    await first.n.idle();
    const messages = first.n.posted(key);
    slack.calls.length = 0;

    const { n } = notifier();
    n.resolve(key, { decision: 'Approve', by: 'bob', via: 'link', at: '2026-01-02T03:10:00Z' });
    await n.idle();
    assert.equal(slack.calls.length, 0, 'nothing known: nothing to update');
    n.resolve(
      key,
      { decision: 'Approve', by: 'bob', via: 'link', at: '2026-01-02T03:10:00Z' },
      { notification: awaiting, messages },
    );
    await n.idle();
    assert.deepEqual(
      slack.calls.map((c) => c.path),
      ['/api/chat.update'],
    );
  });

  it('no token, webhook path or secret reaches a log line', async () => {
    slack.failNext(1, { status: 500 });
    const down = await refusedUrl(`/services/${SECRET_PATH}?x=QUERYSECRET`);
    const { n, log } = notifier({
      slack: new SlackWebApi({ token: 'xoxb-9999-WRONGSECRET', baseUrl: slack.apiUrl, ...fast }),
      slackWebhooks: new Map([
        ['ops', new IncomingWebhook({ name: 'ops', url: down, ...fast })],
        [
          'gone',
          new IncomingWebhook({ name: 'gone', url: `${slack.url}/x/${SECRET_PATH}`, ...fast }),
        ],
      ]),
    });
    n.send(awaiting, [
      channel,
      { kind: 'slack-webhook', name: 'ops' },
      { kind: 'slack-webhook', name: 'gone' },
    ]);
    await n.idle();
    const text = log.text();
    assert.ok(log.lines.length >= 3, text);
    for (const secret of ['WRONGSECRET', TOKEN, 'HOOKSECRETPATH', 'QUERYSECRET', 'B0000']) {
      assert.ok(!text.includes(secret), `${secret} in ${text}`);
    }
    assert.match(text, /invalid_auth/);
  });

  it('notifyMetrics counts results and retries in Prometheus', async () => {
    const registry = new Registry();
    slack.failNext(1, { status: 500 });
    const { n } = notifier({ metrics: notifyMetrics(registry) });
    n.send(notification(NotificationKind.Completed), [channel, { kind: 'webhook', name: 'nope' }]);
    await n.idle();
    const text = await registry.metrics();
    assert.match(text, /stepwise_notifications_total\{channel="slack",result="sent"\} 1/);
    assert.match(text, /stepwise_notifications_total\{channel="webhook",result="unconfigured"\} 1/);
    assert.match(text, /stepwise_notification_retries_total\{channel="slack"\} 1/);
  });

  it('close cancels what is in flight and drops what is queued', async () => {
    slack.failNext(1, { hang: true });
    const { n, metrics } = notifier({ concurrency: 1 });
    n.send(notification(NotificationKind.Completed), [channel, channel]);
    await slack.waitForCalls(1);
    await n.close();
    assert.deepEqual(metrics.results.sort(), [
      ['slack', 'dropped'],
      ['slack', 'failed'],
    ]);
    n.send(notification(NotificationKind.Completed), [channel]);
    assert.deepEqual(metrics.results.at(-1), ['slack', 'dropped']);
  });
});
