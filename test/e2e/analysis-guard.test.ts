// Analysis cannot reach what it should not, nor leak what it read: a real controller whose only
// analysis allowance is 127.0.0.1 (so 127.0.0.2, loopback too, stays denied as by default).
// A run aimed at 127.0.0.2 is an Error "host not allowed" and the listener there sees no
// connection. A Rollout whose analysis puts a Secret arg into a URL fails with the secret masked:
// no AnalysisRun status, Rollout status, Event or webhook notification carries its bytes.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, AnalysisTemplate, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { SlackApiDouble } from '../fixtures/slack-api-double.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { closedPort } from './support/metric-server.ts';
import {
  createAnalysisRun,
  createRollout,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';
const SECRET = 'e2e-s3cr3t-Zq9x';

let controller: ControllerProcess;
let hooks: SlackApiDouble;
/** On a loopback address the controller may not reach: counts the connections it gets. */
const denied = { connections: 0, port: 0, close: () => undefined as void };

before(async () => {
  await installCrds();
  const server = createServer((_req, res) => res.end('{"rate":1}'));
  server.on('connection', () => denied.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  denied.port = (server.address() as AddressInfo).port;
  denied.close = () => {
    server.closeAllConnections();
    server.close();
  };
  hooks = await SlackApiDouble.start({ token: 'xoxb-unused' });
  const system = await testNamespace('guard-system');
  await http.json('POST', `/api/v1/namespaces/${system}/secrets`, {
    metadata: { name: 'notify' },
    stringData: { 'webhook-audit-url': hooks.hookUrl('audit') },
  });
  controller = await startController({
    args: [
      '--leader-elect=false',
      '--analysis-allowed-hosts=127.0.0.1',
      `--notifications-secret=${system}/notify`,
    ],
  });
});
after(async () => {
  await controller?.kill();
  denied.close();
  await hooks?.close();
});

const runPhase = (ns: string, name: string, wanted: string) =>
  waitFor<AnalysisRun>(
    `AnalysisRun ${name} ${wanted}`,
    `${API}/namespaces/${ns}/analysisruns`,
    name,
    (r) => r.status?.phase === wanted,
  );

describe('analysis egress', () => {
  it('a denied address sees no connection; the measurement says host not allowed', async () => {
    const ns = await testNamespace('guard-deny');
    await createAnalysisRun(ns, {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'imds' },
      spec: {
        metrics: [
          {
            name: 'steal',
            consecutiveErrorLimit: 0,
            provider: { web: { url: `http://127.0.0.2:${denied.port}/latest/meta-data/` } },
          },
        ],
      },
    });
    const run = await runPhase(ns, 'imds', 'Error');
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.match(m?.message ?? '', /host not allowed: 127\.0\.0\.2 is loopback/);
    assert.equal(denied.connections, 0);
  });
});

describe('analysis secrets', () => {
  it('a Secret arg in a URL is ***** in every status, Event and notification of the run', async () => {
    const ns = await testNamespace('guard-secret');
    await http.json('POST', `/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: 'creds' },
      stringData: { key: SECRET },
    });
    const port = await closedPort();
    const template: AnalysisTemplate = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'leaky' },
      spec: {
        args: [{ name: 'key', valueFrom: { secretKeyRef: { name: 'creds', key: 'key' } } }],
        metrics: [
          {
            name: 'query-key',
            consecutiveErrorLimit: 0,
            provider: { web: { url: `http://127.0.0.1:${port}/rate?key={{args.key}}` } },
          },
          {
            name: 'data-url',
            consecutiveErrorLimit: 0,
            provider: { web: { url: 'data:,{{args.key}}' } },
          },
        ],
      },
    };
    await http.json('POST', `${API}/namespaces/${ns}/analysistemplates`, template);
    const body = rolloutBody('app', {
      strategy: {
        canary: {
          steps: [{ setWeight: 25 }, { analysis: { templates: [{ templateName: 'leaky' }] } }],
        },
      },
    });
    body.metadata.annotations = { 'notifications.stepwise.dev/webhook': 'audit' };
    await createRollout(ns, body);
    await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'app', 'app:2');
    const aborted = (r: Rollout) => r.status?.abort === true && r.status.phase === 'Degraded';
    await waitForRollout(ns, 'app', 'aborted by its analysis', aborted, 90_000);
    const notified = () =>
      hooks.calls.filter((c) => JSON.stringify(c.body).includes(`"namespace":"${ns}"`));
    const deadline = Date.now() + 30_000;
    while (!notified().some((c) => JSON.stringify(c.body).includes('analysis-failed'))) {
      const left = deadline - Date.now();
      assert.ok(left > 0, `no analysis-failed notification: ${JSON.stringify(notified())}`);
      await Promise.race([
        hooks.waitForCalls(hooks.calls.length + 1),
        new Promise((resolve) => setTimeout(resolve, left)),
      ]);
    }

    const runs = await http.json<{ items: AnalysisRun[] }>(
      'GET',
      `${API}/namespaces/${ns}/analysisruns`,
    );
    const messages = runs.items.flatMap(
      (r) => r.status?.metricResults?.flatMap((mr) => mr.measurements ?? []) ?? [],
    );
    // The secret did flow into the requests: masked where it shows, and data: refused.
    assert.ok(
      messages.some((m) => /\?key=\*\*\*\*\* unreachable/.test(m.message ?? '')),
      JSON.stringify(messages),
    );
    assert.ok(messages.some((m) => /unsupported URL scheme "data:"/.test(m.message ?? '')));
    const written = {
      runs: runs.items.map((r) => r.status),
      rollout: (await http.json<Rollout>('GET', `${API}/namespaces/${ns}/rollouts/app`)).status,
      events: await http.json('GET', `/api/v1/namespaces/${ns}/events`),
      notifications: notified().map((c) => c.body),
      logs: controller.logs,
    };
    for (const [where, what] of Object.entries(written)) {
      const text = JSON.stringify(what);
      assert.ok(text.length > 10, `${where} is not empty`);
      assert.ok(!text.includes(SECRET), `${where} carries the secret: ${text.slice(0, 2000)}`);
      assert.ok(!text.includes(encodeURIComponent(SECRET)), where);
    }
  });
});
