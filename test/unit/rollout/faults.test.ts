// The planner on a bad release: pods that never become Ready, a template the API server refuses,
// a scale-down mid-canary, an abort. Argo Rollouts' numbers and phases, pass by pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';
import type { RolloutSpec } from '../../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { Write } from '../../../src/rollout/types.ts';

const BROKEN = 'web:broken';

function sim(spec: Partial<RolloutSpec>): Sim {
  const s = new Sim(rolloutFixture(spec));
  s.unreadyImages.add(BROKEN);
  s.run();
  return s;
}

/** [canary, stable] spec replicas. */
function split(s: Sim): [number, number] {
  const status = s.rollout.status ?? {};
  const byHash = (h: string | undefined): number =>
    [...s.replicaSets.values()].find((rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === h)
      ?.spec?.replicas ?? 0;
  return [
    byHash(status.currentPodHash),
    status.stableRS === status.currentPodHash ? 0 : byHash(status.stableRS),
  ];
}

function condition(s: Sim, type: string) {
  return s.rollout.status?.conditions?.find((c) => c.type === type);
}

const plainRollingUpdate = {
  progressDeadlineSeconds: 10,
  strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
};

describe('a canary whose pods never become Ready (no steps)', () => {
  it('writes nothing once it has seen the stuck pods, then times out at the deadline', () => {
    const s = sim(plainRollingUpdate);
    s.setImage(BROKEN);
    s.run();
    assert.deepEqual(split(s), [1, 4], 'one surge pod for the canary, the stable keeps 4');
    assert.equal(s.rollout.status?.phase, 'Progressing');
    s.advance(1_000);
    const idle = s.pass();
    assert.deepEqual(idle.writes, [], 'a later pass that sees nothing new writes nothing');
    assert.equal(idle.requeueAfterMs, 9_000, 'woken at the deadline');

    s.advance(9_000);
    s.run();
    const status = s.rollout.status ?? {};
    assert.equal(status.phase, 'Degraded');
    assert.match(
      status.message ?? '',
      /^ProgressDeadlineExceeded: ReplicaSet ".*" has timed out progressing\.$/,
    );
    assert.equal(condition(s, 'Progressing')?.status, 'False');
    assert.deepEqual(split(s), [1, 4]);
    assert.ok(s.events().some((e) => e.startsWith('ProgressDeadlineExceeded')));
    s.advance(3_600_000);
    assert.deepEqual(s.pass(), { writes: [] }, 'Degraded is a fixed point with no timer');
  });

  it('with progressDeadlineAbort: aborts, stable back to 4, canary to 0', () => {
    const s = sim({ ...plainRollingUpdate, progressDeadlineAbort: true });
    s.setImage(BROKEN);
    s.run();
    s.advance(10_000);
    s.run();
    const status = s.rollout.status ?? {};
    assert.equal(status.abort, true);
    assert.ok(status.abortedAt !== undefined);
    assert.equal(status.phase, 'Degraded');
    assert.match(
      status.message ?? '',
      /^RolloutAborted: Rollout aborted update to revision 2: ReplicaSet ".*" has timed out progressing\.$/,
    );
    assert.deepEqual(split(s), [0, 4]);
    const events = s.events();
    assert.equal(events.filter((e) => e.startsWith('RolloutAborted')).length, 1);
    assert.equal(events.filter((e) => e.startsWith('ProgressDeadlineExceeded')).length, 1);
    assert.deepEqual(s.pass().writes, []);
  });

  it('a first version that never becomes Ready is Degraded at the deadline', () => {
    const s = new Sim(rolloutFixture(plainRollingUpdate, BROKEN));
    s.unreadyImages.add(BROKEN);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Progressing');
    s.advance(10_000);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(condition(s, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
  });

  it('gives back unready canary pods when replicas go down again (4 → 6 → 4, maxSurge 2)', () => {
    const s = sim({ strategy: { canary: { maxSurge: 2, maxUnavailable: 0 } } });
    s.setImage(BROKEN);
    s.run();
    assert.deepEqual(split(s), [2, 4]);
    s.setReplicas(6);
    s.run();
    assert.deepEqual(split(s), [4, 4], '6 + 2 surge');
    s.setReplicas(4);
    s.run();
    assert.deepEqual(split(s), [2, 4], 'at most 4 + 2 pods, the stable keeps its 4 available');
  });
});

describe('abort', () => {
  it('grows the stable before it shrinks the canary, in the same pass', () => {
    const s = sim({ strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }] } } });
    s.setImage('web:2');
    s.run();
    assert.deepEqual(split(s), [1, 3]);
    s.abort();
    const scales = s
      .pass()
      .writes.filter(
        (w): w is Extract<Write, { kind: 'applyReplicaSet' }> => w.kind === 'applyReplicaSet',
      )
      .map((w) => w.body.spec?.replicas);
    assert.deepEqual(scales, [4, 0], 'stable to 4 first, then canary to 0');
    s.run();
    assert.deepEqual(split(s), [0, 4]);
    assert.equal(s.rollout.status?.phase, 'Degraded');
  });
});

describe('conditions as Argo names them', () => {
  it('Healthy and Completed keep their reason while false; RolloutNotCompleted is an event', () => {
    const s = sim({});
    assert.deepEqual(
      ['Healthy', 'Completed'].map((t) => [
        condition(s, t)?.status,
        condition(s, t)?.reason,
        condition(s, t)?.message,
      ]),
      [
        ['True', 'RolloutHealthy', 'Rollout is healthy'],
        ['True', 'RolloutCompleted', 'RolloutCompleted'],
      ],
    );
    s.setImage('web:2');
    s.run();
    assert.deepEqual(
      ['Healthy', 'Completed'].map((t) => [
        condition(s, t)?.status,
        condition(s, t)?.reason,
        condition(s, t)?.message,
      ]),
      [
        ['False', 'RolloutHealthy', 'Rollout is not healthy'],
        ['False', 'RolloutCompleted', 'RolloutCompleted'],
      ],
    );
    assert.ok(
      s
        .events()
        .some((e) =>
          /^RolloutNotCompleted: Rollout not completed, started update to revision 2/.test(e),
        ),
    );
  });
});

describe('a ReplicaSet the API server refuses', () => {
  const refusal = {
    replicaSet: 'web-x',
    create: true,
    message: 'spec.template.spec.containers: Required value',
  };

  it('is reported (ReplicaFailure, Degraded, a Warning event) and nothing else is written', () => {
    const s = sim({});
    s.setImage('web:2');
    s.refusal = refusal;
    const p = s.pass();
    assert.equal(p.writes[0]?.kind, 'applyStatus');
    assert.ok(p.writes.every((w) => w.kind === 'applyStatus' || w.kind === 'event'));
    const status = s.rollout.status ?? {};
    assert.equal(status.phase, 'Degraded');
    assert.match(
      status.message ?? '',
      /^ReplicaSetCreateError: Failed to create new replica set "web-x": spec\.template/,
    );
    assert.equal(condition(s, 'ReplicaFailure')?.reason, 'ReplicaSetCreateError');
    assert.ok(
      s
        .events()
        .some((e) => e.startsWith('ReplicaSetCreateError: ') && e.includes('Required value')),
    );
    assert.deepEqual(s.pass().writes, [], 'refused again: no new write, no new event');
  });

  it('clears once the write goes through', () => {
    const s = sim({});
    s.setImage('web:2');
    s.refusal = refusal;
    s.pass();
    s.refusal = undefined;
    s.run();
    assert.equal(condition(s, 'ReplicaFailure'), undefined);
    assert.equal(s.rollout.status?.phase, 'Paused');
  });
});
