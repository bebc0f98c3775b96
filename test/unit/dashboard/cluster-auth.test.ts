// The in-cluster dashboard's rules, without a server: sessions (expiry, cap, the cookie's
// attributes, sign-out), which proxy headers count (trusted ranges only), what an action is
// asked as and how a refusal reads, the per-person namespace answers, the flags, and the
// impersonation header lines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseInClusterFlags } from '../../../src/cli/dashboard/in-cluster/flags.ts';
import { impersonationHeaders } from '../../../src/cli/dashboard/in-cluster/kube-access.ts';
import { withHeaders } from '../../../src/cli/connection.ts';
import type { HttpRequest, HttpTransport } from '../../../src/kube/rest.ts';
import {
  actionAttributes,
  NamespaceAccess,
  refusalText,
  type ResourceAttributes,
} from '../../../src/dashboard/server/access.ts';
import { SessionStore } from '../../../src/dashboard/server/cluster-sessions.ts';
import {
  addressIn,
  parseCidr,
  proxyIdentity,
  type ProxyTrust,
} from '../../../src/dashboard/server/proxy-trust.ts';
import { ACTION_NAMES } from '../../../src/dashboard/model/wire.ts';

const alice = { username: 'alice', groups: ['team-a'] };
const cookieOf = (setCookie: string): string => setCookie.split(';')[0] ?? '';

describe('in-cluster sessions', () => {
  it('sets an HttpOnly, Secure, SameSite=Strict cookie with a random id, lasting the TTL', () => {
    const store = new SessionStore({ ttlMs: 3600_000, max: 10, now: () => 0 });
    const a = store.open(alice, { kind: 'token', token: 't' });
    const b = store.open(alice, { kind: 'token', token: 't' });
    assert.match(
      a.cookie,
      /^stepwise-dashboard-session=[A-Za-z0-9_-]{32}; HttpOnly; Secure; SameSite=Strict; Path=\/; Max-Age=3600$/,
    );
    assert.notEqual(cookieOf(a.cookie), cookieOf(b.cookie));
    assert.notEqual(a.session.csrf, b.session.csrf);
    assert.equal(store.of(cookieOf(a.cookie))?.user.username, 'alice');
    assert.equal(store.of('stepwise-dashboard-session=guess'), undefined);
    assert.equal(store.of(undefined), undefined);
  });

  it('forgets a session once it expires', () => {
    let t = 0;
    const store = new SessionStore({ ttlMs: 1000, max: 10, now: () => t });
    const { cookie } = store.open(alice, { kind: 'proxy' });
    t = 999;
    assert.ok(store.of(cookieOf(cookie)));
    t = 1000;
    assert.equal(store.of(cookieOf(cookie)), undefined);
    assert.equal(store.size, 0);
  });

  it('keeps at most `max` sessions, dropping the oldest', () => {
    let t = 0;
    const store = new SessionStore({ ttlMs: 1000, max: 2, now: () => t });
    const first = cookieOf(store.open(alice, { kind: 'proxy' }).cookie);
    t = 10;
    const second = cookieOf(store.open(alice, { kind: 'proxy' }).cookie);
    const third = cookieOf(store.open(alice, { kind: 'proxy' }).cookie);
    assert.equal(store.size, 2);
    assert.equal(store.of(first), undefined);
    assert.ok(store.of(second) && store.of(third));
  });

  it('signs out: the session is gone and the cookie cleared', () => {
    const store = new SessionStore({ ttlMs: 1000, max: 2, now: () => 0 });
    const cookie = cookieOf(store.open(alice, { kind: 'proxy' }).cookie);
    assert.match(store.close(cookie), /^stepwise-dashboard-session=; .*Max-Age=0$/);
    assert.equal(store.of(cookie), undefined);
  });
});

