// The canary engine end to end: the real controller process against the local control plane
// (real ReplicaSets, pods on kwok nodes, CRD validation and server-side apply).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSet } from '../../src/api/index.ts';
import { eventually, testNamespace } from '../cluster/testing.ts';
import { FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  createService,
  getService,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  replicaSets,
  rolloutBody,
  setImage,
  split,
  waitFor,
  waitForEvents,
  waitForList,
  phase,
  waitForRollout,
} from './support/rollouts.ts';

const HASH = 'rollouts-pod-template-hash';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

describe('a canary walks its steps', () => {
  it('template change → canary ReplicaSet, setWeight split, pauses, promote, full promotion', async () => {
    const ns = await testNamespace('canary');
    await createService(ns, 'web-canary', 'web');
    await createService(ns, 'web-stable', 'web');
    await createRollout(
      ns,
      rolloutBody('web', {
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            steps: [
              { setWeight: 25 },
              { pause: {} },
              { setWeight: 50 },
              { pause: { duration: '2s' } },
            ],
          },
        },
      }),
    );
    const healthy = await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    const firstHash = healthy.status?.stableRS;
    assert.ok(firstHash);
    assert.equal((await getService(ns, 'web-stable')).spec?.selector?.[HASH], firstHash);

    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(
      ns,
      'web',
      'paused at step 1',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    const canaryHash = paused.status?.currentPodHash;
    assert.notEqual(canaryHash, firstHash);
    assert.deepEqual(await split(ns, paused), [1, 3]);
    const rss = await replicaSets(ns, 'web');
    const canaryRs = rss.find((rs) => rs.metadata?.labels?.[HASH] === canaryHash);
    assert.equal(canaryRs?.metadata?.name, `web-${canaryHash}`);
    assert.equal(canaryRs?.metadata?.ownerReferences?.[0]?.kind, 'Rollout');
    assert.ok(
      canaryRs?.metadata?.managedFields?.some(
        (f) => f.manager === 'stepwise-controller' && f.operation === 'Apply',
      ),
    );
    assert.equal((await getService(ns, 'web-canary')).spec?.selector?.[HASH], canaryHash);
    assert.equal(paused.status?.pauseConditions?.[0]?.reason, 'CanaryPauseStep');

    await patchStatus(ns, 'web', { pauseConditions: null });
    const done = await waitForRollout(
      ns,
      'web',
      'fully promoted',
      phase('Healthy', (r) => r.status?.stableRS === canaryHash),
    );
    assert.equal(done.status?.currentStepIndex, 4);
    assert.deepEqual(await split(ns, done), [0, 4]);
    assert.equal((await getService(ns, 'web-stable')).spec?.selector?.[HASH], canaryHash);
    await waitForEvents(ns, [
      'NewReplicaSetCreated',
      'RolloutPaused',
      'RolloutStepCompleted',
      'RolloutResumed',
      'RolloutCompleted',
      'SwitchService',
    ]);
  });
});

