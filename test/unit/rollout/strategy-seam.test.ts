// The strategy seam: plan() validates, then hands the pass to the strategy its dispatch table
// names, and orders what the strategy decided. A strategy is one module over the shared blocks
// (revision, child writes, status) plus one table entry: here a deliberately tiny "recreate"
// strategy (every old pod goes before a new one starts), written in this file and put in the
// table in the canary's place, walks a whole update with no canary code involved.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import { RolloutSpecSchema } from '../../../src/api/rollout.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { ReplicaSet, RolloutStatus } from '../../../src/api/index.ts';
import { pinServices, scaleReplicaSets } from '../../../src/rollout/child-writes.ts';
import { available, locate } from '../../../src/rollout/revision.ts';
import { STRATEGIES } from '../../../src/rollout/strategies.ts';
import type { Strategy } from '../../../src/rollout/strategy.ts';

/** Recreate, in full: old ReplicaSets to 0; once their pods are gone, the new one to full size;
 *  the stable Service follows the new pods once they are all available. */
const recreate: Strategy = {
  specProblems: () => [],
  observedProblems: () => [],
  plan(o) {
    const replicas = o.rollout.spec.replicas ?? 1;
    const located = locate(o, { count: 0, hash: 'recreate' });
    const { where, progress } = located;
    const old = [where.stable, ...where.others].filter((rs): rs is ReplicaSet => rs !== undefined);
    const oldPods = old.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
    const scale = scaleReplicaSets(
      o.rollout,
      where,
      { current: oldPods === 0 ? replicas : 0, stable: 0, others: where.others.map(() => 0) },
      where.others,
      {},
    );
    const done =
      oldPods === 0 && where.current !== undefined && available(where.current) >= replicas;
    const stableRS = done ? where.hash : progress.stableHash;
    const status: RolloutStatus = {
      ...o.rollout.status,
      currentPodHash: where.hash,
      currentStepHash: where.stepsHash,
      stableRS,
    };
    const services = pinServices(o, { stable: stableRS });
    return { fragments: [located.fragment, scale.fragment, services], status };
  },
};

function recreateSim(): Sim {
  const sim = new Sim(rolloutFixture({ strategy: { canary: { stableService: 'web' } } }));
  sim.services.set('web', serviceFixture('web'));
  sim.strategies = { canary: recreate, blueGreen: recreate };
  return sim;
}

const hashOf = (rs: ReplicaSet | undefined): string | undefined =>
  rs?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];

describe('the strategy seam', () => {
  it('dispatches the pass to the strategy the table names', () => {
    const sim = recreateSim();
    sim.run();
    sim.setImage('web:2');
    // One pass: the old pods go first, the new ReplicaSet is created empty.
    sim.settle();
    sim.pass();
    const counts = [...sim.replicaSets.values()].map((rs) => [
      rs.spec?.template?.spec?.containers[0]?.image,
      rs.spec?.replicas,
    ]);
    assert.deepEqual(counts.sort(), [
      ['web:1', 0],
      ['web:2', 0],
    ]);
  });

  it('walks a whole update with a strategy of one module, never running old and new at once', () => {
    const sim = recreateSim();
    sim.run();
    sim.setImage('web:2');
    for (let i = 0; i < 20; i++) {
      sim.settle();
      const images = new Set(
        [...sim.pods.values()].map((p) => p.spec?.containers[0]?.image).filter(Boolean),
      );
      assert.ok(images.size <= 1, `old and new pods at once: ${[...images].join(', ')}`);
      if (sim.pass().writes.length === 0) break;
    }
    assert.deepEqual(sim.pass().writes, [], 'a fixed point once the new pods run');
    const current = [...sim.replicaSets.values()].find(
      (rs) => hashOf(rs) === sim.rollout.status?.currentPodHash,
    );
    assert.equal(current?.spec?.template?.spec?.containers[0]?.image, 'web:2');
    assert.equal(current?.spec?.replicas, 4);
    assert.equal(sim.rollout.status?.stableRS, sim.rollout.status?.currentPodHash);
    assert.equal(
      sim.services.get('web')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      sim.rollout.status?.currentPodHash,
    );
    assert.ok(!sim.events().some((e) => e.startsWith('RolloutStepCompleted')), 'no canary steps');
  });

  it('has one table entry for every strategy the schema has', () => {
    const inSchema = Object.keys(RolloutSpecSchema.properties.strategy.properties).sort();
    assert.deepEqual(Object.keys(STRATEGIES).sort(), inSchema);
  });
});
