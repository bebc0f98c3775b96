// Traffic with a router, planned: the weight at each step (never ahead of available canary pods),
// Argo's traffic-routed replica counts, abort and promotion moving traffic back before any pod
// goes, header and mirror routes from the steps, a reset by an outside write put right, and no
// writes from a pass that sees nothing new.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { CanaryStep, CanaryStrategy } from '../../../src/api/index.ts';
import type { Write } from '../../../src/rollout/types.ts';

type Routing = NonNullable<CanaryStrategy['trafficRouting']>;

function routedSim(
  steps: CanaryStep[],
  extra: Partial<CanaryStrategy> = {},
  routing: Routing = { gatewayAPI: { httpRoute: 'web' } },
): Sim {
  const sim = new Sim(
    rolloutFixture({
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: routing,
          steps,
          ...extra,
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

/** [canary, stable] spec replicas. */
function pods(sim: Sim): [number, number] {
  const status = sim.rollout.status ?? {};
  const of = (hash: string | undefined) =>
    [...sim.replicaSets.values()].find(
      (rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === hash,
    )?.spec?.replicas ?? 0;
  return status.currentPodHash === status.stableRS
    ? [of(status.currentPodHash), 0]
    : [of(status.currentPodHash), of(status.stableRS)];
}

const weightHistory = (sim: Sim): number[] => sim.trafficLog.map((s) => s.canaryWeight);
const writeKinds = (writes: readonly Write[]): string[] =>
  writes.map((w) => (w.kind === 'applyReplicaSet' ? `rs:${w.body.spec?.replicas}` : w.kind));

describe('traffic-routed canary', () => {
  it('moves weights step by step with the stable kept full; status.canary.weights says so', () => {
    const sim = routedSim([{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }, { pause: {} }]);
    assert.deepEqual(sim.trafficLog, [], 'a first deploy leaves the weights at 0');
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(pods(sim), [1, 4], 'ceil(4 × 20%) canary, stable stays at 4');
    assert.deepEqual(weightHistory(sim), [20]);
    const w = sim.rollout.status?.canary?.weights;
    assert.equal(w?.canary.weight, 20);
    assert.equal(w?.stable.weight, 80);
    assert.equal(w?.canary.serviceName, 'web-canary');
    assert.equal(w?.stable.podTemplateHash, sim.rollout.status?.stableRS);
    sim.promote();
    sim.run();
    assert.deepEqual(pods(sim), [3, 4]);
    assert.deepEqual(weightHistory(sim), [20, 60]);
    sim.promote();
    sim.run();
    // Past the last step the canary gets everything, becomes the stable, and the stable Service
    // (now selecting the new pods) takes the traffic back: 100 then 0.
    assert.deepEqual(weightHistory(sim), [20, 60, 100, 0]);
    assert.equal(sim.rollout.status?.message, 'old replicas are pending termination');
    assert.deepEqual(
      Object.values(sim.replicaCounts()),
      [4, 4],
      'old pods kept while traffic drains',
    );
    sim.advance(30_000); // scaleDownDelaySeconds, Argo's default
    sim.run();
    assert.deepEqual(Object.values(sim.replicaCounts()).sort(), [0, 4]);
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.equal(sim.rollout.status?.canary?.weights?.canary.weight, 0);
  });

  it('never gives the canary traffic before its pods are available', () => {
    const sim = routedSim([{ setWeight: 50 }, { pause: {} }]);
    sim.podsBecomeReady = false;
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(pods(sim), [2, 4]);
    assert.deepEqual(weightHistory(sim), [], 'no weight while the canary has no available pod');
    sim.podsBecomeReady = true;
    sim.run();
    assert.deepEqual(weightHistory(sim), [50]);
  });

  it('a canary whose pods fail after taking traffic loses it at once, then stays quiet', () => {
    const sim = routedSim([{ setWeight: 50 }, { pause: {} }]);
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(weightHistory(sim), [50]);
    sim.unreadyImages.add('web:2'); // the pods crash after starting: none available
    sim.run();
    assert.deepEqual(weightHistory(sim), [50, 0], 'no traffic to a canary with no available pod');
    assert.deepEqual(pods(sim), [2, 4], 'its pods are kept (no abort), the stable stays full');
    assert.deepEqual(sim.pass().writes, [], 'and a pass that sees nothing new writes nothing');
    sim.unreadyImages.delete('web:2');
    sim.run();
    assert.deepEqual(weightHistory(sim), [50, 0, 50], 'traffic comes back once they recover');
  });

  it('a lower weight is given at once and written before the canary scales down', () => {
    const sim = routedSim([{ setWeight: 75 }, { pause: {} }, { setWeight: 25 }, { pause: {} }]);
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(pods(sim), [3, 4]);
    const from = sim.log.length;
    sim.promote();
    sim.run();
    assert.deepEqual(weightHistory(sim), [75, 25]);
    assert.deepEqual(pods(sim), [1, 4]);
    const kinds = writeKinds(sim.log.slice(from));
    assert.ok(kinds.indexOf('setTraffic') < kinds.indexOf('rs:1'), kinds.join(' '));
  });

  it('abort sends all traffic to the stable before any pod goes, then keeps the canary for abortScaleDownDelaySeconds', () => {
    const sim = routedSim([{ setWeight: 50 }, { pause: {} }], { abortScaleDownDelaySeconds: 10 });
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    assert.deepEqual(weightHistory(sim), [50, 0]);
    assert.deepEqual(pods(sim), [2, 4], 'canary kept while people look');
    assert.equal(sim.rollout.status?.phase, 'Degraded');
    assert.equal(sim.pass().requeueAfterMs, 10_000);
    sim.advance(10_000);
    sim.run();
    assert.deepEqual(pods(sim), [0, 4]);
    assert.deepEqual(weightHistory(sim), [50, 0], 'no flap');
  });

  it('abortScaleDownDelaySeconds 0 keeps the canary up until retry', () => {
    const sim = routedSim([{ setWeight: 50 }, { pause: {} }], { abortScaleDownDelaySeconds: 0 });
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    sim.advance(3_600_000);
    sim.run();
    assert.deepEqual(pods(sim), [2, 4]);
    sim.retry();
    sim.run();
    assert.deepEqual(weightHistory(sim), [50, 0, 50]);
  });

  it('dynamicStableScale shrinks the stable only behind the traffic it still receives', () => {
    const sim = routedSim([{ setWeight: 75 }, { pause: {} }], { dynamicStableScale: true });
    sim.setImage('web:2');
    sim.settle();
    sim.pass(); // canary to ceil(4 × 75%) = 3; stable keeps 4: its traffic is still 100%
    assert.deepEqual(pods(sim), [3, 4]);
    sim.run();
    assert.deepEqual(weightHistory(sim), [75]);
    assert.deepEqual(pods(sim), [3, 1], 'stable down to ceil(4 × 25%) once traffic moved');
  });

  it('setCanaryScale sets the canary pods apart from the weight', () => {
    const sim = routedSim([{ setCanaryScale: { replicas: 1 } }, { setWeight: 50 }, { pause: {} }]);
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(pods(sim), [1, 4]);
    assert.deepEqual(weightHistory(sim), [50]);
  });

  it('maxTrafficWeight: steps count in its units', () => {
    const sim = routedSim(
      [{ setWeight: 250 }, { pause: {} }],
      {},
      {
        gatewayAPI: { httpRoute: 'web' },
        maxTrafficWeight: 1000,
      },
    );
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(pods(sim), [1, 4], 'ceil(4 × 250/1000)');
    assert.equal(sim.rollout.status?.canary?.weights?.stable.weight, 750);
  });

  it('header and mirror routes follow the steps and are removed at the end', () => {
    const header = { headerName: 'x-canary', headerValue: { exact: 'yes' } };
    const sim = routedSim(
      [
        { setHeaderRoute: { name: 'by-header', match: [header] } },
        { setMirrorRoute: { name: 'mirror', match: [{ path: { prefix: '/' } }], percentage: 20 } },
        { setWeight: 10 },
        { pause: {} },
        { setHeaderRoute: { name: 'by-header' } },
        { pause: {} },
      ],
      {},
      {
        gatewayAPI: { httpRoute: 'web' },
        managedRoutes: [{ name: 'mirror' }, { name: 'by-header' }],
      },
    );
    sim.setImage('web:2');
    sim.run();
    const at = sim.traffic?.state;
    assert.equal(at?.canaryWeight, 10);
    assert.deepEqual(
      at?.mirrorRoutes.map((r) => r.name),
      ['mirror'],
    );
    assert.deepEqual(at?.headerRoutes, [{ name: 'by-header', match: [header] }]);
    sim.promote();
    sim.run();
    assert.deepEqual(
      sim.traffic?.state?.headerRoutes,
      [],
      'a setHeaderRoute without match removes it',
    );
    sim.promote();
    sim.run();
    assert.deepEqual(sim.traffic?.state, { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] });
  });

  it('an outside write that resets the weights is put right on the next pass, without moving a step', () => {
    const sim = routedSim([{ setWeight: 30 }, { pause: {} }]);
    sim.setImage('web:2');
    sim.run();
    const step = sim.rollout.status?.currentStepIndex;
    sim.traffic = { state: { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] }, problems: [] };
    const plan = sim.pass();
    assert.deepEqual(writeKinds(plan.writes), ['setTraffic'], 'only the weights, no status write');
    assert.equal(sim.traffic?.state?.canaryWeight, 30);
    assert.equal(sim.rollout.status?.currentStepIndex, step);
    assert.notEqual(sim.rollout.status?.abort, true);
  });

  it('a route the router cannot use is InvalidSpec naming it, and nothing else is written', () => {
    const sim = routedSim([{ setWeight: 30 }, { pause: {} }]);
    sim.traffic = { problems: ['HTTPRoute "web" not found in namespace ns'] };
    sim.setImage('web:2');
    const plan = sim.pass();
    assert.deepEqual(writeKinds(plan.writes), ['applyStatus', 'event']);
    const invalid = sim.rollout.status?.conditions?.find((c) => c.type === 'InvalidSpec');
    assert.match(invalid?.message ?? '', /HTTPRoute "web" not found/);
    assert.equal(sim.rollout.status?.phase, 'Degraded');
  });

  it('every state is a fixed point: a pass that sees nothing new writes nothing', () => {
    const sim = routedSim([{ setWeight: 30 }, { pause: { duration: '10s' } }, { setWeight: 60 }]);
    const quiet = () => assert.deepEqual(sim.pass().writes, []);
    quiet();
    sim.setImage('web:2');
    sim.run();
    quiet();
    sim.patchStatus({ abort: true });
    sim.run();
    quiet();
    sim.retry();
    sim.run();
    sim.advance(10_000);
    sim.run();
    quiet();
  });
});

describe('traffic routing spec', () => {
  const problems = (canary: Partial<CanaryStrategy>): string[] => {
    const sim = new Sim(
      rolloutFixture({ strategy: { canary: { steps: [{ setWeight: 10 }], ...canary } } }),
    );
    sim.services.set('c', serviceFixture('c'));
    sim.services.set('s', serviceFixture('s'));
    sim.pass();
    const c = sim.rollout.status?.conditions?.find((x) => x.type === 'InvalidSpec');
    return c === undefined ? [] : c.message.split('; ');
  };
  const services = { canaryService: 'c', stableService: 's' };
  // Each router's own rules reach the planner through the shell's reading of the routers:
  // test/unit/traffic/routing-spec.test.ts.

  for (const [name, canary, expected] of [
    [
      'dynamicStableScale without a router',
      { dynamicStableScale: true },
      'spec.strategy.canary.dynamicStableScale: requires trafficRouting',
    ],
    [
      'a router without canaryService and stableService',
      { trafficRouting: { gatewayAPI: { httpRoute: 'web' } } },
      'spec.strategy.canary.trafficRouting: requires canaryService and stableService',
    ],
    [
      'a plugin Stepwise does not serve',
      { ...services, trafficRouting: { plugins: { 'acme/router': {} } } },
      'spec.strategy.canary.trafficRouting.plugins["acme/router"]: not supported (Stepwise serves "argoproj-labs/gatewayAPI" built in)',
    ],
    [
      'a weight over maxTrafficWeight',
      {
        ...services,
        trafficRouting: { smi: {}, maxTrafficWeight: 50 },
        steps: [{ setWeight: 60 }],
      },
      'spec.strategy.canary.steps[0].setWeight: must be between 0 and 50, got 60',
    ],
  ] as const) {
    it(`${name} is InvalidSpec`, () => {
      assert.ok(
        problems(canary as Partial<CanaryStrategy>).includes(expected),
        problems(canary as Partial<CanaryStrategy>).join('\n'),
      );
    });
  }

  it("Argo's Gateway API plugin key is accepted as the built-in router", () => {
    assert.deepEqual(
      problems({
        ...services,
        trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'web' } } },
      }),
      [],
    );
  });
});