describe('promote full and setCanaryScale', () => {
  it('setCanaryScale sets the canary pod count; promote --full skips every remaining step', async () => {
    const ns = await testNamespace('full');
    await createRollout(
      ns,
      rolloutBody('full', {
        replicas: 5,
        strategy: {
          canary: {
            steps: [
              { setCanaryScale: { replicas: 2 } },
              { pause: {} },
              { setWeight: 80 },
              { pause: {} },
            ],
          },
        },
      }),
    );
    await waitForRollout(ns, 'full', 'Healthy', phase('Healthy'));
    await setImage(ns, 'full', 'app:2');
    const paused = await waitForRollout(
      ns,
      'full',
      'paused after setCanaryScale',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    assert.deepEqual(await split(ns, paused), [2, 3]);
    await patchStatus(ns, 'full', { promoteFull: true, pauseConditions: null });
    const done = await waitForRollout(
      ns,
      'full',
      'fully promoted',
      phase('Healthy', (r) => r.status?.stableRS === r.status?.currentPodHash),
    );
    assert.equal(done.status?.currentStepIndex, 4);
    assert.equal(done.status?.promoteFull, false, 'the request is consumed');
    assert.deepEqual(await split(ns, done), [0, 5]);
  });
});

describe('abort and retry', () => {
  it('abort returns to stable and scales a basic canary down at once, abortScaleDownDelaySeconds or not (Argo); retry restarts the steps', async () => {
    const ns = await testNamespace('abort');
    await createService(ns, 'api-canary', 'api');
    await createService(ns, 'api-stable', 'api');
    await createRollout(
      ns,
      rolloutBody('api', {
        strategy: {
          canary: {
            canaryService: 'api-canary',
            stableService: 'api-stable',
            abortScaleDownDelaySeconds: 600, // applies only with a traffic router
            steps: [{ setWeight: 50 }, { pause: {} }],
          },
        },
      }),
    );
    await waitForRollout(ns, 'api', 'Healthy', phase('Healthy'));
    await setImage(ns, 'api', 'app:2');
    await waitForRollout(ns, 'api', 'paused', phase('Paused'));
    await patchStatus(ns, 'api', { abort: true });
    const aborted = await waitForRollout(
      ns,
      'api',
      'Degraded with stable back to full',
      (r) =>
        r.status?.phase === 'Degraded' &&
        /^RolloutAborted/.test(r.status.message ?? '') &&
        r.status.availableReplicas !== undefined,
    );
    assert.equal(aborted.status?.abort, true);
    assert.ok(aborted.status?.abortedAt);
    const canaryRs = `api-${aborted.status?.currentPodHash}`;
    await waitFor(
      `${canaryRs} scaled to 0 well before the 600 s delay`,
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      canaryRs,
      (o: { spec?: { replicas?: number } }) => o.spec?.replicas === 0,
      30_000,
    );
    assert.equal(aborted.status?.canary?.weights, undefined, 'a basic canary reports no weights');

    await patchStatus(ns, 'api', { abort: false });
    const retried = await waitForRollout(
      ns,
      'api',
      'paused again after retry',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    assert.equal(retried.status?.abortedAt, undefined);
    assert.deepEqual(await split(ns, retried), [2, 2]);
  });
});

describe('a new revision after an abort', () => {
  it('clears the abort the plugin set, and runs the steps for the new revision', async () => {
    const ns = await testNamespace('reabort');
    await createRollout(ns, rolloutBody('re', { replicas: 2 }));
    await waitForRollout(ns, 're', 'Healthy', phase('Healthy'));
    await setImage(ns, 're', 'app:2');
    await waitForRollout(ns, 're', 'paused', phase('Paused'));
    await patchStatus(ns, 're', { abort: true });
    await waitForRollout(ns, 're', 'Degraded', (r) => r.status?.phase === 'Degraded');
    await setImage(ns, 're', 'app:3');
    const next = await waitForRollout(ns, 're', 'paused on the new revision', phase('Paused'));
    assert.equal(next.status?.abort, false);
    assert.equal(next.status?.currentStepIndex, 1);
  });
});

describe('template changed back to the stable one', () => {
  it('skips the steps and goes straight back to Healthy', async () => {
    const ns = await testNamespace('rollback');
    await createRollout(ns, rolloutBody('back'));
    await waitForRollout(ns, 'back', 'Healthy', phase('Healthy'));
    await setImage(ns, 'back', 'app:2');
    await waitForRollout(ns, 'back', 'paused', phase('Paused'));
    await setImage(ns, 'back', 'app:1');
    const back = await waitForRollout(ns, 'back', 'Healthy on the old revision', phase('Healthy'));
    assert.equal(back.status?.currentPodHash, back.status?.stableRS);
    assert.deepEqual(await split(ns, back), [0, 4]);
  });
});

describe('restartAt', () => {
  it('replaces every pod created before restartAt and records restartedAt', async () => {
    const ns = await testNamespace('restart');
    await createRollout(
      ns,
      rolloutBody('rs', { replicas: 3, strategy: { canary: { maxUnavailable: 1 } } }),
    );
    await waitForRollout(ns, 'rs', 'Healthy', phase('Healthy'));
    const pods = async () =>
      (
        await http.json<{ items: { metadata: { name: string; creationTimestamp: string } }[] }>(
          'GET',
          `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Drs`,
        )
      ).items;
    const before = new Set((await pods()).map((p) => p.metadata.name));
    const restartAt = new Date(Date.now() + 500).toISOString();
    await patchSpec(ns, 'rs', { restartAt });
    await waitForRollout(
      ns,
      'rs',
      'restartedAt recorded',
      (r) => r.status?.restartedAt === restartAt && r.status.phase === 'Healthy',
      90_000,
    );
    const after = await pods();
    assert.ok(
      after.every((p) => !before.has(p.metadata.name)),
      'every pod is new',
    );
  });
});

describe('progress deadline', () => {
  it('a canary that never becomes ready is Degraded, and with progressDeadlineAbort is aborted', async () => {
    const ns = await testNamespace('deadline');
    await createRollout(
      ns,
      rolloutBody('slow', { progressDeadlineSeconds: 3, progressDeadlineAbort: true }),
    );
    await waitForRollout(ns, 'slow', 'Healthy', phase('Healthy'));
    await patchSpec(ns, 'slow', {
      template: { metadata: { labels: { app: 'slow', [FAULT_LABEL]: NEVER_READY } } },
    });
    const degraded = await waitForRollout(
      ns,
      'slow',
      'aborted on the deadline',
      (r) =>
        r.status?.abort === true &&
        r.status.conditions?.some(
          (c) => c.type === 'Progressing' && c.reason === 'RolloutAborted',
        ) === true,
    );
    assert.equal(degraded.status?.phase, 'Degraded');
    const progressing = degraded.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'RolloutAborted');
    await waitForEvents(ns, ['ProgressDeadlineExceeded', 'RolloutAborted']);
  });
});

describe('invalid spec', () => {
  it('gets an InvalidSpec condition while other Rollouts keep progressing', async () => {
    const ns = await testNamespace('invalid');
    await createRollout(
      ns,
      rolloutBody('bad', { strategy: { canary: { steps: [{ setWeight: 150 }] } } }),
    );
    await createRollout(
      ns,
      rolloutBody('bad-svc', { strategy: { canary: { canaryService: 'missing' } } }),
    );
    await createRollout(ns, rolloutBody('good'));
    const bad = await waitForRollout(
      ns,
      'bad',
      'InvalidSpec',
      (r) => r.status?.phase === 'Degraded',
    );
    assert.match(
      bad.status?.message ?? '',
      /InvalidSpec: spec.strategy.canary.steps\[0\].setWeight: must be between 0 and 100/,
    );
    const badSvc = await waitForRollout(
      ns,
      'bad-svc',
      'InvalidSpec',
      (r) => r.status?.phase === 'Degraded',
    );
    assert.match(badSvc.status?.message ?? '', /Service "missing" not found/);
    await waitForRollout(ns, 'good', 'Healthy', phase('Healthy'));
    assert.equal((await replicaSets(ns, 'bad')).length, 0);
    // Fixing the spec recovers.
    await patchSpec(ns, 'bad', { strategy: { canary: { steps: [{ setWeight: 50 }] } } });
    await waitForRollout(ns, 'bad', 'Healthy after the fix', phase('Healthy'));
  });

  it('the API server itself rejects what the schema forbids', async () => {
    const ns = await testNamespace('schema');
    const res = await http.request(
      'POST',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts`,
      { ...rolloutBody('x'), spec: { ...rolloutBody('x').spec, replicas: 'many' } },
    );
    assert.equal(res.status, 422);
  });
});

describe('revision history', () => {
  it('deletes scaled-down ReplicaSets beyond revisionHistoryLimit', async () => {
    const ns = await testNamespace('history');
    await createRollout(
      ns,
      rolloutBody('h', { replicas: 1, revisionHistoryLimit: 1, strategy: { canary: {} } }),
    );
    for (const image of ['app:2', 'app:3', 'app:4']) {
      await setImage(ns, 'h', image);
      await waitForRollout(ns, 'h', `Healthy on ${image}`, phase('Healthy'));
    }
    const imagesOf = (items: ReplicaSet[]) =>
      items.map((rs) => rs.spec?.template?.spec?.containers[0]?.image ?? '').sort();
    const want = ['registry.invalid/app:3', 'registry.invalid/app:4'];
    const left = await waitForList(
      'old ReplicaSets deleted down to the history limit',
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      (items: ReplicaSet[]) => imagesOf(items).join() === want.join(),
    );
    assert.deepEqual(imagesOf(left), want);
  });
});

describe('metrics', () => {
  it('serves reconcile counts, queue and API request metrics, and per-rollout phase', async () => {
    const text = await controller.metrics();
    for (const name of [
      'rollout_reconcile_count',
      'workqueue_depth',
      'controller_clientset_k8s_request_total',
      'rollout_info',
    ]) {
      assert.ok(text.includes(name), `metric ${name}`);
    }
    // Argo's labels and phase vocabulary, and the events the rollouts above were sent.
    assert.match(
      text,
      /^rollout_info\{namespace="[^"]+",name="[^"]+",strategy="canary",traffic_router="",phase="(Completed|Progressing|Paused|Timeout|Error|Abort|InvalidSpec)",status_phase="(Healthy|Progressing|Paused|Degraded)"\} 1$/m,
    );
  });

  it('counts the events a Rollout was sent while it exists (rollout_events_total)', async () => {
    // A Rollout of its own: the earlier tests' namespaces are being deleted, and a deleted
    // Rollout's series go with it.
    const ns = await testNamespace('metrics');
    const steps = [{ setWeight: 50 }];
    await createRollout(ns, rolloutBody('m', { strategy: { canary: { steps } } }));
    await waitForRollout(ns, 'm', 'Healthy', phase('Healthy'));
    await setImage(ns, 'm', 'app:2');
    await waitForRollout(
      ns,
      'm',
      'Healthy on app:2',
      (r) => phase('Healthy')(r) && r.status?.currentStepIndex === 1,
    );
    const series = new RegExp(
      `^rollout_events_total\\{namespace="${ns}",name="m",type="Normal",reason="RolloutStepCompleted"\\} [1-9]`,
      'm',
    );
    // The recorder counts an Event when it sends it, just after the status write.
    await eventually('the step-completed event counted', async () =>
      series.test(await controller.metrics()) ? true : undefined,
    );
  });
});
