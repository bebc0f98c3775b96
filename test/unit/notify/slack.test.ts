// The Slack Web API client against the Slack API double over loopback: what it sends, what it
// retries (5xx, 429, ratelimited, transport) and what it gives up on at once.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  NotifyHttpError,
  NotifyTransportError,
  SlackApiError,
  SlackWebApi,
  type NotifyError,
} from '../../../src/notify/index.ts';
import { SlackApiDouble } from '../../fixtures/slack-api-double.ts';
import { TOKEN, fast, refusedUrl, rejection } from './support.ts';

describe('SlackWebApi', () => {
  let slack: SlackApiDouble;
  before(async () => {
    slack = await SlackApiDouble.start({ token: TOKEN });
  });
  after(() => slack.close());
  beforeEach(() => {
    slack.calls.length = 0;
  });
  const api = (over: Partial<ConstructorParameters<typeof SlackWebApi>[0]> = {}) =>
    new SlackWebApi({ token: TOKEN, baseUrl: slack.apiUrl, ...fast, ...over });

  it('posts and updates with the bot token and a JSON body', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }];
    const posted = await api().postMessage({ channel: 'C0123ABCD', text: 'hi', blocks });
    assert.equal(posted.channel, 'C0123ABCD');
    assert.match(posted.ts, /^1700000000\.\d{6}$/);
    const [call] = slack.calls;
    assert.equal(call?.path, '/api/chat.postMessage');
    assert.equal(call?.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(call?.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(call?.body, { channel: 'C0123ABCD', text: 'hi', blocks });

    await api().update({ ...posted, text: 'done', blocks: [] });
    assert.equal(slack.calls[1]?.path, '/api/chat.update');
    assert.deepEqual(slack.messages.get(`${posted.channel}/${posted.ts}`), {
      ...posted,
      text: 'done',
      blocks: [],
    });
  });

  it('a wrong token is invalid_auth, not retried, and not in the message', async () => {
    const err = await rejection(
      api({ token: 'xoxb-wrong-SECRET' }).postMessage({ channel: 'C0123ABCD', text: 'x' }),
    );
    assert.ok(err instanceof SlackApiError);
    assert.equal(err.code, 'SW_NOTIFY_SLACK_API');
    assert.equal(err.slackError, 'invalid_auth');
    assert.equal(slack.calls.length, 1, 'exactly one call');
    assert.ok(!err.message.includes('xoxb-wrong-SECRET'));
  });

  for (const error of ['channel_not_found', 'not_in_channel']) {
    it(`${error} is not retried`, async () => {
      if (error === 'not_in_channel') slack.failNext(1, { ok: false, error });
      const err = await rejection(api().postMessage({ channel: 'C9999', text: 'x' }));
      assert.ok(err instanceof SlackApiError);
      assert.equal(err.slackError, error);
      assert.equal(slack.calls.length, 1);
    });
  }

  it('HTTP 500 twice, then success: sent on the third call', async () => {
    slack.failNext(2, { status: 500 });
    const retries: NotifyError[] = [];
    await api().postMessage(
      { channel: 'C0123ABCD', text: 'x' },
      { onRetry: (e) => retries.push(e) },
    );
    assert.equal(slack.calls.length, 3);
    assert.deepEqual(
      retries.map((e) => [e.code, e instanceof NotifyHttpError && e.httpStatus]),
      [
        ['SW_NOTIFY_HTTP', 500],
        ['SW_NOTIFY_HTTP', 500],
      ],
    );
  });

  it('gives up after the retries with the last error', async () => {
    slack.failNext(3, { status: 503 });
    const err = await rejection(api().postMessage({ channel: 'C0123ABCD', text: 'x' }));
    assert.ok(err instanceof NotifyHttpError);
    assert.equal(err.httpStatus, 503);
    assert.equal(slack.calls.length, 3, 'first attempt + 2 retries');
  });

  it('HTTP 429 waits out Retry-After before the retry', async () => {
    slack.failNext(1, { status: 429, retryAfter: 1 });
    const started = performance.now();
    await api().postMessage({ channel: 'C0123ABCD', text: 'x' });
    const waited = performance.now() - started;
    assert.equal(slack.calls.length, 2);
    assert.ok(waited >= 950, `waited ${Math.round(waited)} ms`);
  });

  it('Retry-After is capped', async () => {
    slack.failNext(1, { status: 429, retryAfter: 3600 });
    const started = performance.now();
    await api({ maxRetryAfterMs: 50 }).postMessage({ channel: 'C0123ABCD', text: 'x' });
    assert.ok(performance.now() - started < 1000);
  });

  it('ok:false ratelimited on HTTP 200 is retried', async () => {
    slack.failNext(1, { ok: false, error: 'ratelimited' });
    await api().postMessage({ channel: 'C0123ABCD', text: 'x' });
    assert.equal(slack.calls.length, 2);
  });

  it('a refused connection is a transport error after the retries', async () => {
    const retries: NotifyError[] = [];
    const err = await rejection(
      api({ baseUrl: await refusedUrl('/api') }).postMessage(
        { channel: 'C0123ABCD', text: 'x' },
        { onRetry: (e) => retries.push(e) },
      ),
    );
    assert.ok(err instanceof NotifyTransportError);
    assert.equal(err.transportCode, 'ECONNREFUSED');
    assert.equal(retries.length, 2);
  });

  it('an answer that never comes times out and is retried', async () => {
    slack.failNext(1, { hang: true });
    await api({ timeoutMs: 100 }).postMessage({ channel: 'C0123ABCD', text: 'x' });
    assert.equal(slack.calls.length, 2);
  });

  it('a cancelled send stops at once and is not retried', async () => {
    slack.failNext(1, { hang: true });
    const stop = new AbortController();
    const pending = rejection(
      api().postMessage({ channel: 'C0123ABCD', text: 'x' }, { signal: stop.signal }),
    );
    await slack.waitForCalls(1);
    stop.abort();
    const err = await pending;
    assert.ok(err instanceof NotifyTransportError);
    assert.equal(err.retryable, false);
    assert.equal(slack.calls.length, 1);
  });

  it('an answer over 1 MiB is refused, not read', async () => {
    const big = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"ok":true,"pad":"${'x'.repeat(1024 * 1024 + 10)}"}`);
    });
    big.listen(0, '127.0.0.1');
    await once(big, 'listening');
    try {
      const port = (big.address() as AddressInfo).port;
      const err = await rejection(
        api({ baseUrl: `http://127.0.0.1:${port}/api` }).postMessage({ channel: 'C', text: 'x' }),
      );
      assert.ok(err instanceof NotifyTransportError);
      assert.match(err.message, /larger than/);
    } finally {
      big.close();
      big.closeAllConnections();
    }
  });

  it('a non-Slack answer is an HTTP error naming the status', async () => {
    const err = await rejection(
      api({ baseUrl: `${slack.url}/nowhere` }).postMessage({ channel: 'C0123ABCD', text: 'x' }),
    );
    assert.ok(err instanceof NotifyHttpError);
    assert.equal(err.httpStatus, 404);
    assert.equal(err.retryable, false);
  });
});
