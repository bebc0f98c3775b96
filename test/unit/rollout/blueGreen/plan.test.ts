// The blue-green planner, walked pass by pass in the in-memory cluster: Argo's sequence and
// numbers (tuples are desired, current, updated, ready, available with ready/available from the
// active ReplicaSet), its fast tracks, aborts and analyses, and where we do better than Argo
// (the preview switches only to pods that are up; a newer revision gets its own pre-promotion
// run; nothing scaled down under the active Service).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../../fixtures/rollout/sim.ts';
import type {
  AnalysisTemplate,
  BlueGreenStrategy,
  RolloutSpec,
} from '../../../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION } from '../../../../src/api/index.ts';

const template: AnalysisTemplate = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'smoke', namespace: 'ns' },
  spec: {
    metrics: [
      {
        name: 'smoke',
        successCondition: 'result[0] >= 0.95',
        provider: { prometheus: { address: 'http://127.0.0.1:9090', query: 'up' } },
      },
    ],
  },
};
const analysis = { templates: [{ templateName: 'smoke' }] };

function bgSim(bg: Partial<BlueGreenStrategy> = {}, spec: Partial<RolloutSpec> = {}): Sim {
  const s = new Sim(
    rolloutFixture({
      replicas: 2,
      ...spec,
      strategy: { blueGreen: { activeService: 'active', previewService: 'preview', ...bg } },
    }),
  );
  s.services.set('active', serviceFixture('active'));
  s.services.set('preview', serviceFixture('preview'));
  s.analysisTemplates.set('smoke', template);
  s.run();
  return s;
}

const selected = (s: Sim, name: string): string | undefined =>
  s.services.get(name)?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];
const hashOfRevision = (s: Sim, revision: number): string | undefined =>
  [...s.replicaSets.values()].find(
    (rs) => rs.metadata?.annotations?.[REVISION_ANNOTATION] === String(revision),
  )?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
const countsOf = (s: Sim): number[] => {
  const st = s.rollout.status ?? {};
  return [
    s.rollout.spec.replicas ?? 1,
    st.replicas ?? 0,
    st.updatedReplicas ?? 0,
    st.readyReplicas ?? 0,
    st.availableReplicas ?? 0,
  ];
};
const runsOf = (s: Sim): string[] => [...s.analysisRuns.keys()].sort();
const podCountOfRevision = (s: Sim, revision: number): number =>
  [...s.replicaSets.values()].find(
    (rs) => rs.metadata?.annotations?.[REVISION_ANNOTATION] === String(revision),
  )?.spec?.replicas ?? -1;

