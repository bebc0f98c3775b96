// Events Argo Rollouts sends on the Rollout, with its reasons and messages: TrafficWeightUpdated
// when the router's weight moves, AnalysisRunRunning and AnalysisRunSuccessful as a run the
// rollout waits on moves. Each goes out once, with the status write that records the change.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import type { AnalysisTemplate, CanaryStep } from '../../../src/api/index.ts';

/** Events of the sim's log as `Type Reason: message`, of the given reasons. */
function events(sim: Sim, ...reasons: string[]): string[] {
  return sim.log.flatMap((w) =>
    w.kind === 'event' && reasons.includes(w.reason) ? [`${w.type} ${w.reason}: ${w.message}`] : [],
  );
}

function routedSim(steps: CanaryStep[]): Sim {
  const sim = new Sim(
    rolloutFixture({
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { gatewayAPI: { httpRoute: 'web' } },
          steps,
        },
      },
    }),
  );
  sim.services.set('web-canary', serviceFixture('web-canary'));
  sim.services.set('web-stable', serviceFixture('web-stable'));
  sim.traffic = { state: { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] }, problems: [] };
  sim.run();
  return sim;
}

describe('TrafficWeightUpdated', () => {
  it('is sent once per weight the router is given, after the router write, never on a quiet pass', () => {
    const sim = routedSim([{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }, { pause: {} }]);
    assert.deepEqual(events(sim, 'TrafficWeightUpdated'), [], 'a first deploy at 0 moves nothing');
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(events(sim, 'TrafficWeightUpdated'), [
      'Normal TrafficWeightUpdated: Traffic weight updated from 0 to 20',
    ]);
    assert.deepEqual(sim.pass().writes, [], 'paused: nothing new, nothing sent');
    sim.promote();
    sim.run();
    sim.promote();
    sim.run();
    sim.advance(30_000); // the old stable's scaleDownDelaySeconds
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(events(sim, 'TrafficWeightUpdated'), [
      'Normal TrafficWeightUpdated: Traffic weight updated from 0 to 20',
      'Normal TrafficWeightUpdated: Traffic weight updated from 20 to 60',
      'Normal TrafficWeightUpdated: Traffic weight updated from 60 to 100',
      'Normal TrafficWeightUpdated: Traffic weight updated from 100 to 0',
    ]);
    // Each after the router write that made it so.
    sim.log.forEach((w, i) => {
      if (w.kind !== 'event' || w.reason !== 'TrafficWeightUpdated') return;
      const before = sim.log.slice(0, i).filter((x) => x.kind === 'setTraffic');
      const last = before.at(-1);
      assert.ok(last?.kind === 'setTraffic', `a router write precedes "${w.message}"`);
      assert.ok(w.message.endsWith(`to ${last.state.canaryWeight}`));
    });
  });

  it('an abort sends the weight back to 0 once', () => {
    const sim = routedSim([{ setWeight: 30 }, { pause: {} }]);
    sim.setImage('web:2');
    sim.run();
    sim.abort();
    sim.run();
    assert.deepEqual(events(sim, 'TrafficWeightUpdated'), [
      'Normal TrafficWeightUpdated: Traffic weight updated from 0 to 30',
      'Normal TrafficWeightUpdated: Traffic weight updated from 30 to 0',
    ]);
    assert.deepEqual(sim.pass().writes, []);
  });
});

const template: AnalysisTemplate = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'success-rate', namespace: 'ns' },
  spec: {
    metrics: [
      {
        name: 'success-rate',
        successCondition: 'result[0] >= 0.95',
        provider: { prometheus: { address: 'http://127.0.0.1:9090', query: 'ok' } },
      },
    ],
  },
};

describe('AnalysisRunRunning and AnalysisRunSuccessful', () => {
  it("are sent once each as the step's run starts and succeeds, with Argo's message", () => {
    const sim = new Sim(
      rolloutFixture({
        strategy: {
          canary: {
            steps: [
              { setWeight: 25 },
              { analysis: { templates: [{ templateName: 'success-rate' }] } },
            ],
          },
        },
      }),
    );
    sim.analysisTemplates.set('success-rate', template);
    sim.run();
    sim.setImage('web:2');
    sim.run();
    const [name = ''] = sim.analysisRuns.keys();
    const reasons = ['AnalysisRunRunning', 'AnalysisRunSuccessful'];
    assert.deepEqual(events(sim, ...reasons), [], 'created, not yet running');
    sim.setRunPhase(name, 'Running');
    sim.run();
    assert.deepEqual(sim.pass().writes, [], 'still running: nothing new, nothing sent');
    sim.setRunPhase(name, 'Successful');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(events(sim, ...reasons), [
      `Normal AnalysisRunRunning: Step Analysis Run '${name}' Status New: 'Running' Previous: 'Pending'`,
      `Normal AnalysisRunSuccessful: Step Analysis Run '${name}' Status New: 'Successful' Previous: 'Running'`,
    ]);
  });

  it('a failed run still gets its own Warning, not these', () => {
    const sim = new Sim(
      rolloutFixture({
        strategy: {
          canary: { steps: [{ analysis: { templates: [{ templateName: 'success-rate' }] } }] },
        },
      }),
    );
    sim.analysisTemplates.set('success-rate', template);
    sim.run();
    sim.setImage('web:2');
    sim.run();
    const [name = ''] = sim.analysisRuns.keys();
    sim.setRunPhase(name, 'Failed', 'Metric "success-rate" assessed Failed', '0.5');
    sim.run();
    assert.deepEqual(events(sim, 'AnalysisRunRunning', 'AnalysisRunSuccessful'), []);
    assert.equal(events(sim, 'AnalysisRunFailed').length, 1);
  });
});

describe('AnalysisRunRunning and AnalysisRunSuccessful, blue-green', () => {
  it('name the pre-promotion run as Argo does, once each', () => {
    const sim = new Sim(
      rolloutFixture({
        replicas: 2,
        strategy: {
          blueGreen: {
            activeService: 'active',
            previewService: 'preview',
            prePromotionAnalysis: { templates: [{ templateName: 'success-rate' }] },
          },
        },
      }),
    );
    sim.services.set('active', serviceFixture('active'));
    sim.services.set('preview', serviceFixture('preview'));
    sim.analysisTemplates.set('success-rate', template);
    sim.run();
    sim.setImage('web:2');
    sim.run();
    const [name = ''] = sim.analysisRuns.keys();
    sim.setRunPhase(name, 'Running');
    sim.run();
    sim.setRunPhase(name, 'Successful');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(events(sim, 'AnalysisRunRunning', 'AnalysisRunSuccessful'), [
      `Normal AnalysisRunRunning: PrePromotion Analysis Run '${name}' Status New: 'Running' Previous: 'Pending'`,
      `Normal AnalysisRunSuccessful: PrePromotion Analysis Run '${name}' Status New: 'Successful' Previous: 'Running'`,
    ]);
  });
});
