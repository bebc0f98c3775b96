// Analysis in the planner: step and background AnalysisRuns, their verdicts (go on, abort with
// the metric and value, pause on Inconclusive), termination of runs no longer current, history
// limits, and templates checked up front. The run controller is played by `sim.setRunPhase`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';
import type { AnalysisTemplate, CanaryStrategy, RolloutSpec } from '../../../src/api/index.ts';

const template: AnalysisTemplate = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'success-rate', namespace: 'ns' },
  spec: {
    args: [{ name: 'service' }, { name: 'hash' }],
    metrics: [
      {
        name: 'success-rate',
        successCondition: 'result[0] >= 0.95',
        provider: {
          prometheus: {
            address: 'http://127.0.0.1:9090',
            query: 'rate(ok{hash="{{args.hash}}"}[1m])',
          },
        },
      },
    ],
  },
};

const stepAnalysis = {
  templates: [{ templateName: 'success-rate' }],
  args: [
    { name: 'service', value: 'web' },
    { name: 'hash', valueFrom: { podTemplateHashValue: 'Latest' as const } },
  ],
};

function sim(canary: CanaryStrategy, spec: Partial<RolloutSpec> = {}): Sim {
  const s = new Sim(rolloutFixture({ ...spec, strategy: { canary } }));
  s.analysisTemplates.set('success-rate', template);
  s.run();
  s.setImage('web:2');
  s.run();
  return s;
}

const withStep = { steps: [{ setWeight: 25 }, { analysis: stepAnalysis }, { setWeight: 50 }] };
const runNames = (s: Sim) => [...s.analysisRuns.keys()];
const stepStatus = (s: Sim) => s.rollout.status?.canary?.currentStepAnalysisRunStatus;
const progressing = (s: Sim) => s.rollout.status?.conditions?.find((c) => c.type === 'Progressing');

describe('an analysis step', () => {
  it('creates one run from the template, owned by the Rollout, and waits for it', () => {
    const s = sim(withStep);
    const [name] = runNames(s);
    const status = s.rollout.status ?? {};
    assert.equal(runNames(s).length, 1);
    assert.equal(name, `web-${status.currentPodHash}-2-1`);
    const run = s.analysisRuns.get(name ?? '');
    assert.deepEqual(run?.spec.args, [
      { name: 'service', value: 'web' },
      { name: 'hash', value: status.currentPodHash },
    ]);
    assert.equal(run?.metadata.labels?.['rollout-type'], 'Step');
    assert.equal(run?.metadata.labels?.['step-index'], '1');
    assert.equal(run?.metadata.ownerReferences?.[0]?.kind, 'Rollout');
    assert.equal(status.currentStepIndex, 1);
    assert.deepEqual(stepStatus(s), { name, status: 'Pending' });
    assert.deepEqual(s.pass().writes, [], 'waiting is quiet');
  });

  it('a Successful run completes the step; the rollout goes on to the end', () => {
    const s = sim(withStep);
    s.setRunPhase(runNames(s)[0] ?? '', 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.ok(s.events().some((e) => e.includes('completed (analysis: success-rate)')));
    assert.equal(stepStatus(s), undefined, 'no current run once promoted');
  });

  it('a Failed run aborts, saying which metric and value, and stays in status', () => {
    const s = sim(withStep);
    const name = runNames(s)[0] ?? '';
    const why = 'Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)';
    s.setRunPhase(name, 'Failed', why, '[0.42]');
    s.run();
    const status = s.rollout.status ?? {};
    assert.equal(status.abort, true);
    assert.equal(status.phase, 'Degraded');
    assert.equal(
      progressing(s)?.message,
      `Rollout aborted update to revision 2: AnalysisRun "${name}" Failed: ${why} (last value [0.42])`,
    );
    assert.equal(stepStatus(s)?.status, 'Failed');
    assert.ok(s.events().some((e) => e.startsWith('AnalysisRunFailed: Step analysis: ')));
    assert.deepEqual(Object.values(s.replicaCounts()).sort(), [0, 4], 'back to stable');
    assert.deepEqual(s.pass().writes, []);
  });

  it('retry after a failure runs a fresh analysis', () => {
    const s = sim(withStep);
    const first = runNames(s)[0] ?? '';
    s.setRunPhase(first, 'Failed', 'bad');
    s.run();
    s.retry();
    s.run();
    assert.deepEqual(runNames(s), [first, `${first}.1`]);
    assert.equal(stepStatus(s)?.name, `${first}.1`);
    assert.equal(s.rollout.status?.abort, false);
  });

  it('an Inconclusive run pauses for a person; promote goes on', () => {
    const s = sim(withStep);
    s.setRunPhase(runNames(s)[0] ?? '', 'Inconclusive');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.equal(s.rollout.status?.message, 'InconclusiveAnalysisRun');
    assert.deepEqual(s.pass().writes, []);
    s.promote();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });

  it('a promote past a running analysis terminates its run', () => {
    const s = sim(withStep);
    const name = runNames(s)[0] ?? '';
    s.patchStatus({ currentStepIndex: 2 });
    s.run();
    assert.equal(s.analysisRuns.get(name)?.spec.terminate, true);
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });

  it('a missing template is an InvalidSpec naming it, before any step', () => {
    const s = new Sim(rolloutFixture({ strategy: { canary: withStep } }));
    s.run();
    const invalid = s.rollout.status?.conditions?.find((c) => c.type === 'InvalidSpec');
    assert.match(
      invalid?.message ?? '',
      /steps\[1\]\.analysis: AnalysisTemplate "success-rate" not found/,
    );
    assert.equal(s.analysisRuns.size, 0);
  });
});

describe('background analysis', () => {
  const background = {
    steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }],
    analysis: { ...stepAnalysis, startingStep: 2 },
  };

  it('starts at startingStep and is terminated when the rollout completes', () => {
    const s = sim(background);
    assert.equal(s.analysisRuns.size, 0, 'not before step 2');
    s.promote();
    s.run();
    const [name] = runNames(s);
    assert.equal(s.rollout.status?.canary?.currentBackgroundAnalysisRunStatus?.name, name);
    assert.equal(s.analysisRuns.get(name ?? '')?.metadata.labels?.['rollout-type'], 'Background');
    s.patchStatus({ promoteFull: true });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(s.analysisRuns.get(name ?? '')?.spec.terminate, true);
  });

  it('a failure aborts the rollout at whatever step it is', () => {
    const s = sim(background);
    s.promote();
    s.run();
    s.setRunPhase(
      runNames(s)[0] ?? '',
      'Error',
      'Metric "latency" assessed Error due to consecutiveErrors (5) > consecutiveErrorLimit (4)',
    );
    s.run();
    assert.equal(s.rollout.status?.abort, true);
    assert.match(progressing(s)?.message ?? '', /consecutiveErrorLimit/);
    assert.ok(s.events().some((e) => e.startsWith('AnalysisRunError: Background analysis')));
  });
});

describe('run history', () => {
  it('keeps at most unsuccessfulRunHistoryLimit failed runs', () => {
    const s = sim(withStep, { analysis: { unsuccessfulRunHistoryLimit: 2 } });
    for (let i = 0; i < 4; i++) {
      const current = stepStatus(s)?.name ?? '';
      s.setRunPhase(current, 'Failed', 'bad');
      s.run();
      s.retry();
      s.run();
    }
    const failed = runNames(s).filter((n) => s.analysisRuns.get(n)?.status?.phase === 'Failed');
    assert.equal(failed.length, 2);
  });
});
