// AnalysisRuns created by hand, measured by the real controller with the `web` provider against a
// loopback HTTP server this test runs (its JSON answer set by the test): they end Successful,
// Failed, or Error after consecutiveErrorLimit; meanwhile a provider that never answers holds no
// Rollout back (a canary in the same file still completes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, Metric } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import { closedPort, MetricServer } from './support/metric-server.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createAnalysisRun,
  createRollout,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';

function runBody(name: string, metric: Partial<Metric> & Pick<Metric, 'provider'>): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name },
    spec: { metrics: [{ name: 'rate', interval: '1s', ...metric }] },
  };
}

async function createRun(ns: string, run: AnalysisRun): Promise<void> {
  await createAnalysisRun(ns, run);
}

function waitForRun(ns: string, name: string, phaseWanted: string): Promise<AnalysisRun> {
  return waitFor<AnalysisRun>(
    `AnalysisRun ${name} ${phaseWanted}`,
    `${API}/namespaces/${ns}/analysisruns`,
    name,
    (r) => r.status?.phase === phaseWanted,
  );
}

let controller: ControllerProcess;
const metrics = new MetricServer();

before(async () => {
  await installCrds();
  await metrics.start();
  controller = await startController();
});
after(async () => {
  await controller?.kill();
  metrics.close();
});

describe('an AnalysisRun created by hand', () => {
  it('runs to Successful on its web metric', async () => {
    const ns = await testNamespace('run-ok');
    metrics.answers.set('ok', { rate: 0.99 });
    await createRun(
      ns,
      runBody('ok', {
        count: 2,
        provider: { web: { url: metrics.url('ok'), jsonPath: '{$.rate}' } },
      }),
    );
    const run = await waitForRun(ns, 'ok', 'Successful');
    const ms = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(ms.length, 2);
    assert.ok(
      ms.every((m) => m.phase === 'Successful' && m.value === '0.99'),
      JSON.stringify(ms),
    );
  });

  it('runs to Failed when its successCondition does not hold', async () => {
    const ns = await testNamespace('run-bad');
    metrics.answers.set('bad', { rate: 0.5 });
    await createRun(
      ns,
      runBody('bad', {
        successCondition: 'result >= 0.95',
        provider: { web: { url: metrics.url('bad'), jsonPath: '{$.rate}' } },
      }),
    );
    // The first measurement decides (failureLimit 0): judged Failed, not Error.
    const measured = await waitFor<AnalysisRun>(
      'AnalysisRun bad measured',
      `${API}/namespaces/${ns}/analysisruns`,
      'bad',
      (r) => (r.status?.metricResults?.[0]?.measurements?.length ?? 0) > 0,
    );
    const first = measured.status?.metricResults?.[0]?.measurements?.[0];
    assert.equal(first?.phase, 'Failed', first?.message);
    assert.equal(first?.value, '0.5');
    await waitForRun(ns, 'bad', 'Failed');
  });

  it('ends Error after consecutiveErrorLimit when its endpoint refuses connections', async () => {
    const ns = await testNamespace('run-down');
    const url = `http://127.0.0.1:${await closedPort()}/rate`;
    await createRun(ns, runBody('down', { consecutiveErrorLimit: 1, provider: { web: { url } } }));
    const run = await waitForRun(ns, 'down', 'Error');
    const ms = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(ms.length, 2, 'consecutiveErrorLimit 1: the second error ends it');
    assert.ok(
      ms.every(
        (m) =>
          m.phase === 'Error' &&
          /web request to .* unreachable: ECONNREFUSED/.test(m.message ?? ''),
      ),
    );
  });
});

describe('while a provider hangs', () => {
  it('a canary still completes', async () => {
    const ns = await testNamespace('run-hang');
    await createRun(
      ns,
      runBody('hang', { provider: { web: { url: metrics.url('hang'), timeoutSeconds: 30 } } }),
    );
    await createRollout(
      ns,
      rolloutBody('web', { strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } } }),
    );
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused', phase('Paused'));
    await patchStatus(ns, 'web', { pauseConditions: null });
    await waitForRollout(
      ns,
      'web',
      'fully promoted',
      phase('Healthy', (r) => r.status?.currentStepIndex === 2),
    );
  });
});
