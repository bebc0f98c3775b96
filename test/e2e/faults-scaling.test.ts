// Capacity on the fault paths (issue 6), as Argo Rollouts keeps it: the surge budget after a
// scale-down, an abort that scales the stable up before the canary down, and a canary whose
// pods keep failing after they start. Histories come from one watch on the namespace's
// ReplicaSets, which orders every scale change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  failingTemplate,
  neverReadyTemplate,
  waitForCanary,
  waitForSplit,
} from './support/faults.ts';
import type { ScaleState } from './support/history.ts';
import {
  scaleStates,
  total,
  trace,
  watchReplicaSets,
  watchRollout,
  WatchHistory,
} from './support/history.ts';
import {
  createRollout,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForList,
  waitForRollout,
} from './support/rollouts.ts';

/** Long enough to see several fail-and-replace cycles of kwok's chaos stage (1–2 s each). */
const CHURN_WINDOW_MS = 60_000;

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

const seenGeneration = (generation: number | undefined) => (r: Rollout) =>
  r.status?.observedGeneration === String(generation);

const replicasOf = (s: ScaleState, hash: string | undefined) => s.replicas.get(hash ?? '') ?? 0;

describe('the surge budget after a scale-down', () => {
  it('R=4 maxSurge 2: 2/4, scaled to 6 and back to 4 gives back the unready canary pods: 2/4', async (t) => {
    const ns = await testNamespace('surge');
    await createRollout(
      ns,
      rolloutBody('s', { strategy: { canary: { maxSurge: 2, maxUnavailable: 0 } } }),
    );
    await waitForRollout(ns, 's', 'Healthy', phase('Healthy'));
    await patchSpec(ns, 's', neverReadyTemplate('s'));
    const canary = await waitForCanary(ns, 's');
    await waitForSplit(ns, canary, 2, 4);

    const rss = await watchReplicaSets(ns);
    t.after(() => rss.stop());
    const up = await patchSpec(ns, 's', { replicas: 6 });
    await waitForRollout(ns, 's', 'replicas 6 acted on', seenGeneration(up.metadata.generation));
    const down = await patchSpec(ns, 's', { replicas: 4 });
    const fromDown = rss.mark;
    await waitForRollout(ns, 's', 'replicas 4 acted on', seenGeneration(down.metadata.generation));

    const hashes = [canary.status?.stableRS ?? '', canary.status?.currentPodHash ?? ''] as const;
    // Today's code keeps the canary at 4: report the trace rather than only a timeout.
    const settled = await waitForSplit(ns, canary, 2, 4, 30_000).then(
      () => true,
      () => false,
    );
    const states = scaleStates(rss.events);
    const afterDown = states.slice(fromDown);
    const history = trace(states, ...hashes);
    t.diagnostic(`stable/canary from the update on: ${history}`);
    assert.ok(settled, `back at R=4: canary/stable 2/4 (stable/canary trace: ${history})`);
    // Once the controller is within the budget at R=4 (R + maxSurge = 6), it stays there.
    const within = afterDown.findIndex((s) => total(s) <= 6);
    assert.ok(within >= 0, `never within R+maxSurge=6 after the scale-down: ${history}`);
    const over = afterDown.slice(within).filter((s) => total(s) > 6);
    assert.deepEqual(over.map(total), [], `over R+maxSurge after the scale-down: ${history}`);
    for (let i = 1; i < within; i++) {
      const [prev, cur] = [afterDown[i - 1], afterDown[i]];
      if (prev && cur) assert.ok(total(cur) <= total(prev), `grew before settling: ${history}`);
    }
    // Pods too: no more than R+maxSurge once the ReplicaSet controller has caught up.
    await waitForList(
      'at most 6 pods not terminating',
      `/api/v1/namespaces/${ns}/pods`,
      (pods: Pod[]) => pods.filter((p) => !p.metadata?.deletionTimestamp).length <= 6,
      30_000,
    );
  });
});

