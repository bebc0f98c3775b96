// The approval port under a flood (issue 20 item 8), over a real loopback socket with the real
// approval routes: clients behind a trusted proxy are limited apart, a bad credential costs more
// than a good request, a signed Slack interaction is never turned away by someone else's
// garbage, and connections are capped and idle ones closed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { request } from 'node:http';
import { signApprovalToken } from '../../../src/approval/index.ts';
import type { Rollout } from '../../../src/api/index.ts';
import { approvalRoutes } from '../../../src/controller/approval-endpoints.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { parseTrustedProxies } from '../../../src/server/client-address.ts';
import type { TrustedProxies } from '../../../src/server/client-address.ts';
import { startExternalServer } from '../../../src/server/external.ts';
import type { ExternalServer } from '../../../src/server/external.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { blockActionsPayload, signedSlackInteraction } from '../../fixtures/slack-api-double.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const KEY = Buffer.alloc(32, 7);
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const HASH = 'abc123';
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function waitingRollout(): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', generation: 2 },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } } },
      strategy: { canary: { steps: [{ approval: {} }] } },
    },
    status: {
      observedGeneration: '2',
      currentPodHash: HASH,
      stableRS: 'stable1',
      currentStepIndex: 0,
      controllerPause: true,
      pauseConditions: [{ reason: 'AwaitingApproval', startTime: '2026-12-01T09:55:00Z' }],
    },
  };
}

const token = (id: string) =>
  signApprovalToken(
    {
      rolloutUid: 'uid-1',
      namespace: 'ns',
      name: 'web',
      revision: HASH,
      step: 0,
      decision: 'Approve',
      waitStart: Date.parse('2026-12-01T09:55:00Z'),
      expiresAt: NOW / 1000 + 1800,
      id,
    },
    KEY,
  );

interface Port {
  readonly server: ExternalServer;
  readonly api: FakeKubeApi;
}

async function approvalPort(
  opts: {
    trusted?: TrustedProxies;
    burst?: number;
    maxConnections?: number;
    timeoutMs?: number;
  } = {},
): Promise<Port> {
  const api = new FakeKubeApi();
  api.seed(waitingRollout());
  const server = await startExternalServer({
    host: '127.0.0.1',
    port: 0,
    leading: () => true,
    log: silent,
    now: () => NOW, // no refill: what a test spends is gone
    rateLimit: { burst: opts.burst ?? 10, perSecond: 1 },
    ...(opts.trusted !== undefined ? { trustedProxies: opts.trusted } : {}),
    ...(opts.maxConnections !== undefined ? { maxConnections: opts.maxConnections } : {}),
    ...(opts.timeoutMs !== undefined ? { bodyTimeoutMs: opts.timeoutMs } : {}),
    routes: approvalRoutes({
      api,
      cached: () => api.stored(Resources.Rollout, 'ns', 'web') as Rollout,
      keys: () => [KEY],
      slackSigningSecret: () => SLACK_SECRET,
      events: { event() {} },
      now: () => NOW,
      log: silent,
    }),
  });
  return { server, api };
}

