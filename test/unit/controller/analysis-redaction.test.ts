// What a measurement leaves behind: the real web provider behind the AnalysisRun shell, with a
// Secret arg in the URL. The secret never reaches status, events or logs (it is `*****`), and
// no text stored in a measurement is longer than 1 KiB, whatever the endpoint answered.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnalysisRun, Metric } from '../../../src/api/index.ts';
import { EgressPolicy, webProvider } from '../../../src/analysis/providers/index.ts';
import { CachedSecretSource } from '../../../src/controller/analysis-sources.ts';
import { AnalysisRunReconciler } from '../../../src/controller/analysisrun-reconciler.ts';
import type { Logger } from '../../../src/kube/log.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { conditionEvaluator } from '../../../src/controller/analysis-wiring.ts';

const SECRET = 's3cr3t-from-secret';

function runOf(metric: Metric): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name: 'run', namespace: 'ns' },
    spec: {
      metrics: [metric],
      args: [{ name: 'key', valueFrom: { secretKeyRef: { name: 'creds', key: 'key' } } }],
    },
  };
}

/** One pass of the shell over `run`; what it stored, said and logged. */
async function onePass(run: AnalysisRun) {
  const api = new FakeKubeApi();
  api.seed(run);
  api.seed({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'creds', namespace: 'ns' },
    data: { key: Buffer.from(SECRET).toString('base64') },
  } as never);
  const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
  const said: string[] = [];
  const note = (m: string, f?: unknown) => said.push(m + JSON.stringify(f));
  const log: Logger = { debug: note, info: note, warn: note, error: note };
  const stored = () => api.stored(Resources.AnalysisRun, 'ns', 'run') as AnalysisRun;
  const reconciler = new AnalysisRunReconciler({
    cache: { analysisRun: () => stored() },
    api,
    events: { event: (_o, type, reason, message) => said.push(`${type} ${reason} ${message}`) },
    clock,
    log,
    providers: { web: webProvider({ egress: new EgressPolicy({ allowed: ['127.0.0.1'] }) }) },
    secrets: new CachedSecretSource(api, clock),
    evaluate: conditionEvaluator(),
  });
  await reconciler.reconcile('ns/run', new AbortController().signal);
  const measurement = stored().status?.metricResults?.[0]?.measurements?.at(-1);
  return { status: JSON.stringify(stored().status), said: said.join('\n'), measurement };
}

async function listen(answer: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => res.end(answer));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('measurements leave without secrets and without bulk', () => {
  it('a Secret arg in the URL is ***** in the message, status, events and logs', async () => {
    const closed = await listen('');
    await closed.close(); // nothing listens there any more: the request fails, naming the URL
    const { status, said, measurement } = await onePass(
      runOf({ name: 'm', provider: { web: { url: `${closed.url}/?key={{args.key}}` } } }),
    );
    assert.equal(measurement?.phase, 'Error');
    assert.match(measurement?.message ?? '', /\?key=\*\*\*\*\* unreachable/);
    assert.ok(!status.includes(SECRET), status);
    assert.ok(!said.includes(SECRET), said);
  });

  it('a data: URL carrying a Secret is an Error, unsupported URL scheme, with no secret', async () => {
    const { status, measurement } = await onePass(
      runOf({ name: 'm', provider: { web: { url: 'data:,{{args.key}}' } } }),
    );
    assert.equal(measurement?.phase, 'Error');
    assert.match(measurement?.message ?? '', /unsupported URL scheme "data:"/);
    assert.ok(!status.includes(SECRET), status);
  });

  it('an answer that echoes the secret is stored masked; a long one is cut to 1 KiB', async () => {
    // The secret straddles the 1 KiB cut: masking comes first, so not even its start is kept.
    const echo = await listen(`${'a'.repeat(1020)}${SECRET}${'é'.repeat(600)}`);
    try {
      const { status, measurement } = await onePass(
        runOf({ name: 'm', successCondition: 'true', provider: { web: { url: echo.url } } }),
      );
      assert.equal(measurement?.phase, 'Successful', measurement?.message);
      const stored = measurement?.value ?? '';
      assert.ok(Buffer.byteLength(stored) <= 1024, `${Buffer.byteLength(stored)} bytes`);
      assert.match(stored, /^a{1020}\*…$/);
      assert.ok(!status.includes(SECRET.slice(0, 3)), status.slice(-200));
    } finally {
      await echo.close();
    }
  });
});
