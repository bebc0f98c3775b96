// rollout_info's labels from Rollouts the planner brought to each of our states: Argo's phase
// (what Argo's dashboards count) beside our status.phase, and traffic_router per router.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanaryStrategy, Rollout, RolloutSpec } from '../../../src/api/index.ts';
import { rolloutInfoLabels, trafficRouterLabel } from '../../../src/controller/rollout-metrics.ts';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';

function deployed(spec: Partial<RolloutSpec> = {}): Sim {
  const sim = new Sim(rolloutFixture(spec));
  sim.run();
  return sim;
}

/** [status.phase, Argo's metric phase] of the Rollout as the planner left it. */
function phases(sim: Sim): [string | undefined, string] {
  const labels = rolloutInfoLabels(sim.rollout);
  return [sim.rollout.status?.phase, labels.phase];
}

describe("rollout_info's phase: Argo's vocabulary from each of our states", () => {
  it('Healthy is Completed', () => {
    assert.deepEqual(phases(deployed()), ['Healthy', 'Completed']);
  });

  it('Progressing (an update whose canary pods are not yet available) is Progressing', () => {
    const sim = deployed();
    sim.podsBecomeReady = false;
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(phases(sim), ['Progressing', 'Progressing']);
  });

  it('Paused at a pause step is Paused', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(phases(sim), ['Paused', 'Paused']);
  });

  it('Degraded by an abort is Abort', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    sim.abort();
    sim.run();
    assert.deepEqual(phases(sim), ['Degraded', 'Abort']);
  });

  it('Degraded by the progress deadline is Timeout (Abort with progressDeadlineAbort)', () => {
    for (const [abort, want] of [
      [false, 'Timeout'],
      [true, 'Abort'],
    ] as const) {
      const sim = deployed({ progressDeadlineSeconds: 60, progressDeadlineAbort: abort });
      sim.podsBecomeReady = false;
      sim.setImage('web:2');
      sim.run();
      sim.advance(61_000);
      sim.run();
      assert.deepEqual(phases(sim), ['Degraded', want], `progressDeadlineAbort: ${abort}`);
    }
  });

  it('Degraded by a ReplicaSet the API server refused is Error', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.refusal = { replicaSet: 'web-x', create: true, message: 'Required value' };
    sim.pass();
    assert.deepEqual(phases(sim), ['Degraded', 'Error']);
  });

  it('an invalid spec is InvalidSpec, and Completed again once fixed', () => {
    const sim = new Sim(rolloutFixture({ strategy: { canary: { steps: [{ setWeight: 120 }] } } }));
    sim.pass();
    assert.deepEqual(phases(sim), ['Degraded', 'InvalidSpec']);
    sim.rollout.spec.strategy.canary = { steps: [{ setWeight: 20 }] };
    sim.run();
    assert.deepEqual(phases(sim), ['Healthy', 'Completed']);
  });

  it('a Rollout with no conditions yet is Progressing, as in Argo', () => {
    assert.equal(rolloutInfoLabels(rolloutFixture()).phase, 'Progressing');
  });
});

describe("rollout_info's traffic_router", () => {
  const routed = (trafficRouting: CanaryStrategy['trafficRouting']): Rollout =>
    rolloutFixture({
      strategy: {
        canary: { canaryService: 'c', stableService: 's', trafficRouting, steps: [] },
      },
    });
  const cases: [string, Rollout, string][] = [
    ['istio', routed({ istio: { virtualService: { name: 'vs' } } }), 'Istio'],
    ['nginx', routed({ nginx: { stableIngress: 'web' } }), 'Nginx'],
    ['smi', routed({ smi: {} }), 'SMI'],
    ['gatewayAPI', routed({ gatewayAPI: { httpRoute: 'web' } }), 'GatewayAPI'],
    [
      "Argo's Gateway API plugin key",
      routed({ plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'web' } } }),
      'GatewayAPI',
    ],
    ['a basic canary', rolloutFixture(), ''],
    ['blue-green', rolloutFixture({ strategy: { blueGreen: { activeService: 'web' } } }), ''],
  ];
  for (const [name, rollout, want] of cases) {
    it(`${name}: "${want}"`, () => {
      assert.equal(trafficRouterLabel(rollout), want);
      assert.equal(rolloutInfoLabels(rollout).traffic_router, want);
    });
  }
});
