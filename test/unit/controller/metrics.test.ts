// The controller's per-object metric families as /metrics renders them: Argo's names, labels
// and values, one series per object that moves when a label changes and goes with the object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnalysisRun, Rollout, RolloutStatus } from '../../../src/api/index.ts';
import { followAnalysisRunMetrics } from '../../../src/controller/controllers.ts';
import { ControllerMetrics } from '../../../src/controller/metrics.ts';
import { delayFigures } from '../../../src/controller/event-loop-metrics.ts';
import type { EventHandler } from '../../../src/kube/index.ts';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';

async function series(m: ControllerMetrics, family: string): Promise<string[]> {
  const text = await m.registry.getSingleMetricAsString(family);
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${family}{`))
    .sort();
}

const settled: RolloutStatus = {
  phase: 'Healthy',
  replicas: 4,
  updatedReplicas: 4,
  availableReplicas: 4,
  conditions: [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: 'ReplicaSet "web-1" has successfully progressed.',
      lastTransitionTime: '2026-12-01T10:00:00Z',
      lastUpdateTime: '2026-12-01T10:00:00Z',
    },
  ],
};

function rollout(name: string, status: RolloutStatus | undefined, blueGreen = false): Rollout {
  const r = rolloutFixture(blueGreen ? { strategy: { blueGreen: { activeService: 'web' } } } : {});
  return {
    ...r,
    metadata: { ...r.metadata, name, namespace: 'prod' },
    ...(status ? { status } : {}),
  };
}

function aborted(status: RolloutStatus): RolloutStatus {
  return {
    ...status,
    phase: 'Degraded',
    conditions: [
      {
        type: 'Progressing',
        status: 'False',
        reason: 'RolloutAborted',
        message: 'Rollout aborted update to revision 2',
        lastTransitionTime: '2026-12-01T10:05:00Z',
        lastUpdateTime: '2026-12-01T10:05:00Z',
      },
    ],
  };
}

describe('rollout_info', () => {
  it("has one series per Rollout, 1, with Argo's labels and our status.phase as status_phase", async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(rollout('web', settled));
    m.setRollout(rollout('api', { ...settled, phase: 'Progressing', conditions: [] }, true));
    assert.deepEqual(await series(m, 'rollout_info'), [
      'rollout_info{namespace="prod",name="api",strategy="blueGreen",traffic_router="",phase="Progressing",status_phase="Progressing"} 1',
      'rollout_info{namespace="prod",name="web",strategy="canary",traffic_router="",phase="Completed",status_phase="Healthy"} 1',
    ]);
  });

  it('moves the series when a label changes, and drops it when the Rollout goes', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(rollout('web', settled));
    m.setRollout(rollout('web', settled));
    m.setRollout(rollout('web', aborted(settled)));
    assert.deepEqual(await series(m, 'rollout_info'), [
      'rollout_info{namespace="prod",name="web",strategy="canary",traffic_router="",phase="Abort",status_phase="Degraded"} 1',
    ]);
    m.forgetRollout('prod', 'web');
    assert.deepEqual(await series(m, 'rollout_info'), []);
  });

  it('has no series for a Rollout whose status was never written', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(rollout('new', undefined));
    assert.deepEqual(await series(m, 'rollout_info'), []);
  });
});

describe('rollout_info_replicas_*', () => {
  const status: RolloutStatus = {
    ...settled,
    phase: 'Progressing',
    replicas: 5,
    updatedReplicas: 2,
    availableReplicas: 3,
  };

  it('are not served without --rollout-replica-metrics', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(rollout('web', status));
    const text = await m.registry.metrics();
    assert.doesNotMatch(text, /rollout_info_replicas/);
  });

  it("with it, carry Argo's available, unavailable, desired and updated, and go with the Rollout", async () => {
    const m = new ControllerMetrics({ defaultMetrics: false, replicaGauges: true });
    m.setRollout(rollout('web', status));
    const values = async () =>
      Promise.all(
        ['available', 'unavailable', 'desired', 'updated'].map((s) =>
          series(m, `rollout_info_replicas_${s}`),
        ),
      );
    assert.deepEqual(await values(), [
      ['rollout_info_replicas_available{namespace="prod",name="web"} 3'],
      ['rollout_info_replicas_unavailable{namespace="prod",name="web"} 2'],
      ['rollout_info_replicas_desired{namespace="prod",name="web"} 4'],
      ['rollout_info_replicas_updated{namespace="prod",name="web"} 2'],
    ]);
    m.forgetRollout('prod', 'web');
    assert.deepEqual(await values(), [[], [], [], []]);
  });
});

describe('rollout_events_total', () => {
  it('counts the events recorded about each Rollout by type and reason, and only Rollouts', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    const web = rollout('web', settled);
    m.countEvent(web, 'Normal', 'RolloutStepCompleted');
    m.countEvent(web, 'Normal', 'RolloutStepCompleted');
    m.countEvent(web, 'Warning', 'RolloutAborted');
    m.countEvent(
      { kind: 'AnalysisRun', metadata: { namespace: 'prod', name: 'run' } },
      'Warning',
      'MetricFailed',
    );
    assert.deepEqual(await series(m, 'rollout_events_total'), [
      'rollout_events_total{namespace="prod",name="web",type="Normal",reason="RolloutStepCompleted"} 2',
      'rollout_events_total{namespace="prod",name="web",type="Warning",reason="RolloutAborted"} 1',
    ]);
  });

  it("drops a deleted Rollout's counts (per-object series must not grow without bound)", async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(rollout('web', settled));
    m.countEvent(rollout('web', settled), 'Normal', 'RolloutCompleted');
    m.countEvent(rollout('api', settled), 'Normal', 'RolloutCompleted');
    m.forgetRollout('prod', 'web');
    assert.deepEqual(await series(m, 'rollout_events_total'), [
      'rollout_events_total{namespace="prod",name="api",type="Normal",reason="RolloutCompleted"} 1',
    ]);
  });
});

function run(phase: AnalysisRun['status'], dryRun = false): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { namespace: 'prod', name: 'web-abc-2-1' },
    spec: {
      metrics: [
        { name: 'success-rate', provider: { prometheus: { query: 'up' } } },
        { name: 'smoke', provider: { web: { url: 'http://web/healthz' } } },
        { name: 'load', provider: { job: { spec: {} } } },
      ],
      ...(dryRun ? { dryRun: [{ metricName: 'smo.*' }] } : {}),
    },
    ...(phase ? { status: phase } : {}),
  };
}

describe('analysis_run_info, analysis_run_metric_type, analysis_run_metric_phase', () => {
  it("say the run's phase and, per metric, Argo's provider type and the metric's phase", async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setAnalysisRun(
      run(
        {
          phase: 'Running',
          metricResults: [
            { name: 'success-rate', phase: 'Successful' },
            { name: 'smoke', phase: 'Running' },
          ],
        },
        true,
      ),
    );
    assert.deepEqual(await series(m, 'analysis_run_info'), [
      'analysis_run_info{namespace="prod",name="web-abc-2-1",phase="Running"} 1',
    ]);
    assert.deepEqual(await series(m, 'analysis_run_metric_type'), [
      'analysis_run_metric_type{namespace="prod",name="web-abc-2-1",metric="load",type="Job"} 1',
      'analysis_run_metric_type{namespace="prod",name="web-abc-2-1",metric="smoke",type="Web"} 1',
      'analysis_run_metric_type{namespace="prod",name="web-abc-2-1",metric="success-rate",type="Prometheus"} 1',
    ]);
    assert.deepEqual(await series(m, 'analysis_run_metric_phase'), [
      'analysis_run_metric_phase{namespace="prod",name="web-abc-2-1",metric="load",type="Job",dry_run="false",phase="Pending"} 1',
      'analysis_run_metric_phase{namespace="prod",name="web-abc-2-1",metric="smoke",type="Web",dry_run="true",phase="Running"} 1',
      'analysis_run_metric_phase{namespace="prod",name="web-abc-2-1",metric="success-rate",type="Prometheus",dry_run="false",phase="Successful"} 1',
    ]);
  });

  it('a run not yet started is Pending; a phase change moves the series; a deleted run has none', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setAnalysisRun(run(undefined));
    assert.deepEqual(await series(m, 'analysis_run_info'), [
      'analysis_run_info{namespace="prod",name="web-abc-2-1",phase="Pending"} 1',
    ]);
    m.setAnalysisRun(run({ phase: 'Failed', metricResults: [{ name: 'load', phase: 'Failed' }] }));
    assert.deepEqual(await series(m, 'analysis_run_info'), [
      'analysis_run_info{namespace="prod",name="web-abc-2-1",phase="Failed"} 1',
    ]);
    assert.ok(
      (await series(m, 'analysis_run_metric_phase')).includes(
        'analysis_run_metric_phase{namespace="prod",name="web-abc-2-1",metric="load",type="Job",dry_run="false",phase="Failed"} 1',
      ),
    );
    assert.equal((await series(m, 'analysis_run_metric_phase')).length, 3, 'one per metric');
    m.forgetAnalysisRun('prod', 'web-abc-2-1');
    for (const family of [
      'analysis_run_info',
      'analysis_run_metric_type',
      'analysis_run_metric_phase',
    ]) {
      assert.deepEqual(await series(m, family), [], family);
    }
  });
});

describe('followAnalysisRunMetrics', () => {
  it('serves the runs the cache holds once leading, and follows their updates and deletion', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    const cached = [run({ phase: 'Running' })];
    let handler: EventHandler<AnalysisRun> | undefined;
    const runs = {
      // As the informer does: a handler registered late is told of what the cache holds.
      addEventHandler(h: EventHandler<AnalysisRun>) {
        handler = h;
        for (const r of cached) h.onAdd?.(r);
      },
    };
    assert.deepEqual(await series(m, 'analysis_run_info'), [], 'nothing before leading');
    followAnalysisRunMetrics(runs, m);
    assert.deepEqual(await series(m, 'analysis_run_info'), [
      'analysis_run_info{namespace="prod",name="web-abc-2-1",phase="Running"} 1',
    ]);
    handler?.onUpdate?.(run({ phase: 'Running' }), run({ phase: 'Successful' }));
    assert.deepEqual(await series(m, 'analysis_run_info'), [
      'analysis_run_info{namespace="prod",name="web-abc-2-1",phase="Successful"} 1',
    ]);
    handler?.onDelete?.(run({ phase: 'Successful' }));
    assert.deepEqual(await series(m, 'analysis_run_info'), []);
  });
});

describe('process metrics', () => {
  it("keep prom-client's defaults and the event-loop lag family, each once", async () => {
    const m = new ControllerMetrics();
    const text = await m.registry.metrics();
    for (const name of [
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_min_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      assert.equal(text.match(new RegExp(`^# TYPE ${name} `, 'gm'))?.length, 1, name);
    }
  });

  it('report delay: the sampling interval is taken off what Node records', () => {
    // Node records the time between two samples: 1 s apart on an idle loop, more when blocked.
    const samples = [1_000_000_000, 1_000_400_000, 1_002_000_000, 1_250_000_000];
    const sorted = [...samples].sort((a, b) => a - b);
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    let read = samples;
    const histogram = {
      get count() {
        return read.length;
      },
      min: sorted[0]!,
      max: sorted.at(-1)!,
      mean,
      stddev: 5_000_000,
      percentile: (p: number) =>
        sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!,
      reset: () => (read = []),
    };
    const figures = delayFigures(histogram, 1000);
    assert.ok(figures);
    assert.equal(figures.min, 0);
    assert.equal(figures.max, 0.25);
    assert.equal(figures.p99, 0.25);
    assert.ok(Math.abs(figures.mean - 0.0631) < 1e-4, String(figures.mean));
    assert.equal(figures.stddev, 0.005);
    // An interval shorter than Node's timer granularity never goes below zero.
    assert.equal(delayFigures({ ...histogram, min: 999_000_000 }, 1000)?.min, 0);
    histogram.reset();
    assert.equal(delayFigures(histogram, 1000), undefined, 'no sample since the last scrape');
  });
});

