// The job provider's decisions over Job objects (an in-memory API: only what it reads and writes):
// names, the Job it creates, the verdict from the Job's conditions and pods, adoption after a
// restart (only of a Job the run owns), and deletion on terminate, always in the run's namespace. The real Job controller runs in test/e2e/analysis-job.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Measurement, Metric } from '../../../../src/api/index.ts';
import { jobName, jobProvider } from '../../../../src/analysis/providers/index.ts';
import type { OwnerReference } from '../../../../src/kube/objects.ts';
import { Resources } from '../../../../src/kube/resources.ts';
import { FakeKubeApi } from '../../../fixtures/kube/fake-kube-api.ts';
import { context } from './support.ts';

const metric: Metric = {
  name: 'smoke',
  provider: { job: { metadata: { labels: { team: 'a' } }, spec: { backoffLimit: 0 } } },
};
const inFlight: Measurement = { phase: 'Running', metadata: { 'job-name': 'run.smoke.1' } };
const ownedByRun: OwnerReference[] = [
  { apiVersion: 'stepwise.dev/v1alpha1', kind: 'AnalysisRun', name: 'run', uid: 'uid-run' },
];

function jobWith(
  conditions: object[],
  namespace = 'ns',
  ownerReferences: OwnerReference[] = ownedByRun,
) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'run.smoke.1', namespace, uid: `uid-job-${namespace}`, ownerReferences },
    status: { conditions },
  };
}

describe('job names', () => {
  it('are <run>.<metric>.<n>, shortened with a hash past 63 characters', () => {
    assert.equal(jobName('run', 'smoke', 3), 'run.smoke.3');
    const long = jobName('a'.repeat(60), 'smoke', 1);
    assert.equal(long.length, 63);
    assert.notEqual(long, jobName('a'.repeat(60), 'smoke', 2), 'each measurement its own Job');
  });
});

