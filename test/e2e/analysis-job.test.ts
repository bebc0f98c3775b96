// The job metric provider on the real control plane: the Job controller of kube-controller-manager
// runs the Job and kwok plays its pod (complete, or fail with `stepwise.dev/fault: job-fail`).
// A run is Successful when its Job completes and Failed when it fails; terminating a run deletes
// its Job; a controller restart adopts the Job it made instead of making a second, but a Job
// someone else made under the predictable name is an Error, never the result.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, Metric } from '../../src/api/index.ts';
import { FAULT_LABEL, JOB_FAIL } from '../cluster/kwok-stages.ts';
import { eventually, testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { createAnalysisRun, http, installCrds, waitFor } from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';
let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(async () => {
  if (process.env.DUMP_LOGS) for (const l of controller?.logs ?? []) console.log(JSON.stringify(l));
  await controller?.kill();
});

function jobMetric(podLabels: Record<string, string> = {}, jobSpec: object = {}): Metric {
  return {
    name: 'smoke',
    provider: {
      job: {
        metadata: { labels: { purpose: 'smoke-test' } },
        spec: {
          backoffLimit: 0,
          ...jobSpec,
          template: {
            metadata: { labels: podLabels },
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'smoke', image: 'registry.invalid/smoke:1' }],
            },
          },
        },
      },
    },
  };
}

async function createRun(
  ns: string,
  name: string,
  metric: Metric,
  more: Partial<AnalysisRun['spec']> = {},
): Promise<void> {
  const run: AnalysisRun = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name },
    spec: { metrics: [metric], ...more },
  };
  await createAnalysisRun(ns, run);
}

const waitForRun = (ns: string, name: string, what: string, pred: (r: AnalysisRun) => boolean) =>
  waitFor<AnalysisRun>(what, `${API}/namespaces/${ns}/analysisruns`, name, pred);

interface Job {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string }[];
  };
}
const jobsOf = (ns: string): Promise<{ items: Job[] }> =>
  http.json('GET', `/apis/batch/v1/namespaces/${ns}/jobs`);

describe('the job provider', () => {
  it('a Job that completes: the run is Successful, the Job owned by it', async () => {
    const ns = await testNamespace('job-ok');
    await createRun(ns, 'smoke', jobMetric());
    const run = await waitForRun(
      ns,
      'smoke',
      'Successful',
      (r) => r.status?.phase === 'Successful',
    );
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(m?.phase, 'Successful');
    assert.equal(m?.metadata?.['job-name'], 'smoke.smoke.1');
    const [job] = (await jobsOf(ns)).items;
    assert.equal(job?.metadata.name, 'smoke.smoke.1');
    assert.equal(job?.metadata.labels?.['purpose'], 'smoke-test');
    assert.deepEqual(
      job?.metadata.ownerReferences?.map((o) => [o.kind, o.name]),
      [['AnalysisRun', 'smoke']],
    );
  });

  it('a Job whose pod fails: the run is Failed, saying which Job', async () => {
    const ns = await testNamespace('job-bad');
    await createRun(ns, 'smoke', jobMetric({ [FAULT_LABEL]: JOB_FAIL }));
    const run = await waitForRun(ns, 'smoke', 'Failed', (r) => r.status?.phase === 'Failed');
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(m?.phase, 'Failed');
    assert.match(m?.message ?? '', /Job smoke\.smoke\.1 failed/);
  });

  it('a Job someone else made under the predictable name: an Error, not Successful', async () => {
    const ns = await testNamespace('job-squat');
    // Made by someone who may create Jobs but not edit the template: it would complete.
    await http.json('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
      metadata: { name: 'squat.smoke.1' },
      spec: {
        backoffLimit: 0,
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'true', image: 'busybox' }] },
        },
      },
    });
    await createRun(ns, 'squat', { ...jobMetric(), consecutiveErrorLimit: 0 });
    const run = await waitForRun(ns, 'squat', 'Error', (r) => r.status?.phase === 'Error');
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(m?.phase, 'Error');
    assert.equal(m?.message, `Job ${ns}/squat.smoke.1 exists and is not owned by this run`);
    const [job] = (await jobsOf(ns)).items;
    assert.deepEqual(job?.metadata.ownerReferences ?? [], [], 'the Job left as it was');
  });

  it('Jobs of measurements the run no longer keeps are deleted', async () => {
    const ns = await testNamespace('job-gc');
    await createRun(
      ns,
      'thrice',
      { ...jobMetric(), count: 3, interval: '1s' },
      { measurementRetention: [{ metricName: 'smoke', limit: 1 }] },
    );
    const run = await waitForRun(
      ns,
      'thrice',
      'Successful',
      (r) => r.status?.phase === 'Successful',
    );
    assert.equal(run.status?.metricResults?.[0]?.count, 3);
    await eventually('only the last Job left', async () => {
      const names = (await jobsOf(ns)).items.map((j) => j.metadata.name);
      return names.length === 1 && names[0] === 'thrice.smoke.3' ? names : undefined;
    });
  });

  it('a restart adopts the running Job; terminating the run deletes it', async () => {
    const ns = await testNamespace('job-stop');
    // A suspended Job never starts a pod: the measurement stays Running for as long as we like.
    await createRun(ns, 'long', jobMetric({}, { suspend: true }));
    await waitForRun(
      ns,
      'long',
      'a Running measurement',
      (r) => r.status?.metricResults?.[0]?.measurements?.[0]?.phase === 'Running',
    );
    await controller.kill();
    controller = await startController();
    await http.json(
      'PATCH',
      `${API}/namespaces/${ns}/analysisruns/long`,
      { spec: { terminate: true } },
      'application/merge-patch+json',
    );
    const run = await waitForRun(ns, 'long', 'terminated', (r) => r.status?.phase === 'Successful');
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.match(m?.message ?? '', /terminated/i);
    assert.equal(
      run.status?.metricResults?.[0]?.measurements?.length,
      1,
      'one Job, never a second',
    );
    await eventually(
      'the Job deleted',
      async () => (await jobsOf(ns)).items.length === 0 || undefined,
    );
  });
});