describe('stepwise_rollout_canary_weight and stepwise_rollout_step_index', () => {
  const weightAndStep = async (m: ControllerMetrics) => [
    await series(m, 'stepwise_rollout_canary_weight'),
    await series(m, 'stepwise_rollout_step_index'),
  ];

  it('follow a canary update step by step, stay at 0 when it is aborted, and go once it is settled', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    const sim = new Sim(
      rolloutFixture({
        strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }] } },
      }),
    );
    sim.run();
    m.setRollout(sim.rollout);
    assert.deepEqual(await weightAndStep(m), [[], []], 'a settled Rollout has none');

    sim.setImage('web:2');
    sim.run();
    m.setRollout(sim.rollout);
    const at = `{namespace="${sim.rollout.metadata.namespace}",name="${sim.rollout.metadata.name}"}`;
    assert.deepEqual(await weightAndStep(m), [
      [`stepwise_rollout_canary_weight${at} 25`],
      [`stepwise_rollout_step_index${at} 1`],
    ]);

    sim.abort();
    sim.run();
    m.setRollout(sim.rollout);
    assert.deepEqual(await weightAndStep(m), [
      [`stepwise_rollout_canary_weight${at} 0`],
      [`stepwise_rollout_step_index${at} 0`], // an abort goes back to the first step, as in Argo
    ]);

    sim.retry();
    sim.run();
    sim.promote();
    sim.run();
    m.setRollout(sim.rollout);
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(await weightAndStep(m), [[], []], 'none once the update is done');
  });

  it('are not kept for a blue-green Rollout, and go with a deleted Rollout', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRollout(
      rollout('bg', { ...settled, phase: 'Progressing', currentPodHash: 'b', stableRS: 'a' }, true),
    );
    assert.deepEqual(await weightAndStep(m), [[], []]);
    m.setRollout(
      rollout('web', { ...settled, phase: 'Paused', currentPodHash: 'b', stableRS: 'a' }),
    );
    assert.equal((await weightAndStep(m))[0]?.length, 1);
    m.forgetRollout('prod', 'web');
    assert.deepEqual(await weightAndStep(m), [[], []]);
  });
});