describe('the job provider', () => {
  it('creates the Job owned by the run, labelled, and leaves the measurement pending', async () => {
    const api = new FakeKubeApi();
    const out = await jobProvider(api).measure(metric, context());
    assert.deepEqual(out, { ok: 'pending', metadata: { 'job-name': 'run.smoke.1' } });
    const job = api.stored(Resources.Job, 'ns', 'run.smoke.1');
    assert.equal(job?.metadata?.labels?.['team'], 'a');
    assert.equal(job?.metadata?.labels?.['analysis.stepwise.dev/run'], 'run');
    assert.deepEqual(
      job?.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]),
      [['AnalysisRun', 'run', 'uid-run', true]],
    );
  });

  it('adopts the Job a previous controller made for the same measurement', async () => {
    const api = new FakeKubeApi();
    api.seed(jobWith([]));
    const out = await jobProvider(api).measure(metric, context());
    assert.equal(out.ok, 'pending');
  });

  const strangers: readonly [string, OwnerReference[]][] = [
    ['no owner', []],
    [
      'another run of the same name',
      [{ apiVersion: 'stepwise.dev/v1alpha1', kind: 'AnalysisRun', name: 'run', uid: 'uid-old' }],
    ],
  ];
  for (const [who, owners] of strangers) {
    it(`a Job under the predictable name with ${who} is an Error, never the result`, async () => {
      const api = new FakeKubeApi();
      api.seed(jobWith([{ type: 'Complete', status: 'True' }], 'ns', owners));
      const expected = {
        ok: false,
        message: 'Job ns/run.smoke.1 exists and is not owned by this run',
      };
      assert.deepEqual(await jobProvider(api).measure(metric, context()), expected);
      // Made again by someone else while the measurement was running: the same.
      assert.deepEqual(await jobProvider(api).resume?.(metric, inFlight, context()), expected);
      await jobProvider(api).terminate?.(metric, inFlight, context());
      assert.ok(api.stored(Resources.Job, 'ns', 'run.smoke.1'), 'not ours to delete');
    });
  }

  it("reads and deletes in the run's namespace, whatever the measurement metadata says", async () => {
    const api = new FakeKubeApi();
    api.seed(jobWith([{ type: 'Failed', status: 'True' }], 'other'));
    api.seed(jobWith([{ type: 'Complete', status: 'True' }], 'ns'));
    const pointed: Measurement = {
      ...inFlight,
      metadata: { 'job-name': 'run.smoke.1', 'job-namespace': 'other' },
    };
    const out = await jobProvider(api).resume?.(metric, pointed, context());
    assert.ok(out?.ok === true, JSON.stringify(out));
    assert.equal(out.phase, 'Successful', 'the Job in ns, not the one in other');
    assert.deepEqual(out.metadata, { 'job-name': 'run.smoke.1' });
    await jobProvider(api).terminate?.(metric, pointed, context());
    assert.equal(api.stored(Resources.Job, 'ns', 'run.smoke.1'), undefined);
    assert.ok(api.stored(Resources.Job, 'other', 'run.smoke.1'), 'the other namespace untouched');
  });

  const verdicts: readonly [string, object[], object[], string, string][] = [
    ['Complete', [{ type: 'Complete', status: 'True' }], [], 'Successful', ''],
    [
      'Failed',
      [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
      [],
      'Failed',
      'Job run.smoke.1 failed (BackoffLimitExceeded)',
    ],
    [
      'a pod that cannot pull its image',
      [],
      [{ state: { waiting: { reason: 'ImagePullBackOff' } } }],
      'Inconclusive',
      'Job run.smoke.1: a pod cannot pull its image (ImagePullBackOff)',
    ],
  ];
  for (const [name, conditions, containerStatuses, phase, message] of verdicts) {
    it(`${name} → ${phase}`, async () => {
      const api = new FakeKubeApi();
      api.seed(jobWith(conditions));
      api.seed({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p',
          namespace: 'ns',
          labels: { 'batch.kubernetes.io/job-name': 'run.smoke.1' },
        },
        status: { containerStatuses },
      } as never);
      const out = await jobProvider(api).resume?.(metric, inFlight, context());
      assert.ok(out?.ok === true, JSON.stringify(out));
      assert.equal(out.phase, phase);
      assert.equal(out.message ?? '', message);
    });
  }

  it('a Job still running stays pending; a deleted Job is an Error', async () => {
    const api = new FakeKubeApi();
    api.seed(jobWith([]));
    assert.equal((await jobProvider(api).resume?.(metric, inFlight, context()))?.ok, 'pending');
    const gone = await jobProvider(new FakeKubeApi()).resume?.(metric, inFlight, context());
    assert.deepEqual(gone, { ok: false, message: 'Job run.smoke.1 was deleted' });
  });

  it('a new Job deletes the Jobs of measurements the run no longer keeps, and only those', async () => {
    const api = new FakeKubeApi();
    const job = (name: string, metricName: string, n: number, uid = 'uid-run') => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: 'ns',
        labels: {
          'analysis.stepwise.dev/run': 'run',
          'analysis.stepwise.dev/metric': metricName,
          'analysis.stepwise.dev/measurement': String(n),
        },
        ownerReferences: [
          { apiVersion: 'stepwise.dev/v1alpha1', kind: 'AnalysisRun', name: 'run', uid },
        ],
      },
    });
    for (const n of [1, 2, 3]) api.seed(job(`run.smoke.${n}`, 'smoke', n));
    api.seed(job('run.other.1', 'other', 1));
    api.seed(job('earlier-run.smoke.1', 'smoke', 1, 'uid-of-an-earlier-run-of-that-name'));

    await jobProvider(api).measure(metric, { ...context(), index: 4, keep: 2 });

    const left = (await api.list(Resources.Job, { namespace: 'ns' })).items.map(
      (j) => j.metadata?.name,
    );
    assert.deepEqual(left.sort(), [
      'earlier-run.smoke.1',
      'run.other.1',
      'run.smoke.3',
      'run.smoke.4',
    ]);
    const made = api.stored(Resources.Job, 'ns', 'run.smoke.4');
    assert.equal(made?.metadata?.labels?.['analysis.stepwise.dev/measurement'], '4');
  });

  it('terminate deletes the Job', async () => {
    const api = new FakeKubeApi();
    api.seed(jobWith([]));
    await jobProvider(api).terminate?.(metric, inFlight, context());
    assert.equal(api.stored(Resources.Job, 'ns', 'run.smoke.1'), undefined);
  });
});
