// Taking over what Argo Rollouts left running (src/rollout/adoption/): its ReplicaSets are
// adopted with their own hashes and pods, status continues where Argo stood, revisions go on
// from Argo's; and when taking over is not safe, nothing is adopted, created or deleted and the
// `Adopted` condition says why. Argo's shapes are hand-built in argo-shapes.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConditionType,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  SCALE_DOWN_DEADLINE_ANNOTATION,
} from '../../../../src/api/index.ts';
import type { ReplicaSet, RolloutStatus } from '../../../../src/api/index.ts';
import { Sim, T0 } from '../../../fixtures/rollout/sim.ts';
import {
  ARGO_CANARY,
  ARGO_STABLE,
  argoPausedStatus,
  argoReplicaSet,
  argoService,
  convertedRollout,
  type Holder,
} from './argo-shapes.ts';

const PAUSED_AT = new Date(T0 - 60_000).toISOString();

/** Argo's canary at its first pause: rev 2 stable with 3 pods, rev 3 canary with 1. */
function midCanary(opts: { status?: RolloutStatus; holder?: Holder } = {}): Sim {
  const s = new Sim(convertedRollout('web:2', opts.status));
  const holder = opts.holder ?? 'orphan';
  const sets = [
    argoReplicaSet({ hash: 'a1b2c3d4e', image: 'web:0', revision: 1, replicas: 0, holder }),
    argoReplicaSet({ hash: ARGO_STABLE, image: 'web:1', revision: 2, replicas: 3, holder }),
    argoReplicaSet({ hash: ARGO_CANARY, image: 'web:2', revision: 3, replicas: 1, holder }),
  ];
  for (const rs of sets) s.unclaimed.set(rs.metadata?.name ?? '', rs);
  addPods(s, sets);
  s.services.set('web-stable', argoService('web-stable', ARGO_STABLE));
  s.services.set('web-canary', argoService('web-canary', ARGO_CANARY));
  return s;
}

function addPods(s: Sim, sets: readonly ReplicaSet[]): void {
  for (const rs of sets) {
    const hash = rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '';
    for (let i = 0; i < (rs.spec?.replicas ?? 0); i++) {
      const name = `${rs.metadata?.name}-argo${i}`;
      s.pods.set(name, {
        metadata: {
          name,
          namespace: 'ns',
          labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash },
        },
        status: { phase: 'Running' },
      });
    }
  }
}

const podNames = (s: Sim): string[] => [...s.pods.keys()].sort();
const adopted = (s: Sim) =>
  s.rollout.status?.conditions?.find((c) => c.type === ConditionType.Adopted);

