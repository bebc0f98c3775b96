// A canary judged by analysis (issue 7 §5), on the real local control plane with the real
// controller: step analysis gates the next step, a failing or erroring run aborts the update
// with the metric and value named (the stable keeps full capacity), Inconclusive waits for a
// person, a missing template or a condition that does not parse stops it up front, and pods
// that never become Ready do not keep a failing analysis from aborting. The `web` provider reads
// a loopback endpoint this test controls; the Prometheus-judged cases are in analysis-prometheus.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, AnalysisTemplate, Metric, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { neverReadyTemplate, waitForSplit } from './support/faults.ts';
import { closedPort, MetricServer } from './support/metric-server.ts';
import {
  createRollout,
  events,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';

let controller: ControllerProcess;
const endpoint = new MetricServer();

before(async () => {
  await installCrds();
  await endpoint.start();
  controller = await startController();
});
after(async () => {
  if (process.env.DUMP_LOGS) for (const l of controller?.logs ?? []) console.log(JSON.stringify(l));
  await controller?.kill();
  endpoint.close();
});

/** A template with one `web` metric reading `/<path>?hash=<canary hash>`, judged `result >= min`. */
function template(name: string, path: string, metric: Partial<Metric> = {}): AnalysisTemplate {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name },
    spec: {
      args: [{ name: 'canary-hash' }, { name: 'min', value: '0.95' }],
      metrics: [
        {
          name: 'success-rate',
          interval: '1s',
          count: 2,
          successCondition: 'result >= {{args.min}}',
          provider: {
            web: { url: `${endpoint.url(path)}?hash={{args.canary-hash}}`, jsonPath: '{$.rate}' },
          },
          ...metric,
        },
      ],
    },
  };
}

async function createTemplate(ns: string, body: AnalysisTemplate): Promise<void> {
  await http.json('POST', `${API}/namespaces/${ns}/analysistemplates`, body);
}

const canaryHash = { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' as const } };
const analysisStep = (templateName: string) => ({
  analysis: { templates: [{ templateName }], args: [canaryHash] },
});

/** A Healthy R=4 Rollout with `steps`, then a new image: the update under analysis. */
async function updateWith(ns: string, steps: object[], extra: object = {}): Promise<Rollout> {
  await createRollout(ns, rolloutBody('app', { strategy: { canary: { steps } }, ...extra }));
  await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
  return setImage(ns, 'app', 'app:2');
}

const aborted = (r: Rollout): boolean => r.status?.abort === true && r.status.phase === 'Degraded';

async function runsOf(ns: string): Promise<AnalysisRun[]> {
  const list = await http.json<{ items: AnalysisRun[] }>(
    'GET',
    `${API}/namespaces/${ns}/analysisruns`,
  );
  return list.items;
}

describe('step analysis', () => {
  it('a healthy canary passes its analysis and completes; the run asked about the canary pods', async () => {
    const ns = await testNamespace('an-ok');
    endpoint.answers.set('healthy', { rate: 0.99 });
    await createTemplate(ns, template('rate', 'healthy'));
    await updateWith(ns, [{ setWeight: 25 }, analysisStep('rate'), { setWeight: 50 }]);
    const done = await waitForRollout(
      ns,
      'app',
      'fully promoted',
      phase('Healthy', (r) => r.status?.currentStepIndex === 3),
    );
    const [run] = await runsOf(ns);
    assert.equal(run?.status?.phase, 'Successful');
    assert.equal(run?.metadata.ownerReferences?.[0]?.kind, 'Rollout');
    const ms = run?.status?.metricResults?.[0]?.measurements ?? [];
    assert.deepEqual(
      ms.map((m) => [m.phase, m.value]),
      [
        ['Successful', '0.99'],
        ['Successful', '0.99'],
      ],
    );
    // podTemplateHashValue: Latest reached the provider as the canary's hash.
    assert.ok(
      endpoint.requests.includes(`/healthy?hash=${done.status?.stableRS}`),
      `requests: ${endpoint.requests.join(' ')}`,
    );
  });

  it('a bad canary is aborted: the metric and value are named, the stable keeps all 4 pods', async () => {
    const ns = await testNamespace('an-bad');
    endpoint.answers.set('bad', { rate: 0.42 });
    await createTemplate(ns, template('rate', 'bad'));
    await updateWith(ns, [{ setWeight: 25 }, analysisStep('rate'), { setWeight: 50 }]);
    const r = await waitForRollout(ns, 'app', 'aborted by analysis', aborted);
    assert.match(r.status?.message ?? '', /success-rate/);
    assert.match(r.status?.message ?? '', /0\.42/);
    const progressing = r.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'RolloutAborted');
    assert.match(progressing?.message ?? '', /AnalysisRun ".*" Failed/);
    await waitForSplit(ns, r, 0, 4);
    await waitForEvents(ns, ['AnalysisRunFailed']);
    assert.ok(
      (await events(ns)).some(
        (e) => e.reason === 'AnalysisRunFailed' && /success-rate/.test(e.message),
      ),
    );
  });

  it('an Inconclusive run pauses the rollout until a person promotes it', async () => {
    const ns = await testNamespace('an-unsure');
    endpoint.answers.set('unsure', { rate: 0.7 });
    await createTemplate(
      ns,
      template('rate', 'unsure', { count: 1, failureCondition: 'result < 0.5' }),
    );
    await updateWith(ns, [{ setWeight: 25 }, analysisStep('rate'), { setWeight: 50 }]);
    const paused = await waitForRollout(ns, 'app', 'paused inconclusive', (r) =>
      (r.status?.pauseConditions ?? []).some((c) => c.reason === 'InconclusiveAnalysisRun'),
    );
    assert.notEqual(paused.status?.abort, true);
    await patchStatus(ns, 'app', { pauseConditions: null });
    await waitForRollout(
      ns,
      'app',
      'fully promoted after the promote',
      phase('Healthy', (r) => r.status?.currentStepIndex === 3),
    );
  });

  it('a run that cannot reach its endpoint ends in Error after consecutiveErrorLimit and aborts', async () => {
    const ns = await testNamespace('an-down');
    const port = await closedPort();
    const body = template('rate', 'x', {
      consecutiveErrorLimit: 1,
      provider: { web: { url: `http://127.0.0.1:${port}/rate` } },
    });
    await createTemplate(ns, body);
    await updateWith(ns, [{ setWeight: 25 }, analysisStep('rate')]);
    const r = await waitForRollout(ns, 'app', 'aborted by an erroring run', aborted, 90_000);
    assert.match(r.status?.message ?? '', /Error/);
    const [run] = await runsOf(ns);
    assert.equal(run?.status?.phase, 'Error');
    assert.ok(
      (run?.status?.metricResults?.[0]?.measurements ?? []).every((m) => m.phase === 'Error'),
    );
  });
});