describe('trusted proxy headers', () => {
  const trust: ProxyTrust = {
    userHeader: 'X-Remote-User',
    groupHeader: 'X-Remote-Group',
    trusted: [parseCidr('10.8.0.0/16'), parseCidr('127.0.0.2'), parseCidr('fd00:1::/32')],
  };
  const headers = { 'x-remote-user': ['alice'], 'x-remote-group': ['team-a', 'oncall'] };

  it('matches addresses against ranges, IPv4 (also IPv4-mapped IPv6) and IPv6', () => {
    assert.ok(addressIn('10.8.255.1', trust.trusted));
    assert.ok(addressIn('::ffff:10.8.0.9', trust.trusted));
    assert.ok(addressIn('127.0.0.2', trust.trusted));
    assert.ok(addressIn('fd00:1:abcd::5', trust.trusted));
    assert.ok(!addressIn('10.9.0.1', trust.trusted));
    assert.ok(!addressIn('127.0.0.1', trust.trusted));
    assert.ok(!addressIn('fd00:2::1', trust.trusted));
    assert.ok(!addressIn(undefined, trust.trusted));
    assert.ok(addressIn('192.168.1.1', [parseCidr('0.0.0.0/0')]));
  });

  it('refuses a range it cannot read, saying what it expects', () => {
    for (const bad of [
      '10.0.0.0/33',
      '10.0.0/8',
      'fd00::/129',
      'ten',
      '1.2.3.4/8/9',
      '256.0.0.1',
    ]) {
      assert.throws(() => parseCidr(bad), /is not an address range|prefix length/, bad);
    }
  });

  it('believes the headers from a trusted address: the user and every group line', () => {
    assert.deepEqual(proxyIdentity('10.8.0.3', headers, trust), {
      kind: 'user',
      username: 'alice',
      groups: ['team-a', 'oncall'],
    });
  });

  it('does not believe a spoofed header from an untrusted address', () => {
    assert.deepEqual(proxyIdentity('127.0.0.1', headers, trust), {
      kind: 'untrusted',
      from: '127.0.0.1',
    });
    assert.deepEqual(proxyIdentity('10.8.0.3', headers, undefined), { kind: 'none' });
  });

  it('trusts neither of two user headers, and reads configured header names', () => {
    assert.deepEqual(proxyIdentity('10.8.0.3', { 'x-remote-user': ['alice', 'mallory'] }, trust), {
      kind: 'none',
    });
    const own = { ...trust, userHeader: 'X-Forwarded-User', groupHeader: 'X-Forwarded-Groups' };
    assert.deepEqual(proxyIdentity('10.8.0.3', headers, own), { kind: 'none' });
    assert.deepEqual(
      proxyIdentity('10.8.0.3', { 'x-forwarded-user': ['bob'], 'x-forwarded-groups': ['g'] }, own),
      { kind: 'user', username: 'bob', groups: ['g'] },
    );
  });
});

describe('what an action is asked as, and the refusal', () => {
  it('asks each action as the write the plugin sends', () => {
    const of = (action: (typeof ACTION_NAMES)[number]): string => {
      const a = actionAttributes({ namespace: 'shop', name: 'web', action });
      return `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name ?? '(new)'}`;
    };
    assert.deepEqual(Object.fromEntries(ACTION_NAMES.map((n) => [n, of(n)])), {
      promote: 'patch rollouts/status web',
      'promote-full': 'patch rollouts/status web',
      pause: 'patch rollouts/status web',
      resume: 'patch rollouts/status web',
      abort: 'patch rollouts/status web',
      retry: 'patch rollouts/status web',
      approve: 'create rolloutapprovals (new)',
      reject: 'create rolloutapprovals (new)',
      restart: 'patch rollouts web',
      'set-image': 'patch rollouts web',
      undo: 'patch rollouts web',
    });
  });

  it('says who may not do what where, why when Kubernetes said, and that nothing was written', () => {
    const a = actionAttributes({ namespace: 'shop', name: 'web', action: 'promote' });
    assert.equal(
      refusalText(alice, a, { allowed: false }),
      'forbidden: user "alice" cannot patch rollouts/status in the namespace "shop" (nothing was written)',
    );
    assert.equal(
      refusalText(alice, a, { allowed: false, reason: 'denied by policy' }),
      'forbidden: user "alice" cannot patch rollouts/status in the namespace "shop": denied by policy (nothing was written)',
    );
  });

  it('keeps each person’s namespace answers for a while, and does not keep a failed check (it rejects)', async () => {
    let t = 0;
    const asked: string[] = [];
    let fail = false;
    const access = new NamespaceAccess({
      check: (user, a: ResourceAttributes) => {
        asked.push(`${user.username} ${a.verb} ${a.resource} ${a.namespace}`);
        if (fail) return Promise.reject(new Error('unreachable'));
        return Promise.resolve({ allowed: a.namespace === 'shop' });
      },
      ttlMs: 1000,
      max: 10,
      now: () => t,
    });
    assert.equal(await access.canSee(alice, 'shop'), true);
    assert.equal(await access.canSee(alice, 'bank'), false);
    assert.equal(await access.canSee(alice, 'shop'), true);
    assert.equal(await access.canSee({ username: 'bob', groups: [] }, 'shop'), true);
    assert.deepEqual(asked, [
      'alice list rollouts shop',
      'alice list rollouts bank',
      'bob list rollouts shop',
    ]);
    t = 1000;
    fail = true;
    await assert.rejects(access.canSee(alice, 'shop'), /unreachable/);
    fail = false;
    assert.equal(await access.canSee(alice, 'shop'), true);
    assert.equal(asked.length, 5);
  });
});

