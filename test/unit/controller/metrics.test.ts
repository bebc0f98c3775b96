import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerMetrics } from '../../../src/controller/metrics.ts';

async function infoSeries(m: ControllerMetrics): Promise<string[]> {
  const text = await m.registry.getSingleMetricAsString('rollout_info');
  return text
    .split('\n')
    .filter((l) => l.startsWith('rollout_info{'))
    .sort();
}

describe('rollout_info', () => {
  it('has one series per Rollout, 1 for its phase, as Argo', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRolloutPhase('prod', 'web', 'Progressing');
    m.setRolloutPhase('prod', 'api', 'Healthy');
    assert.deepEqual(await infoSeries(m), [
      'rollout_info{namespace="prod",name="api",strategy="canary",phase="Healthy"} 1',
      'rollout_info{namespace="prod",name="web",strategy="canary",phase="Progressing"} 1',
    ]);
  });

  it('moves the series when the phase changes, and drops it when the Rollout goes', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRolloutPhase('prod', 'web', 'Progressing');
    m.setRolloutPhase('prod', 'web', 'Progressing');
    m.setRolloutPhase('prod', 'web', 'Degraded');
    assert.deepEqual(await infoSeries(m), [
      'rollout_info{namespace="prod",name="web",strategy="canary",phase="Degraded"} 1',
    ]);
    m.forgetRollout('prod', 'web');
    assert.deepEqual(await infoSeries(m), []);
    // A Rollout with no phase yet (no status written) has no series either.
    m.setRolloutPhase('prod', 'new', undefined);
    assert.deepEqual(await infoSeries(m), []);
  });

  it('labels a blue-green Rollout strategy="blueGreen", and moves the series when the strategy changes', async () => {
    const m = new ControllerMetrics({ defaultMetrics: false });
    m.setRolloutPhase('prod', 'web', 'Healthy', 'blueGreen');
    assert.deepEqual(await infoSeries(m), [
      'rollout_info{namespace="prod",name="web",strategy="blueGreen",phase="Healthy"} 1',
    ]);
    m.setRolloutPhase('prod', 'web', 'Healthy', 'canary');
    assert.deepEqual(await infoSeries(m), [
      'rollout_info{namespace="prod",name="web",strategy="canary",phase="Healthy"} 1',
    ]);
  });
});