describe('adopting Argo’s ReplicaSets', () => {
  it('mid-canary with Argo’s status handed over: Paused at step 1, 1 + 3 pods, not one pod touched', () => {
    const s = midCanary({ status: argoPausedStatus(PAUSED_AT) });
    const before = podNames(s);
    const first = s.pass();
    assert.deepEqual(
      first.writes.map((w) => w.kind),
      ['applyStatus', 'adoptReplicaSet', 'adoptReplicaSet', 'adoptReplicaSet', 'event'],
    );
    assert.equal(s.unclaimed.size, 0);
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Paused');
    assert.equal(st.currentStepIndex, 1);
    assert.equal(st.stableRS, ARGO_STABLE);
    assert.equal(st.currentPodHash, ARGO_CANARY);
    assert.deepEqual(st.pauseConditions, [{ reason: 'CanaryPauseStep', startTime: PAUSED_AT }]);
    assert.notEqual(st.currentStepHash, '5f7b8d6c9', 'our steps hash, not Argo’s');
    assert.equal(st.collisionCount, undefined);
    assert.deepEqual(s.replicaCounts(), {
      [`web-${ARGO_STABLE}`]: 3,
      [`web-${ARGO_CANARY}`]: 1,
      'web-a1b2c3d4e': 0,
    });
    assert.deepEqual(podNames(s), before);
    assert.equal(adopted(s)?.status, 'True');
    assert.match(adopted(s)?.message ?? '', /web-7b9c6d4f8 \(revision 3\)/);
    for (const rs of s.replicaSets.values()) {
      assert.equal(rs.metadata?.ownerReferences?.[0]?.kind, 'Rollout');
      assert.equal(rs.metadata?.ownerReferences?.[0]?.apiVersion, 'stepwise.dev/v1alpha1');
      assert.equal(rs.metadata?.ownerReferences?.[0]?.uid, 'uid-1');
    }
    // The Services keep Argo's hashes.
    assert.equal(
      s.services.get('web-stable')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      ARGO_STABLE,
    );
    assert.equal(
      s.services.get('web-canary')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      ARGO_CANARY,
    );
  });

  it('a promote then continues with Argo’s replica math: 50 % is 2 + 2', () => {
    const s = midCanary({ status: argoPausedStatus(PAUSED_AT) });
    s.run();
    s.promote();
    s.run();
    assert.equal(s.rollout.status?.currentStepIndex, 3);
    assert.deepEqual(s.replicaCounts(), {
      [`web-${ARGO_STABLE}`]: 2,
      [`web-${ARGO_CANARY}`]: 2,
      'web-a1b2c3d4e': 0,
    });
  });

  it('revisions continue from Argo’s: the next template is revision 4, with our hash', () => {
    const s = midCanary({ status: argoPausedStatus(PAUSED_AT) });
    s.run();
    assert.equal(
      s.replicaSets.get(`web-${ARGO_CANARY}`)?.metadata?.annotations?.[REVISION_ANNOTATION],
      '3',
    );
    s.setImage('web:3');
    s.run();
    const added = [...s.replicaSets.values()].filter(
      (rs) =>
        ![ARGO_STABLE, ARGO_CANARY, 'a1b2c3d4e'].includes(
          rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '',
        ),
    );
    assert.equal(added.length, 1);
    assert.equal(added[0]?.metadata?.annotations?.[REVISION_ANNOTATION], '4');
    assert.equal(s.rollout.status?.stableRS, ARGO_STABLE);
  });

  it('without a handed-over status: the stable Service’s hash is stable, the canary’s 25 % is step 1', () => {
    const s = midCanary();
    const before = podNames(s);
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.stableRS, ARGO_STABLE);
    assert.equal(st.currentPodHash, ARGO_CANARY);
    assert.equal(st.currentStepIndex, 1);
    assert.equal(st.phase, 'Paused');
    assert.deepEqual(podNames(s), before);
  });

  it('a Healthy Argo Rollout: only ownership and status are written, then it stays quiet', () => {
    const s = new Sim(convertedRollout('web:1'));
    const rs = argoReplicaSet({ hash: ARGO_STABLE, image: 'web:1', revision: 3, replicas: 4 });
    s.unclaimed.set(rs.metadata?.name ?? '', rs);
    addPods(s, [rs]);
    s.services.set('web-stable', argoService('web-stable', ARGO_STABLE));
    s.services.set('web-canary', argoService('web-canary', ARGO_STABLE));
    const before = podNames(s);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(s.rollout.status?.stableRS, ARGO_STABLE);
    assert.deepEqual(podNames(s), before);
    // Ownership, status, and our mark beside Argo's on the Services (their selectors as they were).
    assert.deepEqual(
      s.log.map((w) => (w.kind === 'event' ? w.reason : w.kind)),
      [
        'applyStatus',
        'adoptReplicaSet',
        'ReplicaSetsAdopted',
        'applyService',
        'applyService',
        'applyStatus',
      ],
    );
    assert.deepEqual(s.services.get('web-stable')?.spec?.selector, {
      app: 'web',
      [POD_TEMPLATE_HASH_LABEL]: ARGO_STABLE,
    });
    assert.equal(s.pass().writes.length, 0);
  });

  it('an adoption that fails half-way goes on from the status taken over, not from step 0', () => {
    const s = midCanary({ status: argoPausedStatus(PAUSED_AT) });
    const first = s.pass().writes;
    // The API server took the status and one ReplicaSet, then refused the rest (a stale version).
    const refused = first.filter((w) => w.kind === 'adoptReplicaSet').slice(1);
    for (const w of refused) {
      const name = w.kind === 'adoptReplicaSet' ? (w.body.metadata?.name ?? '') : '';
      const rs = s.replicaSets.get(name);
      s.replicaSets.delete(name);
      if (rs)
        s.unclaimed.set(name, { ...rs, metadata: { ...rs.metadata, ownerReferences: undefined } });
    }
    assert.equal(s.unclaimed.size, 2);
    const again = s.pass().writes;
    assert.equal(again.filter((w) => w.kind === 'adoptReplicaSet').length, 2);
    s.run();
    assert.equal(s.rollout.status?.currentStepIndex, 1);
    assert.deepEqual(s.replicaCounts(), {
      [`web-${ARGO_STABLE}`]: 3,
      [`web-${ARGO_CANARY}`]: 1,
      'web-a1b2c3d4e': 0,
    });
  });

  it('Argo’s scale-down deadline on an old ReplicaSet becomes ours', () => {
    const s = midCanary({ status: argoPausedStatus(PAUSED_AT) });
    const old = argoReplicaSet({
      hash: 'c4d5e6f7a',
      image: 'web:0',
      revision: 1,
      replicas: 0,
      deadline: '2026-12-01T10:05:00Z',
    });
    s.unclaimed.set('web-a1b2c3d4e', {
      ...old,
      metadata: { ...old.metadata, name: 'web-a1b2c3d4e' },
    });
    s.pass();
    assert.equal(
      s.replicaSets.get('web-a1b2c3d4e')?.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION],
      '2026-12-01T10:05:00Z',
    );
  });

  it('a ReplicaSet another (non-Argo) controller holds is left alone', () => {
    const s = new Sim(convertedRollout('web:1'));
    const rs = argoReplicaSet({
      hash: 'd1e2f3a4b',
      image: 'web:1',
      revision: 1,
      replicas: 2,
      holder: 'deployment',
    });
    s.unclaimed.set(rs.metadata?.name ?? '', rs);
    s.run();
    assert.equal(s.unclaimed.size, 1);
    assert.equal(adopted(s), undefined);
  });
});