describe('stepwise-dashboard flags', () => {
  it('defaults: every namespace, port 3100, the port-forward origins, tokens only', () => {
    const c = parseInClusterFlags([]);
    assert.equal(c.listenAddress, '0.0.0.0');
    assert.equal(c.port, 3100);
    assert.equal(c.namespace, undefined);
    assert.deepEqual(c.publicOrigins, ['http://localhost:3100', 'http://127.0.0.1:3100']);
    assert.equal(c.proxy, undefined);
    assert.equal(c.sessionTtlMs, 8 * 3600_000);
  });

  it('a trusted range turns the proxy on, with the header names given', () => {
    const c = parseInClusterFlags([
      '--trusted-proxy-cidr=10.0.0.0/8',
      '--trusted-proxy-cidr=fd00::/8',
      '--proxy-user-header=X-Forwarded-User',
      '--public-origin=https://rollouts.example.com',
    ]);
    assert.deepEqual(
      c.proxy?.trusted.map((r) => r.text),
      ['10.0.0.0/8', 'fd00::/8'],
    );
    assert.equal(c.proxy?.userHeader, 'X-Forwarded-User');
    assert.deepEqual(c.publicOrigins, ['https://rollouts.example.com']);
  });

  it('refuses bad values with one line naming the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--port=x'], /--port must be/],
      [['--public-origin=https://x.example/ui'], /--public-origin must be scheme/],
      [['--public-origin=nope'], /--public-origin must be a URL/],
      [['--trusted-proxy-cidr=10.0.0.0/40'], /--trusted-proxy-cidr .*prefix length/],
      [['--proxy-user-header=X User'], /--proxy-user-header must be a header name/],
      [['--session-ttl=forever'], /--session-ttl must be a duration/],
      [['--max-sessions=0'], /--max-sessions must be a positive number/],
      [['--namespace=Not_A_Name'], /namespace/],
      [['--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) assert.throws(() => parseInClusterFlags(args), message);
  });
});

describe('impersonation header lines', () => {
  it('one Impersonate-Group line per group; none of the request’s own Impersonate-* headers kept', async () => {
    const sent: HttpRequest[] = [];
    const recording: HttpTransport = {
      send: (req) => {
        sent.push(req);
        return Promise.reject(new Error('not sent'));
      },
    };
    const as = withHeaders(
      recording,
      impersonationHeaders({ username: 'alice', groups: ['team-a', 'a,b'] }),
    );
    await as
      .send({
        method: 'GET',
        path: '/api',
        headers: { accept: 'x', 'Impersonate-User': 'root', 'impersonate-group': 'system:masters' },
      })
      .catch(() => undefined);
    assert.deepEqual(sent[0]?.headers, {
      accept: 'x',
      'Impersonate-User': 'alice',
      'Impersonate-Group': ['team-a', 'a,b'],
    });
  });
});