describe('blue-green planner', () => {
  it('first deploy: stable at once, both Services on it once every pod is available, no pause', () => {
    const s = bgSim({ autoPromotionEnabled: false, prePromotionAnalysis: analysis });
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Healthy');
    assert.equal(st.stableRS, st.currentPodHash);
    assert.equal(selected(s, 'active'), st.currentPodHash);
    assert.equal(selected(s, 'preview'), st.currentPodHash);
    assert.deepEqual(st.blueGreen?.activeSelector, st.currentPodHash);
    assert.deepEqual(runsOf(s), []);
    assert.deepEqual(countsOf(s), [2, 2, 2, 2, 2]);
  });

  it('Argo TestBlueGreenUpdate: (3,6,3,3,3) Healthy with the old version kept for its delay', () => {
    const s = bgSim({ scaleDownDelaySeconds: 10 }, { replicas: 3 });
    const rev1 = hashOfRevision(s, 1);
    s.setImage('web:2');
    s.run();
    const rev2 = hashOfRevision(s, 2);
    assert.equal(selected(s, 'active'), rev2);
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.deepEqual(countsOf(s), [3, 6, 3, 3, 3]);
    assert.ok(
      s
        .events()
        .includes(
          `SwitchService: Switched selector for service 'active' from '${rev1}' to '${rev2}'`,
        ),
    );
    s.advance(10_001);
    s.run();
    assert.equal(podCountOfRevision(s, 1), 0);
    assert.deepEqual(countsOf(s), [3, 3, 3, 3, 3]);
  });

  it('a cut-over that moves both Services to the new version writes the active one first', () => {
    const s = bgSim();
    s.setImage('web:2');
    const serviceWrites: string[][] = [];
    for (let i = 0; i < 20; i++) {
      s.settle();
      const writes = s
        .pass()
        .writes.flatMap((w) => (w.kind === 'applyService' ? [w.body.metadata?.name ?? ''] : []));
      if (writes.length > 0) serviceWrites.push(writes);
    }
    const rev2 = hashOfRevision(s, 2);
    assert.equal(selected(s, 'active'), rev2);
    assert.equal(selected(s, 'preview'), rev2);
    // Users wait for one write, not for the preview's before theirs.
    assert.deepEqual(serviceWrites, [['active', 'preview']]);
  });

  it('Argo TestBlueGreenPreviewReplicaCount: Paused (2,3,1,2,2), promote → Healthy (2,4,2,2,2)', () => {
    const s = bgSim({
      previewReplicaCount: 1,
      autoPromotionEnabled: false,
      scaleDownDelaySeconds: 5,
    });
    s.setImage('web:2');
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Paused');
    assert.equal(st.pauseConditions?.[0]?.reason, 'BlueGreenPause');
    assert.equal(st.controllerPause, true);
    assert.deepEqual(countsOf(s), [2, 3, 1, 2, 2]);
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 2));
    s.promote();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.deepEqual(countsOf(s), [2, 4, 2, 2, 2]);
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
  });

  it('a paused blue-green does not go Degraded at its progress deadline; promote --full ends the same', () => {
    const s = bgSim(
      { previewReplicaCount: 1, autoPromotionEnabled: false },
      { progressDeadlineSeconds: 1 },
    );
    s.setImage('web:2');
    s.run();
    s.advance(5_000);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    s.patchStatus({ promoteFull: true, pauseConditions: null });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.deepEqual(countsOf(s), [2, 4, 2, 2, 2]);
  });

  it('Argo TestBlueGreenScaleDownDelay: the revision limit keeps the newest delayed versions', () => {
    const s = bgSim(
      { scaleDownDelaySeconds: 86400, scaleDownDelayRevisionLimit: 2 },
      { replicas: 1 },
    );
    for (const image of ['web:2', 'web:3', 'web:4']) {
      s.setImage(image);
      s.run();
    }
    assert.deepEqual(
      [4, 3, 2, 1].map((r) => podCountOfRevision(s, r)),
      [1, 1, 1, 0],
    );
    assert.deepEqual(countsOf(s), [1, 3, 1, 1, 1]);
    const bg = s.rollout.spec.strategy.blueGreen;
    if (bg) bg.scaleDownDelayRevisionLimit = 1;
    s.run();
    assert.equal(podCountOfRevision(s, 2), 0);
    assert.deepEqual(countsOf(s), [1, 2, 1, 1, 1]);
  });

  it('abort while paused: active never leaves the stable, the preview is scaled to 0 after abortScaleDownDelaySeconds', () => {
    const s = bgSim({
      previewReplicaCount: 1,
      autoPromotionEnabled: false,
      abortScaleDownDelaySeconds: 1,
    });
    const rev1 = hashOfRevision(s, 1);
    s.setImage('web:2');
    s.run();
    s.abort();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(podCountOfRevision(s, 2), 1);
    s.advance(1_001);
    s.run();
    assert.equal(podCountOfRevision(s, 2), 0);
    const switches = s.log.filter(
      (w) => w.kind === 'applyService' && w.body.metadata?.name === 'active',
    );
    assert.ok(
      switches.every(
        (w) =>
          w.kind === 'applyService' && w.body.spec?.selector?.[POD_TEMPLATE_HASH_LABEL] === rev1,
      ),
    );
    // The preview stays on the aborted version (people look at it), as Argo does.
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 2));
  });

  it('abortScaleDownDelaySeconds 0 keeps the aborted version up until retried; retry re-runs the update', () => {
    const s = bgSim({ autoPromotionEnabled: false, abortScaleDownDelaySeconds: 0 });
    s.setImage('web:2');
    s.run();
    s.abort();
    s.run();
    s.advance(3_600_000);
    s.run();
    assert.equal(podCountOfRevision(s, 2), 2);
    s.retry();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    s.promote();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
  });

  it('pre-promotion analysis failing aborts: active stays, preview on the new version; retry runs it again', () => {
    const s = bgSim({
      previewReplicaCount: 1,
      prePromotionAnalysis: analysis,
      abortScaleDownDelaySeconds: 0,
    });
    s.setImage('web:2');
    s.run();
    assert.equal(runsOf(s).length, 1);
    const run = runsOf(s)[0] ?? '';
    assert.match(run, /-pre$/);
    assert.equal(s.rollout.status?.blueGreen?.prePromotionAnalysisRunStatus?.name, run);
    s.setRunPhase(run, 'Failed', 'error rate too high', '0.5');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 2));
    s.retry();
    s.run();
    assert.equal(runsOf(s).length, 2);
    const second = runsOf(s).find((n) => n !== run) ?? '';
    s.setRunPhase(second, 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
  });

  it('post-promotion analysis failing puts the active Service back on the stable, which kept all its pods', () => {
    const s = bgSim({ postPromotionAnalysis: analysis, autoPromotionEnabled: false });
    s.setImage('web:2');
    s.run();
    s.promote();
    s.run();
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
    assert.equal(s.rollout.status?.stableRS, hashOfRevision(s, 1));
    assert.equal(s.rollout.status?.message, 'waiting for analysis to complete');
    assert.equal(podCountOfRevision(s, 1), 2);
    const run = runsOf(s).find((n) => n.endsWith('-post')) ?? '';
    s.setRunPhase(run, 'Failed');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    assert.equal(s.rollout.status?.stableRS, hashOfRevision(s, 1));
  });

  it('pre and post passing: 1 run while paused, 2 after; the previous template again is a fast rollback', () => {
    const s = bgSim({
      prePromotionAnalysis: analysis,
      postPromotionAnalysis: analysis,
      autoPromotionEnabled: false,
    });
    s.setImage('web:2');
    s.run();
    const pre = runsOf(s)[0] ?? '';
    s.setRunPhase(pre, 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.equal(runsOf(s).length, 1);
    s.promote();
    s.run();
    assert.equal(runsOf(s).length, 2);
    s.setRunPhase(runsOf(s).find((n) => n.endsWith('-post')) ?? '', 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    s.setImage('web:1');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(runsOf(s).length, 2);
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
  });

  it('autoPromotionSeconds: paused until the timer ends, then promoted without a person', () => {
    const s = bgSim({ autoPromotionSeconds: 10 });
    s.setImage('web:2');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    s.advance(5_000);
    const early = s.pass();
    assert.equal(early.writes.length, 0);
    assert.equal(early.requeueAfterMs, 5_000);
    s.advance(5_000);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
  });

  it('promote --full skips the pause and both analyses, terminating a running pre-promotion run', () => {
    const s = bgSim({
      prePromotionAnalysis: analysis,
      postPromotionAnalysis: analysis,
      autoPromotionEnabled: false,
    });
    s.setImage('web:2');
    s.run();
    assert.equal(runsOf(s).length, 1);
    s.patchStatus({ promoteFull: true, pauseConditions: null });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(runsOf(s).length, 1);
    assert.equal(s.analysisRuns.get(runsOf(s)[0] ?? '')?.spec.terminate, true);
  });

  it('argo-rollouts#4728: a newer revision after a passed pre-promotion run gets its own run', () => {
    const s = bgSim({
      prePromotionAnalysis: analysis,
      autoPromotionEnabled: false,
      previewReplicaCount: 1,
    });
    s.setImage('web:2');
    s.run();
    s.setRunPhase(runsOf(s)[0] ?? '', 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    s.setImage('web:3');
    s.run();
    assert.equal(runsOf(s).length, 2);
    assert.notEqual(s.rollout.status?.phase, 'Paused');
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
  });

  it('argo-rollouts#2641: the preview Service switches only once the new pods are available', () => {
    const s = bgSim({ autoPromotionEnabled: false });
    s.unreadyImages.add('web:2');
    s.setImage('web:2');
    s.run();
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 1));
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    s.unreadyImages.delete('web:2');
    s.run();
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 2));
  });

  it('pods that never become Ready never take the active Service; the deadline makes it Degraded and, with progressDeadlineAbort, aborts', () => {
    const s = bgSim(
      { abortScaleDownDelaySeconds: 2 },
      { progressDeadlineSeconds: 5, progressDeadlineAbort: true, replicas: 1 },
    );
    s.unreadyImages.add('web:2');
    s.setImage('web:2');
    s.run();
    assert.equal(s.run(), 0, 'writes nothing while it waits');
    s.advance(5_001);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(s.rollout.status?.abort, true);
    s.advance(2_001);
    s.run();
    assert.equal(podCountOfRevision(s, 2), 0);
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
  });

  it('status counts come from the active ReplicaSet (an HPA scales the version that serves)', () => {
    const s = bgSim({ autoPromotionEnabled: false });
    s.setImage('web:2');
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.HPAReplicas, 2);
    assert.match(
      st.selector ?? '',
      new RegExp(`rollouts-pod-template-hash=${hashOfRevision(s, 1)}`),
    );
  });

  it('antiAffinity: the new ReplicaSet avoids the stable pods’ nodes; the hash ignores the term', () => {
    const s = bgSim({
      antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} },
      autoPromotionEnabled: false,
    });
    const rev1 = hashOfRevision(s, 1);
    s.setImage('web:2');
    s.run();
    const rs2 = [...s.replicaSets.values()].find(
      (rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === hashOfRevision(s, 2),
    );
    const terms =
      rs2?.spec?.template?.spec?.affinity?.podAntiAffinity
        ?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    assert.deepEqual(terms, [
      {
        labelSelector: {
          matchExpressions: [{ key: POD_TEMPLATE_HASH_LABEL, operator: 'In', values: [rev1] }],
        },
        namespaces: ['ns'],
        topologyKey: 'kubernetes.io/hostname',
      },
    ]);
    assert.equal(s.rollout.spec.template?.spec?.affinity, undefined);
  });

  it('activeMetadata/previewMetadata: live pods carry the preview labels while paused and the active ones after', () => {
    const s = bgSim({
      autoPromotionEnabled: false,
      activeMetadata: { labels: { role: 'active' } },
      previewMetadata: { labels: { role: 'preview' } },
    });
    const roles = (rev: number): string[] =>
      [...s.pods.values()]
        .filter((p) => p.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === hashOfRevision(s, rev))
        .map((p) => p.metadata?.labels?.role ?? '');
    assert.deepEqual(roles(1), ['active', 'active']);
    s.setImage('web:2');
    s.run();
    assert.deepEqual(roles(2), ['preview', 'preview']);
    assert.deepEqual(roles(1), ['active', 'active']);
    const before = [...s.pods.keys()].sort();
    s.promote();
    s.run();
    assert.deepEqual(roles(2), ['active', 'active']);
    assert.ok(
      before.every((name) => s.pods.has(name)),
      'no pod restarted',
    );
  });

  it('refuses activeService = previewService and a revision limit above the history kept', () => {
    const s = bgSim({ previewService: 'active', scaleDownDelayRevisionLimit: 20 });
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Degraded');
    assert.match(st.message ?? '', /activeService and previewService must differ/);
    assert.match(st.message ?? '', /scaleDownDelayRevisionLimit/);
  });

  it('a GitOps re-apply of the Services mid-update is put back, never to the wrong version, and a post-promotion run keeps running', () => {
    const s = bgSim({ postPromotionAnalysis: analysis, autoPromotionEnabled: false });
    s.setImage('web:2');
    s.run();
    const git = (): void => {
      for (const name of ['active', 'preview']) {
        const svc = s.services.get(name);
        if (svc?.spec) svc.spec.selector = { app: 'web' };
      }
    };
    git();
    s.pass();
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    assert.equal(selected(s, 'preview'), hashOfRevision(s, 2));
    s.promote();
    s.run();
    const run = runsOf(s).find((n) => n.endsWith('-post')) ?? '';
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
    git();
    s.pass();
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
    assert.notEqual(s.analysisRuns.get(run)?.spec.terminate, true);
    s.setRunPhase(run, 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });

  it('pods that fail after starting during post-promotion analysis send the active Service back to the stable at once', () => {
    const s = bgSim({ postPromotionAnalysis: analysis, autoPromotionEnabled: false });
    s.setImage('web:2');
    s.run();
    s.promote();
    s.run();
    assert.equal(selected(s, 'active'), hashOfRevision(s, 2));
    // The new pods crash: the ReplicaSet controller reports them unavailable.
    s.unreadyImages.add('web:2');
    s.settle();
    s.pass();
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
    s.run();
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Degraded');
    assert.match(st.message ?? '', /lost availability while serving/);
    assert.equal(st.stableRS, hashOfRevision(s, 1));
  });

  it('a status write that did not land (a stale cache, a held-back write) starts no second run', () => {
    const s = bgSim({ prePromotionAnalysis: analysis, abortScaleDownDelaySeconds: 0 });
    s.setImage('web:2');
    s.run();
    s.setRunPhase(runsOf(s)[0] ?? '', 'Failed');
    s.run();
    s.retry();
    const before = structuredClone(s.rollout.status);
    s.pass();
    assert.equal(runsOf(s).length, 2);
    // The retry pass's status never reached the cache: the next pass plans from the old one.
    s.rollout.status = before;
    s.pass();
    s.rollout.status = before;
    s.pass();
    assert.equal(runsOf(s).length, 2, runsOf(s).join(', '));
  });

  it('progressDeadlineAbort set after the deadline passed aborts the timed-out update (Argo TestBlueGreenExceedProgressDeadlineAbort)', () => {
    const s = bgSim({ abortScaleDownDelaySeconds: 2 }, { progressDeadlineSeconds: 5, replicas: 1 });
    s.unreadyImages.add('web:2');
    s.setImage('web:2');
    s.run();
    s.advance(5_001);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.equal(s.rollout.status?.abort, false);
    s.rollout.spec.progressDeadlineAbort = true;
    s.rollout.metadata.generation = (s.rollout.metadata.generation ?? 0) + 1;
    s.run();
    assert.equal(s.rollout.status?.abort, true);
    s.advance(2_001);
    s.run();
    assert.equal(podCountOfRevision(s, 2), 0);
    assert.equal(selected(s, 'active'), hashOfRevision(s, 1));
  });

  it('a key removed from activeMetadata leaves the live pods (Argo TestEphemeralMetadata, last step)', () => {
    const s = bgSim({ activeMetadata: { labels: { role: 'active' } } });
    s.rollout.spec.strategy.blueGreen = {
      activeService: 'active',
      previewService: 'preview',
      activeMetadata: { labels: { role2: 'active2' } },
    };
    s.run();
    const labels = [...s.pods.values()].map((p) => [
      p.metadata?.labels?.role,
      p.metadata?.labels?.role2,
    ]);
    assert.deepEqual(labels, [
      [undefined, 'active2'],
      [undefined, 'active2'],
    ]);
    const rs = [...s.replicaSets.values()][0];
    assert.equal(rs?.spec?.template?.metadata?.labels?.role, undefined);
    assert.equal(s.run(), 0);
  });

  it('a retry after the aborted preview was scaled down starts its pre-promotion run only once the preview is up again', () => {
    const s = bgSim({ prePromotionAnalysis: analysis, abortScaleDownDelaySeconds: 1 });
    s.setImage('web:2');
    s.run();
    s.setRunPhase(runsOf(s)[0] ?? '', 'Failed');
    s.run();
    s.advance(1_001);
    s.run();
    assert.equal(podCountOfRevision(s, 2), 0);
    s.retry();
    s.pass();
    assert.equal(runsOf(s).length, 1, 'no run against a preview with no pods');
    s.run();
    assert.equal(runsOf(s).length, 2);
  });
});