describe('refusing to adopt: nothing adopted, created or deleted, and the condition says why', () => {
  const refusal = (s: Sim, reason: string, pattern: RegExp): void => {
    const before = podNames(s);
    const plan = s.pass();
    assert.deepEqual(
      plan.writes.map((w) => w.kind),
      ['applyStatus', 'event'],
    );
    const event = plan.writes[1];
    assert.equal(event?.kind === 'event' ? event.type : '', 'Warning');
    assert.equal(event?.kind === 'event' ? event.reason : '', reason);
    assert.equal(adopted(s)?.status, 'False');
    assert.equal(adopted(s)?.reason, reason);
    assert.match(adopted(s)?.message ?? '', pattern);
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(s.replicaSets.size, 0);
    assert.deepEqual(podNames(s), before);
    assert.deepEqual(s.pass().writes, [], 'said once: the next pass writes nothing');
  };

  it('ReplicaSets still controlled by the Argo Rollout (two controllers would claim them)', () => {
    refusal(
      midCanary({ holder: 'argo-rollout' }),
      'ArgoRolloutStillOwns',
      /ReplicaSets web-5d8f7c9b4, web-7b9c6d4f8, web-a1b2c3d4e controlled by argoproj.io Rollout web.*--cascade=orphan/,
    );
  });

  it('a ReplicaSet of an Argo Experiment (a feature Stepwise lacks)', () => {
    const s = midCanary();
    const exp = argoReplicaSet({
      hash: 'e9f8a7b6c',
      image: 'web:2',
      revision: 3,
      replicas: 1,
      holder: 'argo-experiment',
    });
    s.unclaimed.set(exp.metadata?.name ?? '', exp);
    refusal(
      s,
      'ArgoFeatureUnsupported',
      /ReplicaSet web-e9f8a7b6c controlled by argoproj.io Experiment web-7b9c6d4f8-3-0/,
    );
  });

  it('no live ReplicaSet runs the Rollout’s template: the difference is named', () => {
    const s = midCanary();
    s.rollout = convertedRollout('web:9');
    refusal(
      s,
      'NoMatchingReplicaSet',
      /web-7b9c6d4f8: spec\.containers\[0\]\.image: live "web:2", declared "web:9"/,
    );
  });

  it('the handed-over stableRS names no live ReplicaSet', () => {
    const s = midCanary({ status: { ...argoPausedStatus(PAUSED_AT), stableRS: 'gone12345' } });
    refusal(s, 'StableReplicaSetMissing', /status\.stableRS gone12345/);
  });

  it('a refusal whose ReplicaSets are deleted instead is taken off; the strategy then plans', () => {
    const s = midCanary({ holder: 'argo-rollout' });
    s.pass();
    assert.equal(adopted(s)?.status, 'False');
    s.unclaimed.clear();
    assert.deepEqual(
      s.pass().writes.map((w) => w.kind),
      ['applyStatus'],
    );
    assert.equal(adopted(s), undefined);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy', 'a first deploy of its own');
  });

  it('once Argo lets go (the orphaning delete), the same Rollout adopts', () => {
    const s = midCanary({ holder: 'argo-rollout', status: argoPausedStatus(PAUSED_AT) });
    s.pass();
    for (const rs of s.unclaimed.values()) {
      delete rs.metadata?.ownerReferences;
      if (rs.metadata) rs.metadata.resourceVersion = `${Number(rs.metadata.resourceVersion) + 1}`;
    }
    s.run();
    assert.equal(adopted(s)?.status, 'True');
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.equal(s.rollout.status?.currentStepIndex, 1);
  });
});

