// The external port's guards, over a real loopback socket: rate limit, body cap, leader-only
// actions, method and path handling, and the headers every answer carries.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startExternalServer, text } from '../../../src/server/external.ts';
import type { ExternalRequest, ExternalServer } from '../../../src/server/external.ts';
import { ClientRateLimiter } from '../../../src/server/rate-limit.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function send(
  port: number,
  method: string,
  path: string,
  body?: Buffer,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('external server', () => {
  let server: ExternalServer;
  let leading = true;
  const seen: ExternalRequest[] = [];
  before(async () => {
    server = await startExternalServer({
      host: '127.0.0.1',
      port: 0,
      leading: () => leading,
      log: silent,
      now: () => 0, // no refill: the burst is all a client gets in this file
      rateLimit: { burst: 12, perSecond: 1 },
      maxBodyBytes: 1024,
      routes: [
        {
          method: 'POST',
          pattern: /^\/act\/([^/]+)$/,
          acts: true,
          handle: (req) => {
            seen.push(req);
            return Promise.resolve(text(200, `acted on ${req.params[0]}`));
          },
        },
        {
          method: 'GET',
          pattern: /^\/act\/([^/]+)$/,
          acts: false,
          handle: () => Promise.resolve(text(200, 'page')),
        },
      ],
    });
  });
  after(() => server.close());

  it('hands the handler the raw body and the path parameters', async () => {
    const res = await send(server.port, 'POST', '/act/abc?x=1', Buffer.from('a=b&c=%20'));
    assert.equal(res.status, 200);
    assert.equal(res.body, 'acted on abc\n');
    assert.equal(seen.at(-1)?.rawBody.toString(), 'a=b&c=%20');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
  });

  it('refuses a body over the cap without calling the handler', async () => {
    const count = seen.length;
    const res = await send(server.port, 'POST', '/act/big', Buffer.alloc(2048, 'x'));
    assert.equal(res.status, 413);
    assert.equal(seen.length, count);
  });

  it('a standby does not act: 503 with Retry-After; it still shows pages', async () => {
    leading = false;
    try {
      const res = await send(server.port, 'POST', '/act/abc');
      assert.equal(res.status, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.match(res.body, /standing by/);
      assert.equal((await send(server.port, 'GET', '/act/abc')).status, 200);
    } finally {
      leading = true;
    }
  });

  it('unknown paths are 404, other methods 405 with Allow', async () => {
    assert.equal((await send(server.port, 'GET', '/nope')).status, 404);
    const res = await send(server.port, 'DELETE', '/act/abc');
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'POST, GET');
  });

  it('a client past its burst gets 429 with Retry-After', async () => {
    let res;
    for (let i = 0; i < 20; i++) {
      res = await send(server.port, 'GET', '/act/abc');
      if (res.status === 429) break;
    }
    assert.equal(res?.status, 429);
    assert.equal(res?.headers['retry-after'], '1');
  });
});

describe('client rate limiter', () => {
  it('refills at its rate and says how long to wait', () => {
    const limiter = new ClientRateLimiter({ burst: 2, perSecond: 2 });
    assert.deepEqual(limiter.take('a', 0), { ok: true });
    assert.deepEqual(limiter.take('a', 0), { ok: true });
    assert.deepEqual(limiter.take('a', 0), { ok: false, retryAfterMs: 500 });
    assert.deepEqual(limiter.take('b', 0), { ok: true }, 'clients are counted apart');
    assert.deepEqual(limiter.take('a', 500), { ok: true });
  });

  it('forgets the least recently seen client past maxClients', () => {
    const limiter = new ClientRateLimiter({ burst: 1, perSecond: 1, maxClients: 3 });
    for (const c of ['a', 'b', 'c', 'd']) limiter.take(c, 0);
    assert.equal(limiter.size, 3);
    assert.deepEqual(limiter.take('a', 0), { ok: true }, 'a was forgotten: a full bucket again');
  });
});
