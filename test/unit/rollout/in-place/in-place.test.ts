// Serving argoproj.io in place (src/rollout/in-place/): the first pass over a Rollout whose
// status Argo's controller wrote takes it over once, keeping Argo's step, pauses and hashes and
// putting our steps hash in, so no pod moves; afterwards (and for a Rollout that was never
// Argo's) a change of the steps restarts them as usual. Argo's shapes come from argo-shapes.ts;
// the ReplicaSets are the Rollout's already (the same object Argo served).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConditionType, POD_TEMPLATE_HASH_LABEL } from '../../../../src/api/index.ts';
import type { ReplicaSet, RolloutStatus } from '../../../../src/api/index.ts';
import { stepsHash } from '../../../../src/rollout/canary/steps.ts';
import { Sim, T0 } from '../../../fixtures/rollout/sim.ts';
import {
  ARGO_CANARY,
  ARGO_STABLE,
  argoPausedStatus,
  argoReplicaSet,
  argoService,
  convertedRollout,
} from '../adoption/argo-shapes.ts';

const PAUSED_AT = new Date(T0 - 60_000).toISOString();

/** Argo's canary at its first pause, served in place: rev 2 stable with 3 pods, rev 3 with 1. */
function argoMidCanary(status: RolloutStatus = argoPausedStatus(PAUSED_AT), inPlace = true): Sim {
  const s = new Sim(convertedRollout('web:2', status));
  s.inPlaceArgo = inPlace;
  const sets = [
    argoReplicaSet({ hash: 'a1b2c3d4e', image: 'web:0', revision: 1, replicas: 0 }),
    argoReplicaSet({ hash: ARGO_STABLE, image: 'web:1', revision: 2, replicas: 3 }),
    argoReplicaSet({ hash: ARGO_CANARY, image: 'web:2', revision: 3, replicas: 1 }),
  ];
  for (const rs of sets) s.replicaSets.set(rs.metadata?.name ?? '', rs);
  s.settle();
  s.services.set('web-stable', argoService('web-stable', ARGO_STABLE));
  s.services.set('web-canary', argoService('web-canary', ARGO_CANARY));
  return s;
}

const ourStepsHash = (s: Sim): string => stepsHash(s.rollout.spec.strategy.canary?.steps ?? []);
const replicas = (s: Sim): Record<string, number> =>
  Object.fromEntries(
    [...s.replicaSets.values()].map((rs: ReplicaSet) => [
      rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '',
      rs.spec?.replicas ?? 0,
    ]),
  );
const adopted = (s: Sim) =>
  s.rollout.status?.conditions?.find((c) => c.type === ConditionType.Adopted);

