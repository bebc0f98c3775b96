// Blue-green with Argo's e2e numbers (issue 21 item 3; Argo's test/e2e/bluegreen_test.go and
// functional_test.go), on the real local control plane with the real controller: the replica
// tuples, which revision each Service selects, scale-down delays and their revision limit, abort,
// and the events and first deploy a user sees. Promote and abort go through the plugin, as a
// user types them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { SCALE_DOWN_DEADLINE_ANNOTATION } from '../../src/api/keys.ts';
import {
  activeService,
  assertServing,
  blueGreenRollout,
  createBlueGreenServices,
  guardedNamespace,
  hasTuple,
  recordRollout,
  recordServiceHashes,
  replicasByRevision,
  revisionHash,
  selects,
  tuple,
  waitForRevisionReplicas,
} from './support/bluegreen-numbers.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { plugin } from './support/plugin.ts';
import {
  createRollout,
  events,
  getRollout,
  http,
  installCrds,
  patchSpec,
  phase,
  replicaSets,
  setImage,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  controller = await startController();
});
after(async () => {
  if (process.env.DUMP_LOGS) for (const l of controller?.logs ?? []) console.log(JSON.stringify(l));
  await controller?.kill();
});

async function run(args: readonly string[]): Promise<void> {
  const r = await plugin(args);
  assert.equal(r.code, 0, `kubectl stepwise ${args.join(' ')}: ${r.stderr}`);
}

/** Creates the Services and the Rollout, waits for revision 1 Healthy; returns its hash. */
async function deployed(ns: string, body: Rollout): Promise<string> {
  const app = body.metadata.name ?? '';
  await createBlueGreenServices(ns, app);
  await createRollout(ns, body);
  const r = await waitForRollout(ns, app, 'revision 1 Healthy', phase('Healthy'));
  const hash = r.status?.stableRS;
  assert.ok(hash, 'stableRS set');
  return hash;
}

/** The update to revision 2; its hash once the controller has created the ReplicaSet. */
async function updated(ns: string, app: string, image = 'app:2'): Promise<string> {
  await setImage(ns, app, image);
  const r = await waitForRollout(
    ns,
    app,
    `a ReplicaSet for ${image}`,
    (x) =>
      x.status?.observedGeneration === String(x.metadata.generation) &&
      x.status.currentPodHash !== undefined &&
      x.status.currentPodHash !== x.status.stableRS,
  );
  return r.status?.currentPodHash ?? '';
}

describe('first deploy', () => {
  it('is stable at once: no pause, no AnalysisRun, both Services on revision 1', async () => {
    const ns = await guardedNamespace('bg-first');
    // Analysis and a manual promotion that a first deploy must skip (Argo: "Initial deploy").
    await http.json('POST', `${API}/namespaces/${ns}/analysistemplates`, {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'never' },
      spec: {
        metrics: [
          {
            name: 'never',
            count: 1,
            successCondition: 'result == 1',
            provider: { web: { url: 'http://127.0.0.1:9/never' } },
          },
        ],
      },
    });
    const history = await recordRollout(ns, 'first');
    try {
      const h1 = await deployed(
        ns,
        blueGreenRollout(
          'first',
          {
            autoPromotionEnabled: false,
            prePromotionAnalysis: { templates: [{ templateName: 'never' }] },
            postPromotionAnalysis: { templates: [{ templateName: 'never' }] },
          },
          { replicas: 2 },
        ),
      );
      const r = await waitForRollout(
        ns,
        'first',
        'Healthy (2,2,2,2,2), active = preview = revision 1',
        phase('Healthy', (x) => hasTuple([2, 2, 2, 2, 2])(x) && selects(h1, h1)(x)),
      );
      await assertServing(ns, 'first', r, { active: 1, preview: 1 });
      assert.equal(r.status?.currentPodHash, h1);
      const paused = history.seen.filter(
        (x) => x.status?.phase === 'Paused' || (x.status?.pauseConditions?.length ?? 0) > 0,
      );
      assert.deepEqual(
        paused.map((x) => x.status),
        [],
        'never paused',
      );
    } finally {
      history.stop();
    }
    const runs = await http.json<{ items: unknown[] }>(
      'GET',
      `${API}/namespaces/${ns}/analysisruns`,
    );
    assert.equal(runs.items.length, 0, 'no AnalysisRun on a first deploy');
  });
});