describe('abort never lowers capacity', () => {
  it('from 1/3 at a pause: stable up to 4 before the canary down to 0 (3/1 → 4/1 → 4/0)', async (t) => {
    const ns = await testNamespace('abort-capacity');
    await createRollout(ns, rolloutBody('a'));
    await waitForRollout(ns, 'a', 'Healthy', phase('Healthy'));
    await setImage(ns, 'a', 'app:2');
    const paused = await waitForRollout(
      ns,
      'a',
      'paused at setWeight 25',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    assert.deepEqual(await split(ns, paused), [1, 3]);

    const rss = await watchReplicaSets(ns);
    t.after(() => rss.stop());
    const stable = paused.status?.stableRS;
    const canary = paused.status?.currentPodHash;
    const isRs = (hash: string | undefined) => (e: { object: { metadata?: object } }) =>
      (e.object.metadata as { labels?: Record<string, string> }).labels?.[
        'rollouts-pod-template-hash'
      ] === hash;
    const start = rss.mark;
    await patchStatus(ns, 'a', { abort: true });
    const aborted = await waitForRollout(
      ns,
      'a',
      'Degraded / RolloutAborted',
      (r) =>
        r.status?.phase === 'Degraded' && (r.status.message ?? '').startsWith('RolloutAborted'),
    );
    const stableUp = await rss.until(
      'stable scaled to 4',
      (e) => isRs(stable)(e) && e.object.spec?.replicas === 4,
      start,
    );
    const canaryDown = await rss.until(
      'canary scaled to 0',
      (e) => isRs(canary)(e) && e.object.spec?.replicas === 0,
      start,
    );
    const states = scaleStates(rss.events);
    const history = trace(states, stable ?? '', canary ?? '');
    t.diagnostic(`stable/canary: ${history}`);
    assert.ok(stableUp < canaryDown, `stable up before canary down: ${history}`);
    // From the first state that has both ReplicaSets (the watch lists them one by one).
    const both = states.filter((s) => s.replicas.has(stable ?? '') && s.replicas.has(canary ?? ''));
    const below = both.filter((s) => replicasOf(s, stable) + replicasOf(s, canary) < 4);
    assert.equal(below.length, 0, `capacity below 4: ${history}`);
    assert.deepEqual(await split(ns, aborted), [0, 4]);
  });
});

describe('a canary whose pods fail after starting', () => {
  it('never goes Healthy, keeps the stable, bounded status writes; abort brings back 4 stable pods', async (t) => {
    const ns = await testNamespace('chaos');
    await createRollout(
      ns,
      rolloutBody('c', { strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } } }),
    );
    await waitForRollout(ns, 'c', 'Healthy', phase('Healthy'));
    const rss = await watchReplicaSets(ns);
    const rollout = await watchRollout(ns, 'c');
    const pods = await WatchHistory.start<Pod>(`/api/v1/namespaces/${ns}/pods`);
    t.after(() => [rss, rollout, pods].forEach((h) => h.stop()));
    await patchSpec(ns, 'c', failingTemplate('c'));
    const canary = await waitForCanary(ns, 'c');
    const { stableRS, currentPodHash } = canary.status ?? {};

    const podsFrom = pods.mark;
    const window = await rollout.window(CHURN_WINDOW_MS);
    const writes = window.filter((e) => e.type === 'MODIFIED').length;
    const podEvents = pods.mark - podsFrom;
    const failed = pods.events.filter((e) => e.object.status?.phase === 'Failed').length;
    const states = scaleStates(rss.events);
    const history = trace(states, stableRS ?? '', currentPodHash ?? '');
    t.diagnostic(
      `${CHURN_WINDOW_MS} ms of churn: ${writes} Rollout writes, ${podEvents} pod events, ` +
        `${pods.count('ADDED')} pods ` +
        `created, ${failed} pod events in phase Failed; stable/canary ${history}; ` +
        `phases ${[...new Set(window.map((e) => e.object.status?.phase))].join(',')}`,
    );
    const healthy = rollout.events.filter((e) => phase('Healthy')(e.object));
    assert.equal(healthy.length, 1, 'Healthy before the update only, never on its own after');
    const minStable = Math.min(...states.map((s) => replicasOf(s, stableRS)));
    // setWeight 50 of 4 asks for 2 stable pods; the failing canary must not take more.
    assert.ok(minStable >= 2, `stable went down to ${minStable}: ${history}`);
    // Every status write should describe a pod change (counts); a storm writes without one.
    assert.ok(
      writes <= podEvents,
      `${writes} status writes for ${podEvents} pod events in ${CHURN_WINDOW_MS} ms of churn`,
    );

    await patchStatus(ns, 'c', { abort: true });
    const aborted = await waitForRollout(
      ns,
      'c',
      'Degraded / RolloutAborted',
      (r) =>
        r.status?.phase === 'Degraded' && (r.status.message ?? '').startsWith('RolloutAborted'),
    );
    await waitForSplit(ns, aborted, 0, 4);
    await waitForList(
      '4 Ready stable pods',
      `/api/v1/namespaces/${ns}/pods`,
      (items: Pod[]) =>
        items.filter(
          (p) =>
            p.metadata?.labels?.['rollouts-pod-template-hash'] === stableRS &&
            !p.metadata?.deletionTimestamp &&
            p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ).length === 4,
    );
  });
});
