// Where the web provider may go: only http(s), never a denied address (loopback, link-local and
// metadata by default, the administrator's list on top), checked on the address connected to so
// that a name resolving differently the second time cannot slip through; redirects only within
// the origin and none with a secret header; bodies capped.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Metric, WebMetric } from '../../../../src/api/index.ts';
import {
  EgressPolicy,
  parseHostList,
  webProvider,
} from '../../../../src/analysis/providers/index.ts';
import type { ProviderOutcome } from '../../../../src/analysis/evaluate/index.ts';
import { context, MemorySecrets } from './support.ts';

type Answer = (url: string) => { status: number; headers?: Record<string, string>; body?: string };

/** A server on one loopback address that counts the connections it sees. */
class Listener {
  connections = 0;
  readonly requests: { url: string; headers: Record<string, unknown> }[] = [];
  readonly #server: Server;
  #reply: Answer = () => ({ status: 200, body: '{"ok":true}' });
  port = 0;
  readonly host: string;
  constructor(host: string) {
    this.host = host;
    this.#server = createServer((req, res) => {
      this.requests.push({ url: req.url ?? '', headers: { ...req.headers } });
      const r = this.#reply(req.url ?? '');
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(r.body ?? '');
    });
    this.#server.on('connection', () => this.connections++);
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, this.host, resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }
  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }
  replies(f: Answer): void {
    this.#reply = f;
  }
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

let allowed: Listener;
let denied: Listener;
before(async () => {
  allowed = await new Listener('127.0.0.1').start();
  denied = await new Listener('127.0.0.2').start();
});
after(async () => {
  await allowed.close();
  await denied.close();
});

/** 127.0.0.1 allowed by the administrator; the rest of 127.0.0.0/8 stays denied by default. */
const policy = (resolve?: (host: string) => string[]) =>
  new EgressPolicy({
    allowed: ['127.0.0.1'],
    ...(resolve === undefined
      ? {}
      : {
          resolve: (host: string) =>
            Promise.resolve(resolve(host).map((address) => ({ address, family: 4 }))),
        }),
  });

const metric = (w: Partial<WebMetric>): Metric => ({
  name: 'm',
  provider: { web: { url: `${allowed.origin}/`, ...w } },
});
const message = (o: ProviderOutcome): string => (o.ok === false ? o.message : `ok: ${o.value}`);

describe('the egress policy', () => {
  const refusal = (p: EgressPolicy, host: string) => p.refusalOfHost(host) ?? 'allowed';
  it('denies loopback, link-local and metadata addresses by default, and allows the rest', () => {
    const p = new EgressPolicy();
    for (const host of [
      '127.0.0.1',
      '[::1]',
      '169.254.169.254',
      '169.254.10.1',
      '[fe80::1]',
      '[fd00:ec2::254]',
      '[::ffff:127.0.0.1]',
      'metadata.google.internal',
      'METADATA.google.internal.',
    ]) {
      assert.match(refusal(p, host), /host not allowed/, host);
    }
    for (const host of ['10.0.0.1', 'prometheus.monitoring.svc', '[2001:db8::1]']) {
      assert.equal(refusal(p, host), 'allowed', host);
    }
  });

  it('the most specific entry decides: metadata stays denied when link-local is allowed', () => {
    const p = new EgressPolicy({
      allowed: ['169.254.0.0/16', '10.1.2.3'],
      denied: ['10.0.0.0/8', '*.internal.example'],
    });
    assert.equal(refusal(p, '169.254.1.1'), 'allowed');
    assert.match(refusal(p, '169.254.169.254'), /cloud metadata/);
    assert.match(refusal(p, '10.9.9.9'), /denied by 10.0.0.0\/8/);
    assert.equal(refusal(p, '10.1.2.3'), 'allowed');
    assert.match(refusal(p, 'db.internal.example'), /denied by \*\.internal\.example/);
  });

  it('a list entry that is neither a CIDR nor a host name is refused, naming it', () => {
    assert.deepEqual(parseHostList('10.0.0.0/8, ::1 ,svc.ns'), ['10.0.0.0/8', '::1', 'svc.ns']);
    for (const bad of ['10.0.0.0/33', 'http://x', 'a b', '1.2.3.4/x']) {
      assert.throws(
        () => parseHostList(bad),
        new RegExp(`"${bad.replace(/[/.]/g, '\\$&')}" is not a CIDR`),
      );
    }
  });
});