function send(
  port: number,
  method: string,
  path: string,
  opts: { body?: Buffer; headers?: Record<string, string>; agent?: false } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const FORGED = '/approvals/v1.Zm9yZ2Vk.AAAA';
const from = (xff: string) => ({ headers: { 'x-forwarded-for': xff } });

/** Requests until the first 429; how many were answered otherwise. */
async function untilLimited(port: number, path: string, xff?: string): Promise<number> {
  for (let n = 0; n < 100; n++) {
    const res = await send(port, 'GET', path, xff === undefined ? {} : from(xff));
    if (res.status === 429) return n;
  }
  throw new Error('never limited');
}

describe('approval port: clients behind a trusted proxy', () => {
  let port: Port;
  before(async () => {
    const trusted = parseTrustedProxies('127.0.0.0/8');
    assert.ok(trusted.ok);
    port = await approvalPort({ trusted: trusted.proxies });
  });
  after(() => port.server.close());

  it('get separate buckets by their forwarded address', async () => {
    const link = `/approvals/${token('AAAAAAAAAAAAAAAAAAAAAA')}`;
    assert.equal(await untilLimited(port.server.port, link, '203.0.113.1'), 10);
    const other = await send(port.server.port, 'GET', link, from('203.0.113.2'));
    assert.equal(other.status, 200, 'another client behind the same proxy is not limited');
    // Prepending a fresh address does not help the limited client: the proxy's entry counts.
    const spoofed = await send(port.server.port, 'GET', link, from('1.1.1.1, 203.0.113.1'));
    assert.equal(spoofed.status, 429);
  });

  it('a bad link costs five requests, a good one one', async () => {
    const good = `/approvals/${token('BBBBBBBBBBBBBBBBBBBBBA')}`;
    assert.equal(await untilLimited(port.server.port, good, '198.51.100.1'), 10);
    assert.equal(await untilLimited(port.server.port, FORGED, '198.51.100.2'), 2);
  });
});

describe('approval port: X-Forwarded-For from an untrusted peer', () => {
  it('is ignored: the socket address is the client', async () => {
    const port = await approvalPort({ burst: 3 });
    try {
      const link = `/approvals/${token('AAAAAAAAAAAAAAAAAAAAAA')}`;
      assert.equal(await untilLimited(port.server.port, link, '203.0.113.1'), 3);
      const res = await send(port.server.port, 'GET', link, from('203.0.113.2'));
      assert.equal(res.status, 429);
    } finally {
      await port.server.close();
    }
  });
});

describe('approval port: a flood of bad tokens', () => {
  it('does not turn a valid signed Slack interaction into 429', async () => {
    // No trusted proxy: the flood and Slack share one address, the worst case.
    const port = await approvalPort();
    try {
      await untilLimited(port.server.port, FORGED);
      const badlySigned = signedSlackInteraction(
        blockActionsPayload({ userId: 'U0ALICE1', actionId: 'stepwise_approve', value: 'x' }),
        'not-the-secret',
        NOW / 1000,
      );
      const forged = await send(port.server.port, 'POST', '/slack/interactions', {
        body: badlySigned.body,
        headers: badlySigned.headers,
      });
      assert.equal(forged.status, 429, 'a bad signature is charged like any request');
      const press = signedSlackInteraction(
        blockActionsPayload({
          userId: 'U0ALICE1',
          actionId: 'stepwise_approve',
          value: token('CCCCCCCCCCCCCCCCCCCCCA'),
        }),
        SLACK_SECRET,
        NOW / 1000,
      );
      const res = await send(port.server.port, 'POST', '/slack/interactions', {
        body: press.body,
        headers: press.headers,
      });
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /Approved by <@U0ALICE1>/);
      const stored = port.api.stored(Resources.Rollout, 'ns', 'web') as Rollout;
      assert.equal(stored.status?.approvals?.[0]?.by, 'U0ALICE1');
    } finally {
      await port.server.close();
    }
  });
});

describe('approval port: connections', () => {
  it('past maxConnections a new connection is closed unanswered; a freed slot serves again', async () => {
    const port = await approvalPort({ maxConnections: 2 });
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = connect(port.server.port, '127.0.0.1', () => resolve(s));
        s.once('error', reject);
      });
    const held = [await open(), await open()];
    try {
      const third = await open();
      const ended = await new Promise<string>((resolve) => {
        let got = '';
        third.on('data', (d: Buffer) => (got += d.toString()));
        third.on('close', () => resolve(got));
        third.on('error', () => undefined);
        third.write('GET /approvals/x HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      assert.equal(ended, '', 'closed without an answer');
      const first = held.shift();
      await new Promise<void>((resolve) => {
        first?.once('close', () => resolve());
        first?.destroy();
      });
      const res = await send(port.server.port, 'GET', FORGED, {
        headers: { connection: 'close' },
      });
      assert.equal(res.status, 400);
    } finally {
      for (const s of held) s.destroy();
      await port.server.close();
    }
  });

  it('a client that never finishes its headers is cut off at the deadline, freeing its slot', async () => {
    const port = await approvalPort({ maxConnections: 1, timeoutMs: 300 });
    try {
      const slow = connect(port.server.port, '127.0.0.1');
      const answer = await new Promise<string>((resolve) => {
        let got = '';
        slow.on('connect', () => slow.write('GET /approvals/x HTTP/1.1\r\nHost: x\r\n'));
        slow.on('data', (d: Buffer) => (got += d.toString()));
        slow.on('close', () => resolve(got));
        slow.on('error', () => undefined);
      });
      assert.match(answer, /^HTTP\/1.1 408/);
      const res = await send(port.server.port, 'GET', FORGED, { headers: { connection: 'close' } });
      assert.equal(res.status, 400, 'the slot is free again');
    } finally {
      await port.server.close();
    }
  });
});
