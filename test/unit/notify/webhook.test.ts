// Webhooks against the double over loopback: Slack incoming webhooks (the URL is the secret)
// and generic webhooks (our JSON document, optionally signed).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  GenericWebhook,
  IncomingWebhook,
  NotifyHttpError,
  NotifyTransportError,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookSignature,
} from '../../../src/notify/index.ts';
import { SlackApiDouble } from '../../fixtures/slack-api-double.ts';
import { TOKEN, fast, refusedUrl, rejection } from './support.ts';

const SECRET_PATH = 'T0000/B0000/XXXXSECRETXXXX';

describe('webhooks', () => {
  let slack: SlackApiDouble;
  before(async () => {
    slack = await SlackApiDouble.start({ token: TOKEN });
  });
  after(() => slack.close());
  beforeEach(() => {
    slack.calls.length = 0;
  });

  it('a Slack incoming webhook gets { text, blocks }', async () => {
    const hook = new IncomingWebhook({ name: 'ops', url: slack.webhookUrl(SECRET_PATH), ...fast });
    await hook.post({ text: 'hello', blocks: [{ type: 'divider' }] });
    assert.equal(slack.calls[0]?.path, `/webhook/${SECRET_PATH}`);
    assert.deepEqual(slack.calls[0]?.body, { text: 'hello', blocks: [{ type: 'divider' }] });
  });

  it('a Slack incoming webhook retries 5xx and 429, not 4xx', async () => {
    const hook = new IncomingWebhook({ name: 'ops', url: slack.webhookUrl(SECRET_PATH), ...fast });
    slack.failNext(1, { status: 500 });
    slack.failNext(1, { status: 429 });
    await hook.post({ text: 'x', blocks: [] });
    assert.equal(slack.calls.length, 3);

    slack.calls.length = 0;
    const gone = new IncomingWebhook({
      name: 'ops',
      url: `${slack.url}/nope/${SECRET_PATH}`,
      ...fast,
    });
    const err = await rejection(gone.post({ text: 'x', blocks: [] }));
    assert.ok(err instanceof NotifyHttpError);
    assert.equal(err.httpStatus, 404);
    assert.equal(slack.calls.length, 1);
  });

  it('errors show the webhook by scheme and host only', async () => {
    const url = await refusedUrl(`/services/${SECRET_PATH}?token=QUERYSECRET`);
    const hook = new IncomingWebhook({ name: 'ops', url, ...fast, retries: 0 });
    const err = await rejection(hook.post({ text: 'x', blocks: [] }));
    assert.ok(err instanceof NotifyTransportError);
    assert.match(err.message, /^Slack incoming webhook "ops" \(http:\/\/127\.0\.0\.1:\d+\/…\)/);
    assert.ok(!err.message.includes('SECRET'), err.message);
    assert.ok(!hook.endpoint.includes('SECRET'));
  });

  it('a generic webhook gets the JSON document, unsigned without a secret', async () => {
    const hook = new GenericWebhook({ name: 'audit', url: slack.hookUrl('audit'), ...fast });
    await hook.post({ kind: 'completed', n: 1 });
    const [call] = slack.calls;
    assert.deepEqual(call?.body, { kind: 'completed', n: 1 });
    assert.equal(call?.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(call?.headers[WEBHOOK_SIGNATURE_HEADER], undefined);
  });

  it('a signed generic webhook carries a timestamp and an HMAC a receiver can check', async () => {
    let nowMs = 1_700_000_000_500;
    const secret = 'webhook-signing-secret';
    const hook = new GenericWebhook({
      name: 'audit',
      url: slack.hookUrl('audit'),
      secret,
      now: () => (nowMs += 1000),
      ...fast,
    });
    slack.failNext(1, { status: 502 });
    await hook.post({ kind: 'aborted' });
    assert.equal(slack.calls.length, 2);
    const stamps = slack.calls.map((c) => c.headers[WEBHOOK_TIMESTAMP_HEADER]);
    assert.deepEqual(stamps, ['1700000001', '1700000002'], 'a fresh timestamp per attempt');
    for (const call of slack.calls) {
      const ts = String(call.headers[WEBHOOK_TIMESTAMP_HEADER]);
      assert.equal(
        call.headers[WEBHOOK_SIGNATURE_HEADER],
        webhookSignature(call.rawBody, ts, secret),
      );
      assert.match(String(call.headers[WEBHOOK_SIGNATURE_HEADER]), /^sha256=[0-9a-f]{64}$/);
    }
  });

  it('webhookSignature is HMAC-SHA256 over "<timestamp>.<body>"', () => {
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac k
    assert.equal(
      webhookSignature('{"a":1}', '1700000000', 'k'),
      'sha256=1b6ad1bc9bf48c52ce01939866d5877c6cc4e87ddad27e16673cb8c4964394a3',
    );
  });
});