describe('TestBlueGreenUpdate: replicas 3, scaleDownDelaySeconds 10', () => {
  it('Healthy (3,3,3,3,3) → update → active on revision 2, Healthy (3,6,3,3,3); Argo’s events; revision 1 down after its delay', async () => {
    const ns = await guardedNamespace('bg-update');
    const h1 = await deployed(
      ns,
      blueGreenRollout('web', { scaleDownDelaySeconds: 10 }, { replicas: 3 }),
    );
    const first = await waitForRollout(
      ns,
      'web',
      'Healthy (3,3,3,3,3)',
      phase('Healthy', (x) => hasTuple([3, 3, 3, 3, 3])(x) && selects(h1, h1)(x)),
    );
    await assertServing(ns, 'web', first, { active: 1, preview: 1 });

    const h2 = await updated(ns, 'web');
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy (3,6,3,3,3) on revision 2',
      phase(
        'Healthy',
        (x) => x.status?.stableRS === h2 && hasTuple([3, 6, 3, 3, 3])(x) && selects(h2, h2)(x),
      ),
    );
    await assertServing(ns, 'web', done, { active: 2, preview: 2 });
    const rs1 = (await replicaSets(ns, 'web')).find((rs) => rs.metadata?.name === `web-${h1}`);
    assert.ok(
      rs1?.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION],
      'revision 1 carries its scale-down deadline',
    );

    await waitForEvents(ns, [
      'NewReplicaSetCreated',
      'ScalingReplicaSet',
      'SwitchService',
      'RolloutCompleted',
    ]);
    const messages = (await events(ns))
      .filter((e) => e.reason === 'SwitchService')
      .map((e) => e.message);
    assert.ok(
      messages.includes(
        `Switched selector for service '${activeService('web')}' from '${h1}' to '${h2}'`,
      ),
      `SwitchService messages: ${JSON.stringify(messages)}`,
    );

    // After the 10 s delay revision 1 goes to 0, and the counts with it.
    await waitForRevisionReplicas(ns, 'web', { 1: 0, 2: 3 });
    await waitForRollout(
      ns,
      'web',
      'Healthy (3,3,3,3,3) after the delay',
      phase('Healthy', hasTuple([3, 3, 3, 3, 3])),
    );
  });
});

describe('TestBlueGreenPreviewReplicaCount: replicas 2, previewReplicaCount 1, autoPromotionEnabled false', () => {
  const spec = (extra: object = {}) =>
    blueGreenRollout(
      'web',
      { previewReplicaCount: 1, autoPromotionEnabled: false, scaleDownDelaySeconds: 5 },
      { replicas: 2, ...extra },
    );

  /** Paused with revision 2 at 1 pod and revision 1 at 2: (2,3,1,2,2), active 1, preview 2. */
  async function pausedOnPreview(ns: string, h1: string, h2: string): Promise<Rollout> {
    const paused = await waitForRollout(
      ns,
      'web',
      'Paused (2,3,1,2,2), active 1, preview 2',
      phase('Paused', (x) => hasTuple([2, 3, 1, 2, 2])(x) && selects(h1, h2)(x)),
    );
    assert.deepEqual(
      paused.status?.pauseConditions?.map((c) => c.reason),
      ['BlueGreenPause'],
    );
    assert.equal(paused.status?.controllerPause, true);
    await waitForRevisionReplicas(ns, 'web', { 1: 2, 2: 1 });
    await assertServing(ns, 'web', paused, { active: 1, preview: 2 });
    return paused;
  }

  it('Paused (2,3,1,2,2) → promote → Healthy (2,4,2,2,2)', async () => {
    const ns = await guardedNamespace('bg-preview');
    const h1 = await deployed(ns, spec());
    const h2 = await updated(ns, 'web');
    await pausedOnPreview(ns, h1, h2);

    await run(['promote', 'web', '-n', ns]);
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy (2,4,2,2,2) on revision 2',
      phase('Healthy', (x) => hasTuple([2, 4, 2, 2, 2])(x) && selects(h2, h2)(x)),
    );
    assert.equal(done.status?.stableRS, h2);
    await assertServing(ns, 'web', done, { active: 2, preview: 2 });
  });

  it('progressDeadlineSeconds 1: stays Paused, not Degraded, while paused; promote --full gives the same end', async () => {
    const ns = await guardedNamespace('bg-deadline');
    const h1 = await deployed(ns, spec({ progressDeadlineSeconds: 1 }));
    const history = await recordRollout(ns, 'web');
    const h2 = await updated(ns, 'web');
    try {
      await pausedOnPreview(ns, h1, h2);
      // A negative condition has no event to wait for: the only way to see that the deadline
      // (1 s) does not fire during a pause is to let more than twice that pass (Argo waits 2 s)
      // and then look at every version the Rollout went through meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    } finally {
      history.stop();
    }
    const now = await getRollout(ns, 'web');
    assert.equal(now.status?.phase, 'Paused', now.status?.message);
    assert.deepEqual(tuple(now), [2, 3, 1, 2, 2]);
    assert.notEqual(now.status?.abort, true);
    // Before the pause the deadline is live, as in Argo (1 s without progress, say a preview pod
    // slow to turn Ready on a loaded machine, is Degraded until the pod comes); from the pause on,
    // never.
    const phases = history.seen.map((x) => x.status?.phase ?? '');
    const pausedFrom = phases.indexOf('Paused');
    assert.ok(pausedFrom >= 0, `the recorded versions reach Paused: ${phases.join(' → ')}`);
    const degraded = history.seen.slice(pausedFrom).filter((x) => x.status?.phase === 'Degraded');
    assert.deepEqual(
      degraded.map((x) => x.status?.message),
      [],
      `never Degraded while paused (phases: ${phases.join(' → ')})`,
    );

    await run(['promote', 'web', '--full', '-n', ns]);
    const done = await waitForRollout(
      ns,
      'web',
      'Healthy (2,4,2,2,2) on revision 2 after promote --full',
      phase('Healthy', (x) => hasTuple([2, 4, 2, 2, 2])(x) && selects(h2, h2)(x)),
    );
    assert.equal(done.status?.stableRS, h2);
    await assertServing(ns, 'web', done, { active: 2, preview: 2 });
  });
});