describe('in place: the status Argo wrote', () => {
  it("is taken over in one status write: our steps hash, Argo's step, pause, stable and canary; an event; nothing else written", () => {
    const s = argoMidCanary();
    const pods = [...s.pods.keys()].sort();
    const first = s.pass();
    assert.deepEqual(
      first.writes.map((w) => w.kind),
      ['applyStatus', 'event'],
    );
    const st = s.rollout.status ?? {};
    assert.equal(st.currentStepHash, ourStepsHash(s));
    assert.deepEqual(
      [st.currentStepIndex, st.stableRS, st.currentPodHash, st.controllerPause],
      [1, ARGO_STABLE, ARGO_CANARY, true],
    );
    assert.deepEqual(st.pauseConditions, [{ reason: 'CanaryPauseStep', startTime: PAUSED_AT }]);
    assert.equal(adopted(s)?.reason, 'TakenOverInPlace');
    assert.match(adopted(s)?.message ?? '', /step index 1 of revision 7b9c6d4f8/);
    const event = first.writes.find((w) => w.kind === 'event');
    assert.equal(event?.kind === 'event' && event.reason, 'TakenOverInPlace');

    // From there the canary plans as usual and finds nothing to move: still paused at step 1.
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.equal(s.rollout.status?.currentStepIndex, 1);
    assert.deepEqual(replicas(s), { a1b2c3d4e: 0, [ARGO_STABLE]: 3, [ARGO_CANARY]: 1 });
    assert.deepEqual([...s.pods.keys()].sort(), pods, 'no pod created or deleted');
    assert.ok(!s.log.some((w) => w.kind === 'applyReplicaSet' || w.kind === 'deleteReplicaSet'));
  });

  it('after the takeover a change of the steps restarts them, as for any Rollout', () => {
    const s = argoMidCanary();
    s.run();
    const steps = s.rollout.spec.strategy.canary?.steps ?? [];
    steps.unshift({ setWeight: 10 });
    s.run();
    assert.equal(s.rollout.status?.currentStepHash, ourStepsHash(s));
    assert.equal(s.rollout.status?.currentStepIndex, 2, 'restarted: 10%, 25%, then the pause');
    assert.deepEqual(
      s.rollout.status?.pauseConditions?.map((c) => c.reason),
      ['CanaryPauseStep'],
    );
    assert.notEqual(s.rollout.status?.pauseConditions?.[0]?.startTime, PAUSED_AT, 'a new pause');
  });

  it('without --api-group=argoproj.io a foreign steps hash is a change of the steps: they restart', () => {
    const s = argoMidCanary(argoPausedStatus(PAUSED_AT), false);
    s.pass();
    assert.equal(adopted(s), undefined);
    assert.equal(s.rollout.status?.currentStepHash, ourStepsHash(s));
    assert.notEqual(s.rollout.status?.pauseConditions?.[0]?.startTime, PAUSED_AT);
  });

  it('a Rollout Stepwise served from its start gets the condition and nothing else, once', () => {
    const s = argoMidCanary();
    s.run();
    const served: RolloutStatus = {
      ...(s.rollout.status ?? {}),
      conditions: (s.rollout.status?.conditions ?? []).filter(
        (c) => c.type !== ConditionType.Adopted,
      ),
    };
    const fresh = argoMidCanary(served);
    fresh.services = structuredClone(s.services); // as our marks left them
    const plan = fresh.pass();
    assert.deepEqual(
      plan.writes.map((w) => w.kind),
      ['applyStatus', 'event'],
    );
    assert.deepEqual(
      {
        ...fresh.rollout.status,
        conditions: fresh.rollout.status?.conditions?.filter((c) => c !== adopted(fresh)),
      },
      served,
      'status as it was',
    );
    assert.match(adopted(fresh)?.message ?? '', /served in place/);
    const next = fresh.pass();
    assert.deepEqual(next.writes, [], 'then a pass that observes nothing new writes nothing');
  });

  it('a template changed while no controller ran is a new revision: marked, then steps from 0', () => {
    const s = argoMidCanary();
    s.setImage('web:3');
    s.pass();
    assert.match(adopted(s)?.message ?? '', /served in place/);
    assert.equal(
      s.rollout.status?.currentPodHash,
      ARGO_CANARY,
      'the takeover itself moves nothing',
    );
    s.run();
    assert.notEqual(s.rollout.status?.currentPodHash, ARGO_CANARY);
    assert.equal(s.rollout.status?.stableRS, ARGO_STABLE);
    assert.equal(s.rollout.status?.currentStepIndex, 1, 'the new revision at its first pause');
  });

  it("Argo's stableRS naming no live ReplicaSet: Degraded saying so, nothing scaled, then no write while it holds", () => {
    const s = argoMidCanary();
    s.replicaSets.delete(`web-${ARGO_STABLE}`);
    const first = s.pass();
    assert.deepEqual(
      first.writes.map((w) => (w.kind === 'event' ? `event:${w.reason}` : w.kind)),
      ['applyStatus', 'event:StableReplicaSetMissing'],
    );
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(adopted(s)?.status, 'False');
    assert.match(adopted(s)?.message ?? '', /stableRS 5d8f7c9b4 .* names no live ReplicaSet/);
    assert.deepEqual(s.pass().writes, [], 'a pass that observes nothing new writes nothing');
    assert.equal(replicas(s)[ARGO_CANARY], 1, 'the canary untouched');
  });

  it('a Rollout without a status yet (never reconciled) is left to the strategy', () => {
    const s = argoMidCanary();
    s.rollout.status = undefined;
    s.pass();
    assert.equal(adopted(s), undefined);
  });
});