describe('bad analysis specs stop the update before anything is measured', () => {
  it('a missing template is InvalidSpec (as in Argo, whatever the revision); creating it heals the Rollout', async () => {
    const ns = await testNamespace('an-missing');
    endpoint.answers.set('later', { rate: 1 });
    await createRollout(
      ns,
      rolloutBody('app', {
        strategy: { canary: { steps: [{ setWeight: 25 }, analysisStep('later')] } },
      }),
    );
    const r = await waitForRollout(ns, 'app', 'InvalidSpec', (x) =>
      (x.status?.message ?? '').startsWith('InvalidSpec'),
    );
    assert.match(r.status?.message ?? '', /AnalysisTemplate "later" not found/);
    await createTemplate(ns, template('later', 'later'));
    await waitForRollout(ns, 'app', 'Healthy once the template exists', phase('Healthy'));
    await setImage(ns, 'app', 'app:2');
    await waitForRollout(
      ns,
      'app',
      'the update passes its analysis',
      phase('Healthy', (x) => x.status?.currentStepIndex === 2),
    );
  });

  it('a condition that does not parse: the run is Error naming the column, nothing is measured, the update aborts', async () => {
    const ns = await testNamespace('an-expr');
    endpoint.answers.set('expr', { rate: 1 });
    await createTemplate(ns, template('rate', 'expr', { successCondition: 'result >= &&' }));
    const before = endpoint.requests.length;
    await updateWith(ns, [{ setWeight: 25 }, analysisStep('rate')]);
    const r = await waitForRollout(ns, 'app', 'aborted by an invalid run', aborted);
    assert.match(r.status?.message ?? '', /successCondition "result >= &&": .* at column 11/);
    const [run] = await runsOf(ns);
    assert.equal(run?.status?.phase, 'Error');
    assert.deepEqual(run?.status?.metricResults?.[0]?.measurements ?? [], []);
    assert.equal(
      endpoint.requests.slice(before).filter((u) => u.startsWith('/expr')).length,
      0,
      'the endpoint was never asked',
    );
  });
});

describe('background analysis', () => {
  it('fails while the canary pods never become Ready: the update still aborts, stable at 4', async () => {
    const ns = await testNamespace('an-bg');
    endpoint.answers.set('bg', { rate: 0.1 });
    await createTemplate(ns, template('rate', 'bg', { count: 3 }));
    await createRollout(
      ns,
      rolloutBody('app', {
        strategy: {
          canary: {
            // From the start: with pods that never become Ready, step 1 is never reached.
            analysis: { templates: [{ templateName: 'rate' }], args: [canaryHash] },
            steps: [{ setWeight: 25 }, { pause: {} }],
          },
        },
      }),
    );
    await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
    await patchSpec(ns, 'app', neverReadyTemplate('app'));
    const r = await waitForRollout(ns, 'app', 'aborted by background analysis', aborted);
    assert.match(r.status?.message ?? '', /Background|success-rate/);
    await waitForSplit(ns, r, 0, 4);
  });
});
