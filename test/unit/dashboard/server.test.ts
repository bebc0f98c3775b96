// The dashboard's server on 127.0.0.1 with a hub fed by hand and recorded actions: sign-in by
// the printed token only, a cookie that script cannot read, actions refused without the CSRF
// token or from another origin, the page's CSP, event streams pushed on change and freed when
// the browser goes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { Rollout } from '../../../src/api/rollout.ts';
import { serveDashboard, type Dashboard } from '../../../src/dashboard/server/app.ts';
import { Hub, type WatchedSets } from '../../../src/dashboard/server/hub.ts';
import type { ActionRequest } from '../../../src/dashboard/model/wire.ts';
import { pausedStatus, rollout } from '../cli/fixtures.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('dashboard server', () => {
  const rollouts: Rollout[] = [rollout(pausedStatus)];
  const sets: WatchedSets = {
    rollouts: { values: rollouts },
    replicaSets: { values: [] },
    pods: { values: [] },
    analysisRuns: { values: [] },
    events: { values: [] },
  };
  const hub = new Hub(sets, 'all namespaces');
  const ran: ActionRequest[] = [];
  let dash: Dashboard;
  let cookie = '';
  let csrf = '';
  let host = '';

  before(async () => {
    dash = await serveDashboard({
      hub,
      assets: { js: 'console.log(1)', css: 'body{}' },
      port: 0,
      actions: {
        offers: () => [],
        run: (req) => {
          ran.push(req);
          return Promise.resolve({
            ok: true,
            message: `rollout '${req.name}' promoted`,
            status: 200,
          });
        },
      },
    });
    host = `127.0.0.1:${dash.port}`;
  });
  after(async () => {
    hub.close();
    await dash.close();
  });

  it('prints an address on 127.0.0.1 that carries a token', () => {
    assert.match(dash.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
  });

  it('refuses without a token (sign-in page) and with a wrong one', async () => {
    const none = await call(dash.port, '/');
    assert.equal(none.status, 401);
    assert.match(none.body, /Sign-in needed/);
    assert.equal((await call(dash.port, '/api/stream')).status, 401);
    const wrong = await call(dash.port, '/?token=not-the-token');
    assert.equal(wrong.status, 403);
    assert.equal(wrong.headers['set-cookie'], undefined);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie, out of the address', async () => {
    const res = await call(dash.port, new URL(dash.url).pathname + new URL(dash.url).search);
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/');
    const set = String(res.headers['set-cookie']);
    assert.match(set, /HttpOnly/);
    assert.match(set, /SameSite=Strict/);
    cookie = set.split(';')[0] ?? '';
    const page = await call(dash.port, '/', { headers: { cookie } });
    assert.equal(page.status, 200);
    csrf = /name="stepwise-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    assert.ok(csrf.length > 20);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.doesNotMatch(page.body, /<script>/, 'no inline script');
  });

  it('answers only under its own host name (no DNS rebinding)', async () => {
    const res = await call(dash.port, '/', {
      headers: { cookie, host: `evil.example:${dash.port}` },
    });
    assert.equal(res.status, 421);
  });

  const post = (
    headers: Record<string, string>,
    body = '{"namespace":"shop","name":"web","action":"promote"}',
  ) => call(dash.port, '/api/action', { method: 'POST', headers: { cookie, ...headers }, body });

  it('refuses a forged cross-site action: no CSRF token, a wrong one, another Origin', async () => {
    const json = { 'content-type': 'application/json' };
    const cases = [
      { ...json, origin: `http://${host}` },
      { ...json, origin: `http://${host}`, 'x-csrf-token': 'x'.repeat(csrf.length) },
      { ...json, origin: 'https://evil.example', 'x-csrf-token': csrf },
      { ...json, 'x-csrf-token': csrf },
      { ...json, origin: `http://${host}`, 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await post(headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
    }
    const form = await post(
      {
        'content-type': 'application/x-www-form-urlencoded',
        origin: `http://${host}`,
        'x-csrf-token': csrf,
      },
      'action=promote',
    );
    assert.equal(form.status, 415);
    assert.deepEqual(ran, [], 'nothing was acted on');
  });

  it('acts on a request from its page and answers with the result', async () => {
    const headers = {
      'content-type': 'application/json',
      origin: `http://${host}`,
      'x-csrf-token': csrf,
    };
    const res = await post(headers);
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { ok: true, message: "rollout 'web' promoted" });
    assert.deepEqual(ran, [{ namespace: 'shop', name: 'web', action: 'promote' }]);
    const bad = await post(headers, '{"namespace":"shop","name":"../x","action":"promote"}');
    assert.equal(bad.status, 400);
    const unknown = await post(headers, '{"namespace":"shop","name":"web","action":"delete"}');
    assert.equal(unknown.status, 400);
    assert.equal(ran.length, 1);
  });

  it('passes an action its inputs; unknown, non-text or overlong inputs are refused unrun', async () => {
    const headers = {
      'content-type': 'application/json',
      origin: `http://${host}`,
      'x-csrf-token': csrf,
    };
    const body = (inputs: unknown) =>
      JSON.stringify({ namespace: 'shop', name: 'web', action: 'approve', inputs });
    const before = ran.length;
    const ok = await post(headers, body({ comment: '<b>ship it</b>' }));
    assert.equal(ok.status, 200);
    assert.deepEqual(ran.at(-1), {
      namespace: 'shop',
      name: 'web',
      action: 'approve',
      inputs: { comment: '<b>ship it</b>' },
    });
    for (const inputs of [{ command: 'rm' }, { comment: 3 }, { comment: 'x'.repeat(1025) }, []]) {
      const res = await post(headers, body(inputs));
      assert.equal(res.status, 400, JSON.stringify(inputs).slice(0, 40));
    }
    assert.equal(ran.length, before + 1);
  });

  it('pushes the list on change only, and frees a stream when the browser goes', async () => {
    const events: string[] = [];
    let resolveSecond: () => void = () => undefined;
    const second = new Promise<void>((r) => (resolveSecond = r));
    const req = request({
      host: '127.0.0.1',
      port: dash.port,
      path: '/api/stream',
      headers: { cookie },
    });
    const opened = new Promise<void>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (res) => {
        res.setEncoding('utf8').on('data', (chunk: string) => {
          events.push(...chunk.split('\n\n').filter((e) => e.startsWith('event:')));
          if (events.length === 1) resolve();
          if (events.length === 2) resolveSecond();
        });
      });
    });
    req.end();
    await opened;
    assert.match(events[0] ?? '', /^event: list\ndata: .*"key":"shop\/web"/);
    assert.equal(dash.streams, 1);
    // A change that alters nothing shown is not sent (the stream's listener runs before ours).
    const quiet = new Promise<void>((resolve) => {
      const off = hub.subscribe(() => {
        off();
        resolve();
      });
    });
    hub.changed();
    await quiet;
    rollouts.push({ ...rollout(pausedStatus), metadata: { name: 'api', namespace: 'shop' } });
    hub.changed();
    await second;
    assert.match(events[1] ?? '', /"key":"shop\/api"/);
    assert.equal(events.length, 2);
    req.destroy();
    const freed = Date.now();
    while (dash.streams > 0 && Date.now() - freed < 2000) {
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(dash.streams, 0);
    assert.equal(hub.viewers, 0);
  });
});
