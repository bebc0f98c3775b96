// The in-cluster dashboard's server with a hub fed by hand and a fake Kubernetes (tokens and
// SubjectAccessReviews answered from tables): no anonymous access, a bad token refused, each
// person's list narrowed to what they may list, an action asked for the person first (a
// refusal runs nothing), sent with their session, CSRF and Origin on every action and form,
// the configured Host only, proxy headers from the trusted address only.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../../src/api/rollout.ts';
import type { ClusterIdentity } from '../../../src/dashboard/server/access.ts';
import {
  serveClusterDashboard,
  type ClusterDashboard,
} from '../../../src/dashboard/server/cluster-app.ts';
import type { ClusterSession } from '../../../src/dashboard/server/cluster-sessions.ts';
import { Hub, type WatchedSets } from '../../../src/dashboard/server/hub.ts';
import { parseCidr } from '../../../src/dashboard/server/proxy-trust.ts';
import type { ActionRequest } from '../../../src/dashboard/model/wire.ts';
import { freeLoopbackPorts } from '../../cluster/ports.ts';
import { pausedStatus, rollout } from '../cli/fixtures.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let port = 0;
function call(
  path: string,
  o: {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string;
    from?: string;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: o.method ?? 'GET',
        localAddress: o.from ?? '127.0.0.1',
        headers: { host: `127.0.0.1:${port}`, ...o.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        // A stream's first event is enough: it is closed after it.
        res.on('data', () => {
          if (String(res.headers['content-type']).startsWith('text/event-stream')) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const inNamespace = (namespace: string): Rollout => {
  const r = rollout(pausedStatus);
  return { ...r, metadata: { ...r.metadata, namespace, name: 'web' } };
};

describe('in-cluster dashboard server', () => {
  const sets: WatchedSets = {
    rollouts: { values: [inNamespace('shop'), inNamespace('bank')] },
    replicaSets: { values: [] },
    pods: { values: [] },
    analysisRuns: { values: [] },
    events: { values: [] },
  };
  const hub = new Hub(sets, 'all namespaces');
  const TOKENS: Record<string, { username: string; groups: string[] }> = {
    'alice-token': { username: 'alice', groups: ['shop-readers'] },
    'olga-token': { username: 'olga', groups: ['shop-operators'] },
    'carol-token': { username: 'carol', groups: ['unreviewable'] },
  };
  // Who may do what: readers list in shop; operators also patch rollouts/status in shop.
  const allowed = (groups: readonly string[], verb: string, ns: string): boolean =>
    ns === 'shop' &&
    (verb === 'list'
      ? groups.some((g) => g.startsWith('shop-'))
      : groups.includes('shop-operators'));
  const identity: ClusterIdentity = {
    review: (token) => {
      const user = TOKENS[token];
      return Promise.resolve(
        user ? { ok: true, user } : { ok: false, message: 'token lookup failed' },
      );
    },
    check: (user, a) =>
      user.groups.includes('unreviewable')
        ? Promise.reject(new Error('subjectaccessreviews is forbidden'))
        : Promise.resolve({ allowed: allowed(user.groups, a.verb, a.namespace) }),
  };
  const ran: { req: ActionRequest; session: ClusterSession }[] = [];
  let dash: ClusterDashboard;
  let origin = '';

  before(async () => {
    // The public origin names the port, so it is chosen first.
    ({ port } = await freeLoopbackPorts(['port']));
    origin = `http://127.0.0.1:${port}`;
    dash = await serveClusterDashboard({
      hub,
      identity,
      assets: { js: 'console.log(1)', css: 'body{}' },
      host: '127.0.0.1',
      port,
      publicOrigins: [origin],
      actions: {
        offers: () => [],
        run: (req, session) => {
          ran.push({ req, session });
          return Promise.resolve({
            ok: true,
            message: `rollout '${req.name}' promoted`,
            status: 200,
          });
        },
      },
      proxy: {
        userHeader: 'X-Remote-User',
        groupHeader: 'X-Remote-Group',
        trusted: [parseCidr('127.0.0.2/32')],
      },
    });
  });
  after(async () => {
    hub.close();
    await dash.close();
  });

  async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
    const res = await call('/sign-in', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    assert.equal(res.status, 303, res.body);
    const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
    const page = await call('/', { headers: { cookie } });
    const csrf = /name="stepwise-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    return { cookie, csrf };
  }

  const promote = (h: Record<string, string | string[]>, from?: string): Promise<Answer> =>
    call('/api/action', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json', ...h },
      body: '{"namespace":"shop","name":"web","action":"promote"}',
      ...(from === undefined ? {} : { from }),
    });

  it('shows the sign-in page without a session, and answers the API with 401', async () => {
    const page = await call('/');
    assert.equal(page.status, 401);
    assert.match(page.body, /<h1>Sign in<\/h1>/);
    assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
    // Under no-referrer a browser posts the sign-in form with `Origin: null`, which is refused.
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    assert.equal((await call('/api/stream')).status, 401);
    assert.equal((await call('/healthz', { headers: { host: '10.1.2.3:3100' } })).status, 200);
  });

  it('refuses a bad token with what Kubernetes said, and sets no cookie', async () => {
    const res = await call('/sign-in', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=nope',
    });
    assert.equal(res.status, 403);
    assert.match(res.body, /Refused: Kubernetes did not accept this token \(token lookup failed\)/);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it('refuses a sign-in posted from another site (login CSRF)', async () => {
    const res = await call('/sign-in', {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'token=alice-token',
    });
    assert.equal(res.status, 403);
    assert.equal(res.headers['set-cookie'], undefined);
  });

  it('answers only under the public origin’s host', async () => {
    const { cookie } = await signIn('alice-token');
    assert.equal((await call('/', { headers: { cookie, host: 'evil.example' } })).status, 421);
  });

  it('shows each person only the namespaces they may list', async () => {
    const { cookie } = await signIn('alice-token');
    const list = await call('/api/stream', { headers: { cookie } });
    const rows = (
      JSON.parse(/data: (.*)/.exec(list.body)?.[1] ?? '{}') as { rows: { key: string }[] }
    ).rows;
    assert.deepEqual(
      rows.map((r) => r.key),
      ['shop/web'],
    );
    const hidden = await call('/api/stream?rollout=bank/web', { headers: { cookie } });
    assert.match(hidden.body, /"detail":null/);
    assert.match(
      hidden.body,
      /forbidden: user \\"alice\\" cannot list rollouts in the namespace \\"bank\\"/,
    );
  });

  it('says so when it cannot ask Kubernetes what a person may see, rather than an empty list', async () => {
    const { cookie, csrf } = await signIn('carol-token');
    const list = await call('/api/stream', { headers: { cookie } });
    const payload = JSON.parse(/data: (.*)/.exec(list.body)?.[1] ?? '{}') as {
      rows: unknown[];
      problems: string[];
    };
    assert.deepEqual(payload.rows, []);
    assert.deepEqual(payload.problems, [
      'cannot tell whether you may see namespace bank: subjectaccessreviews is forbidden',
      'cannot tell whether you may see namespace shop: subjectaccessreviews is forbidden',
    ]);
    ran.length = 0;
    const res = await promote({ cookie, 'x-csrf-token': csrf });
    assert.equal(res.status, 502);
    assert.match(
      res.body,
      /cannot ask Kubernetes whether you may patch rollouts in the namespace \\"shop\\": subjectaccessreviews is forbidden \(nothing was written\)/,
    );
    assert.deepEqual(ran, []);
  });

  it('refuses a person’s action Kubernetes would refuse, runs nothing, says what and where', async () => {
    const { cookie, csrf } = await signIn('alice-token');
    ran.length = 0;
    const res = await promote({ cookie, 'x-csrf-token': csrf });
    assert.equal(res.status, 403);
    assert.deepEqual(JSON.parse(res.body), {
      ok: false,
      message:
        'forbidden: user "alice" cannot patch rollouts/status in the namespace "shop" (nothing was written)',
    });
    assert.deepEqual(ran, []);
  });

  it('runs an allowed action with the person’s session (their token)', async () => {
    const { cookie, csrf } = await signIn('olga-token');
    ran.length = 0;
    const res = await promote({ cookie, 'x-csrf-token': csrf });
    assert.equal(res.status, 200);
    assert.equal(ran.length, 1);
    assert.equal(ran[0]?.session.user.username, 'olga');
    assert.deepEqual(ran[0]?.session.credential, { kind: 'token', token: 'olga-token' });
  });

  it('refuses an action without the CSRF token, with a wrong one, or from another Origin', async () => {
    const { cookie, csrf } = await signIn('olga-token');
    ran.length = 0;
    const cases: Record<string, string>[] = [
      { cookie },
      { cookie, 'x-csrf-token': 'x'.repeat(csrf.length) },
      { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' },
      { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' },
    ];
    for (const h of cases) {
      assert.equal((await promote(h)).status, 403, JSON.stringify(h));
    }
    assert.deepEqual(ran, []);
  });

  it('signs out: the session ends (a form with the CSRF token, from our page)', async () => {
    const { cookie, csrf } = await signIn('olga-token');
    const form = { origin, 'content-type': 'application/x-www-form-urlencoded', cookie };
    assert.equal(
      (await call('/sign-out', { method: 'POST', headers: form, body: 'csrf=wrong' })).status,
      403,
    );
    const out = await call('/sign-out', { method: 'POST', headers: form, body: `csrf=${csrf}` });
    assert.equal(out.status, 303);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await call('/api/stream', { headers: { cookie } })).status, 401);
  });

  it('believes proxy headers from the trusted address only; the proxied person acts as themselves', async () => {
    const proxied = { 'x-remote-user': 'pat', 'x-remote-group': ['shop-operators'] };
    const spoofed = await call('/', { headers: proxied, from: '127.0.0.1' });
    assert.equal(spoofed.status, 401);
    assert.equal(spoofed.headers['set-cookie'], undefined);

    const page = await call('/', { headers: proxied, from: '127.0.0.2' });
    assert.equal(page.status, 200);
    assert.match(page.body, /signed in as pat/);
    const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
    const csrf = /name="stepwise-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    ran.length = 0;
    // The proxy's session cookie on a direct connection (no trusted headers) is nobody's.
    assert.equal((await promote({ cookie, 'x-csrf-token': csrf })).status, 401);
    const res = await promote({ ...proxied, cookie, 'x-csrf-token': csrf }, '127.0.0.2');
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(ran[0]?.session.user, { username: 'pat', groups: ['shop-operators'] });
    assert.deepEqual(ran[0]?.session.credential, { kind: 'proxy' });
  });
});
