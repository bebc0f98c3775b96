// A basic canary's stable Service never selects a ReplicaSet with nothing to serve. At full weight
// the stable drains to 0 before status.stableRS moves; Argo leaves its stable Service on it until
// then (argo-rollouts#1760: no endpoints for a moment at the end of every release). Here the
// Service moves to the new version, written before the scale-down that empties the old one; and
// an abort from there leaves it on the new version until the stable has pods available again.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { CanaryStrategy, ReplicaSet } from '../../../src/api/index.ts';
import type { Write } from '../../../src/rollout/types.ts';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';

const STEPS = [{ setWeight: 25 }, { pause: {} }];

function pausedCanary(extra: Partial<CanaryStrategy> = {}): Sim {
  const canary = {
    stableService: 'web-stable',
    canaryService: 'web-canary',
    steps: STEPS,
    ...extra,
  };
  const s = new Sim(rolloutFixture({ strategy: { canary } }));
  s.services.set('web-stable', serviceFixture('web-stable'));
  s.services.set('web-canary', serviceFixture('web-canary'));
  s.run();
  s.setImage('web:2');
  s.run();
  return s;
}

const hashOf = (rs: ReplicaSet | undefined) => rs?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
const selected = (s: Sim, service: string): ReplicaSet | undefined => {
  const hash = s.services.get(service)?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];
  return [...s.replicaSets.values()].find((rs) => hashOf(rs) === hash);
};

/** The stable Service's ReplicaSet, as the pass leaves it: kept, and with pods available. */
function assertStableServes(s: Sim, when: string): void {
  const rs = selected(s, 'web-stable');
  assert.ok(rs !== undefined, `${when}: the stable Service selects a ReplicaSet`);
  assert.ok((rs.spec?.replicas ?? 0) > 0, `${when}: ${rs.metadata?.name} is not being emptied`);
  assert.ok((rs.status?.availableReplicas ?? 0) > 0, `${when}: ${rs.metadata?.name} has pods`);
}

const kinds = (writes: readonly Write[]) =>
  writes
    .filter((w) => w.kind === 'applyReplicaSet' || w.kind === 'applyService')
    .map((w) =>
      w.kind === 'applyService'
        ? `svc ${w.body.metadata?.name}`
        : w.kind === 'applyReplicaSet'
          ? `rs ${hashOf(w.body)}=${w.body.spec?.replicas}`
          : '',
    );

describe('a basic canary at full weight: the stable Service', () => {
  for (const [name, budget] of [
    ['maxSurge 1, maxUnavailable 0', {}],
    ['maxSurge 0, maxUnavailable 1', { maxSurge: 0, maxUnavailable: 1 }],
  ] as const) {
    it(`${name}: always selects a ReplicaSet with pods, and moves before the stable is emptied`, () => {
      const s = pausedCanary(budget);
      const oldHash = s.rollout.status?.stableRS;
      const newHash = s.rollout.status?.currentPodHash;
      s.promote();
      let switched = false;
      for (let i = 0; i < 20; i++) {
        s.settle();
        const writes = s.pass().writes;
        assertStableServes(s, `pass ${i}`);
        const k = kinds(writes);
        const drain = k.indexOf(`rs ${oldHash}=0`);
        if (drain >= 0) {
          assert.ok(
            k.indexOf('svc web-stable') >= 0 && k.indexOf('svc web-stable') < drain,
            `the Service moves before the drain: ${k.join(', ')}`,
          );
          switched = true;
        }
        if (writes.length === 0) break;
      }
      assert.ok(switched);
      assert.equal(s.rollout.status?.stableRS, newHash, 'completed');
      assert.equal(hashOf(selected(s, 'web-stable')), newHash);
      assert.deepEqual(s.pass().writes, [], 'then nothing to write');
    });
  }

  it('an abort once the stable is empty: the Service stays on the new version until the stable has pods again', () => {
    const s = pausedCanary();
    const oldHash = s.rollout.status?.stableRS;
    const newHash = s.rollout.status?.currentPodHash;
    s.promote();
    for (let i = 0; i < 20 && s.replicaCounts()[`web-${oldHash}`] !== 0; i++) {
      s.settle();
      s.pass();
    }
    assert.equal(hashOf(selected(s, 'web-stable')), newHash, 'moved with the drain');
    s.abort();
    s.pass();
    // The stable scales back up; its pods are not available yet.
    const old = s.replicaSets.get(`web-${oldHash}`);
    assert.ok((old?.spec?.replicas ?? 0) > 0, 'the stable scales back up');
    assert.equal(hashOf(selected(s, 'web-stable')), newHash, 'not to a ReplicaSet with no pods');
    s.settle();
    s.pass();
    assert.equal(hashOf(selected(s, 'web-stable')), oldHash, 'back once the stable has pods');
    s.run();
    assertStableServes(s, 'aborted');
    assert.equal(hashOf(selected(s, 'web-stable')), oldHash);
    assert.equal(s.rollout.status?.phase, 'Degraded');
  });

  it('a new version whose pods never become Ready: the stable Service never leaves the stable, even as it drains within maxUnavailable', () => {
    const s = pausedCanary({ maxSurge: 0, maxUnavailable: 1 });
    const oldHash = s.rollout.status?.stableRS;
    s.unreadyImages.add('web:3');
    s.setImage('web:3');
    s.run();
    s.promote();
    for (let i = 0; i < 10; i++) {
      s.settle();
      s.pass();
      assert.equal(hashOf(selected(s, 'web-stable')), oldHash, `pass ${i}`);
      assertStableServes(s, `pass ${i}`);
    }
  });
});