describe("in place while Argo's own controller runs (its leader Lease held)", () => {
  const LEASE = 'argo-rollouts/argo-rollouts-controller-lock';
  const held = (s: Sim, holder = 'argo-rollouts-7c9d_1a2b'): void => {
    s.argoController = { lease: LEASE, holder, renewSeenAt: s.now, durationMs: 15_000 };
  };

  it("stands aside: the condition names the Lease and its holder, one warning, Argo's status and every ReplicaSet untouched", () => {
    const s = argoMidCanary();
    held(s);
    const before = structuredClone(s.rollout.status);
    const pods = [...s.pods.keys()].sort();
    const first = s.pass();
    assert.deepEqual(
      first.writes.map((w) => (w.kind === 'event' ? `event:${w.type}:${w.reason}` : w.kind)),
      ['applyStatus', 'event:Warning:ArgoRolloutsControllerRunning'],
    );
    assert.equal(adopted(s)?.status, 'False');
    assert.equal(adopted(s)?.reason, 'ArgoRolloutsControllerRunning');
    assert.match(
      adopted(s)?.message ?? '',
      /argo-rollouts\/argo-rollouts-controller-lock .*argo-rollouts-7c9d_1a2b/,
    );
    const { conditions: _c, ...kept } = s.rollout.status ?? {};
    const { conditions: _b, ...was } = before ?? {};
    assert.deepEqual(kept, was, "Argo's step hash, step, pause, phase as Argo wrote them");
    assert.equal(first.requeueAfterMs, 16_000, 'looked at again when the Lease would lapse');
    // Nothing new observed: no write, in any number of passes; no ReplicaSet or pod moves.
    assert.deepEqual(s.pass().writes, []);
    s.advance(5_000);
    held(s); // a renewal seen
    assert.deepEqual(s.pass().writes, []);
    assert.deepEqual(replicas(s), { a1b2c3d4e: 0, [ARGO_STABLE]: 3, [ARGO_CANARY]: 1 });
    assert.deepEqual([...s.pods.keys()].sort(), pods);
  });

  it('a Rollout Stepwise had taken over stands aside too when Argo starts again, and is taken over again after', () => {
    const s = argoMidCanary();
    s.run();
    assert.equal(adopted(s)?.reason, 'TakenOverInPlace');
    held(s);
    s.pass();
    assert.equal(adopted(s)?.reason, 'ArgoRolloutsControllerRunning');
    // Argo, running, restarts the steps under its own hash; then it stops and its Lease lapses.
    s.rollout.status = { ...s.rollout.status, currentStepHash: 'argo-go-hash' };
    s.advance(16_000);
    s.pass();
    assert.equal(adopted(s)?.reason, 'TakenOverInPlace');
    assert.equal(s.rollout.status?.currentStepHash, ourStepsHash(s));
    assert.equal(s.rollout.status?.currentStepIndex, 1, 'from the step Argo left');
  });

  it('a released Lease (no holder) or one not renewed for its duration is no controller: taken over', () => {
    for (const lease of [
      { holder: '', renewSeenAt: T0, durationMs: 15_000 },
      { holder: 'argo-rollouts-7c9d_1a2b', renewSeenAt: T0 - 15_000, durationMs: 15_000 },
    ]) {
      const s = argoMidCanary();
      s.argoController = { lease: LEASE, ...lease };
      s.pass();
      assert.equal(adopted(s)?.reason, 'TakenOverInPlace', JSON.stringify(lease));
    }
  });

  it('a new Rollout (no status) is not planned either: no ReplicaSet created beside Argo', () => {
    const s = argoMidCanary();
    s.rollout.status = undefined;
    s.replicaSets.clear();
    s.pods.clear();
    held(s);
    const first = s.pass();
    assert.ok(first.writes.every((w) => w.kind === 'applyStatus' || w.kind === 'event'));
    assert.equal(adopted(s)?.reason, 'ArgoRolloutsControllerRunning');
    assert.equal(s.replicaSets.size, 0);
  });

  it('without --api-group=argoproj.io an Argo Lease changes nothing', () => {
    const s = argoMidCanary(argoPausedStatus(PAUSED_AT), false);
    held(s);
    s.pass();
    assert.notEqual(adopted(s)?.reason, 'ArgoRolloutsControllerRunning');
  });
});