describe('TestBlueGreenScaleDownDelay: replicas 1, scaleDownDelaySeconds 86400, scaleDownDelayRevisionLimit 2', () => {
  it('revisions 2, 3, 4 → rev4 1, rev3 1, rev2 1, rev1 0, (1,3,1,1,1); limit 1 → rev2 0, (1,2,1,1,1)', async () => {
    const ns = await guardedNamespace('bg-delay');
    await deployed(
      ns,
      blueGreenRollout(
        'web',
        { scaleDownDelaySeconds: 86400, scaleDownDelayRevisionLimit: 2 },
        { replicas: 1 },
      ),
    );
    const healthyOn = async (
      image: string,
      expected: readonly [number, number, number, number, number],
    ) => {
      const hash = await updated(ns, 'web', image);
      return waitForRollout(
        ns,
        'web',
        `Healthy ${JSON.stringify(expected)} on ${image}`,
        phase(
          'Healthy',
          (x) => x.status?.stableRS === hash && hasTuple(expected)(x) && selects(hash, hash)(x),
        ),
      );
    };
    await healthyOn('app:2', [1, 2, 1, 1, 1]);
    await waitForRevisionReplicas(ns, 'web', { 1: 1, 2: 1 });
    await healthyOn('app:3', [1, 3, 1, 1, 1]);
    const fourth = await healthyOn('app:4', [1, 3, 1, 1, 1]);
    await waitForRevisionReplicas(ns, 'web', { 1: 0, 2: 1, 3: 1, 4: 1 });
    await assertServing(ns, 'web', fourth, { active: 4, preview: 4 });

    await patchSpec(ns, 'web', { strategy: { blueGreen: { scaleDownDelayRevisionLimit: 1 } } });
    await waitForRevisionReplicas(ns, 'web', { 1: 0, 2: 0, 3: 1, 4: 1 });
    const limited = await waitForRollout(
      ns,
      'web',
      'Healthy (1,2,1,1,1) with limit 1',
      phase('Healthy', hasTuple([1, 2, 1, 1, 1])),
    );
    await assertServing(ns, 'web', limited, { active: 4, preview: 4 });
    assert.deepEqual(replicasByRevision(await replicaSets(ns, 'web')), { 1: 0, 2: 0, 3: 1, 4: 1 });
  });
});

describe('TestBlueGreenScaleDownOnAbort: abortScaleDownDelaySeconds 1 while paused', () => {
  it('Degraded, revision 2 at 0 within 3 s, the active Service on revision 1 throughout', async () => {
    const ns = await guardedNamespace('bg-abort');
    const h1 = await deployed(
      ns,
      blueGreenRollout(
        'web',
        {
          previewReplicaCount: 1,
          autoPromotionEnabled: false,
          scaleDownDelaySeconds: 5,
          abortScaleDownDelaySeconds: 1,
        },
        { replicas: 2 },
      ),
    );
    await waitForRollout(ns, 'web', 'active on revision 1', phase('Healthy', selects(h1, h1)));
    // Every version of the active Service from here on: not one may select revision 2.
    const active = await recordServiceHashes(ns, activeService('web'));
    try {
      const h2 = await updated(ns, 'web');
      await waitForRollout(
        ns,
        'web',
        'Paused (2,3,1,2,2), active 1, preview 2',
        phase('Paused', (x) => hasTuple([2, 3, 1, 2, 2])(x) && selects(h1, h2)(x)),
      );
      await waitForRevisionReplicas(ns, 'web', { 1: 2, 2: 1 });

      await run(['abort', 'web', '-n', ns]);
      const aborted = await waitForRollout(
        ns,
        'web',
        'Degraded after the abort',
        (x) => x.status?.phase === 'Degraded' && x.status.abort === true,
      );
      // The number: 1 s of delay, seen at 0 within 3 s of the Degraded status.
      await waitForRevisionReplicas(ns, 'web', { 1: 2, 2: 0 }, 3_000);
      await assertServing(ns, 'web', aborted, { active: 1, preview: 2 });
      assert.equal(aborted.status?.stableRS, h1);
      assert.equal(await revisionHash(ns, 'web', 2), h2);
      assert.ok(active.seen.length > 0, 'the watch saw the active Service');
      assert.deepEqual(
        active.seen.filter((h) => h !== h1),
        [],
        `the active Service selected only revision 1 (${h1}); revision 2 is ${h2}`,
      );
    } finally {
      active.stop();
    }
  });
});