describe('the web provider under the egress policy', () => {
  it('refuses data: and file: URLs before anything is read', async () => {
    const web = webProvider({ egress: policy() });
    for (const url of ['data:,{{args.x}}', 'file:///etc/passwd']) {
      const o = await web.measure(metric({ url }), context({ x: 'v' }));
      assert.match(message(o), /unsupported URL scheme/, url);
    }
  });

  it('a denied address sees no connection, and the measurement says host not allowed', async () => {
    const web = webProvider({ egress: policy((h) => (h === 'svc.test' ? ['127.0.0.2'] : [])) });
    for (const url of [`${denied.origin}/`, `http://svc.test:${denied.port}/`]) {
      const o = await web.measure(metric({ url }), context());
      assert.match(message(o), /host not allowed/, url);
    }
    assert.equal(denied.connections, 0);
  });

  it('DNS rebinding: each connection uses the address it checked, a denied one is refused', async () => {
    const answers = [['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1', '127.0.0.2']];
    const web = webProvider({ egress: policy(() => answers.shift() ?? []) });
    const url = `http://rebind.test:${allowed.port}/`;
    assert.equal(message(await web.measure(metric({ url }), context())), 'ok: {"ok":true}');
    denied.replies(() => ({ status: 200, body: '"pwned"' }));
    // The same port on 127.0.0.2 is refused however the name resolves.
    assert.match(message(await web.measure(metric({ url }), context())), /host not allowed/);
    assert.match(message(await web.measure(metric({ url }), context())), /host not allowed/);
    assert.equal(denied.connections, 0);
  });

  it('follows a redirect within the origin, not to another one', async () => {
    const web = webProvider({ egress: new EgressPolicy({ allowed: ['127.0.0.0/8'] }) });
    allowed.replies((url) =>
      url === '/start'
        ? { status: 302, headers: { location: '/there' } }
        : url === '/away'
          ? { status: 302, headers: { location: `${denied.origin}/stolen` } }
          : { status: 200, body: '{"at":"there"}' },
    );
    const followed = await web.measure(metric({ url: `${allowed.origin}/start` }), context());
    assert.equal(message(followed), 'ok: {"at":"there"}');
    const before = denied.connections;
    // Not even a plain header goes to another origin: nothing is sent there at all.
    const away = await web.measure(
      metric({ url: `${allowed.origin}/away`, headers: [{ key: 'X-Api-Key', value: 'k' }] }),
      context(),
    );
    assert.match(
      message(away),
      /redirect to another origin \(http:\/\/127\.0\.0\.2:\d+\) not followed/,
    );
    assert.equal(denied.connections, before);
    assert.ok(!denied.requests.some((r) => 'x-api-key' in r.headers));
  });

  it('follows no redirect at all when a header comes from a Secret', async () => {
    const web = webProvider({ egress: new EgressPolicy({ allowed: ['127.0.0.0/8'] }) });
    allowed.replies((url) =>
      url === '/start' ? { status: 307, headers: { location: '/there' } } : { status: 200 },
    );
    const secrets = new MemorySecrets();
    secrets.values.set('ns/api/key', 'SECRET-apikey');
    const seen = allowed.requests.length;
    const o = await web.measure(
      metric({
        url: `${allowed.origin}/start`,
        headers: [{ key: 'X-Api-Key', valueFrom: { secretKeyRef: { name: 'api', key: 'key' } } }],
      }),
      context({}, secrets),
    );
    assert.match(message(o), /redirect not followed: the request carries headers from Secrets/);
    assert.deepEqual(
      allowed.requests.slice(seen).map((r) => r.url),
      ['/start'],
    );
  });

  it('a body past 1 MiB is an Error, not read whole', async () => {
    const web = webProvider({ egress: new EgressPolicy({ allowed: ['127.0.0.1'] }) });
    allowed.replies(() => ({ status: 200, body: 'x'.repeat(2 * 1024 * 1024) }));
    const o = await web.measure(metric({}), context());
    assert.match(message(o), /answer larger than 1048576 bytes/);
  });
});