describe('adopting a blue-green Argo left paused before its switch', () => {
  it('Paused, the active Service still on the old version, the preview on the new, no pod touched', () => {
    const ro = convertedRollout('web:2', {
      stableRS: ARGO_STABLE,
      currentPodHash: ARGO_CANARY,
      controllerPause: true,
      pauseConditions: [{ reason: 'BlueGreenPause', startTime: PAUSED_AT }],
      blueGreen: { activeSelector: ARGO_STABLE, previewSelector: ARGO_CANARY },
    });
    ro.spec.strategy = {
      blueGreen: {
        activeService: 'web-active',
        previewService: 'web-preview',
        autoPromotionEnabled: false,
      },
    };
    const s = new Sim(ro);
    const sets = [
      argoReplicaSet({ hash: ARGO_STABLE, image: 'web:1', revision: 2, replicas: 4 }),
      argoReplicaSet({ hash: ARGO_CANARY, image: 'web:2', revision: 3, replicas: 4 }),
    ];
    for (const rs of sets) s.unclaimed.set(rs.metadata?.name ?? '', rs);
    addPods(s, sets);
    s.services.set('web-active', argoService('web-active', ARGO_STABLE));
    s.services.set('web-preview', argoService('web-preview', ARGO_CANARY));
    const before = podNames(s);
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Paused');
    assert.equal(st.blueGreen?.activeSelector, ARGO_STABLE);
    assert.equal(st.blueGreen?.previewSelector, ARGO_CANARY);
    assert.equal(
      s.services.get('web-active')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      ARGO_STABLE,
    );
    assert.deepEqual(podNames(s), before);
    s.promote();
    s.run();
    assert.equal(
      s.services.get('web-active')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      ARGO_CANARY,
    );
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });
});
