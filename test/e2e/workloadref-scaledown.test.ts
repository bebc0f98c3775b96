// scaleDown of a workloadRef's Deployment against the local control plane: Argo's
// TestScaleDownProgressivelyCompleted(Canary) numbers, and where we do better than Argo: ready
// capacity never dips while both run (progressively); a GitOps re-apply of the Deployment's
// replicas is scaled back at any revision and nothing reports Healthy meanwhile (#4935); blue-green
// with post-promotion analysis drains (#4681).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { AnalysisTemplate, Deployment, Pod, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { stopWatches, WatchHistory, watchRollout } from './support/history.ts';
import { MetricServer } from './support/metric-server.ts';
import {
  createRollout,
  createService,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  waitForRollout,
} from './support/rollouts.ts';
import {
  applyDeployment,
  counts,
  deploymentAt,
  deploymentBody,
  referencingRollout,
  waitForDeployment,
} from './support/workloads.ts';

let controller: ControllerProcess;
const endpoint = new MetricServer();
before(async () => {
  await installCrds();
  await endpoint.start();
  controller = await startController();
});
after(async () => {
  await controller?.kill();
  endpoint.close();
});
afterEach(() => stopWatches());

const watchDeployments = (ns: string) =>
  WatchHistory.start<Deployment>(`/apis/apps/v1/namespaces/${ns}/deployments`);

/** Every spec.replicas the Deployment was written with, from `from` on. */
const deploymentReplicas = (h: WatchHistory<Deployment>, from = 0): number[] => [
  ...new Set(h.events.slice(from).map((e) => e.object.spec?.replicas ?? -1)),
];

/** The Deployment as Git has it after the migration: Git no longer says how many replicas. */
function withoutReplicas(d: Deployment): Deployment {
  const { replicas: _r, ...spec } = d.spec ?? { selector: {}, template: {} };
  return { ...d, spec: spec };
}

/** Healthy and fully promoted on the template of `d` (its generation or a later one: our
 *  scale-down bumps it too). */
const promotedFrom = (d: Deployment) =>
  phase(
    'Healthy',
    (r) =>
      Number(r.status?.workloadObservedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
      r.status?.stableRS === r.status?.currentPodHash,
  );

/** A migrated Rollout (Deployment `replicas` → Rollout Healthy, Deployment at 0). */
async function migrated(prefix: string, replicas: number, rollout: Partial<Rollout['spec']>) {
  const ns = await testNamespace(prefix);
  await createService(ns, 'web', 'web');
  await applyDeployment(ns, deploymentBody('web', replicas));
  await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(replicas));
  await createRollout(
    ns,
    referencingRollout('web', { replicas, ...rollout }, { scaleDown: 'progressively' }),
  );
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await waitForDeployment(ns, 'web', 'Deployment at 0', deploymentAt(0));
  return ns;
}

async function scaleTo(ns: string, replicas: number): Promise<Rollout> {
  await patchSpec(ns, 'web', { replicas });
  return waitForRollout(
    ns,
    'web',
    `(${replicas} x5)`,
    phase('Healthy', (r) => counts(r).every((n) => n === replicas)),
  );
}

describe('progressively', () => {
  it('capacity: ready pods across both never drop below spec.replicas while the Deployment drains', async (t) => {
    const ns = await testNamespace('wref-capacity');
    await createService(ns, 'web', 'web');
    await applyDeployment(ns, deploymentBody('web', 3));
    await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(3));
    const pods = await WatchHistory.start<Pod>(`/api/v1/namespaces/${ns}/pods`);
    t.after(() => pods.stop());
    await createRollout(
      ns,
      referencingRollout('web', { replicas: 3 }, { scaleDown: 'progressively' }),
    );
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await waitForDeployment(ns, 'web', 'Deployment at 0', deploymentAt(0));
    const ready = new Map<string, boolean>();
    const totals = pods.events.map((e) => {
      const name = e.object.metadata?.name ?? '';
      const up =
        e.type !== 'DELETED' &&
        !e.object.metadata?.deletionTimestamp &&
        (e.object.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      ready.set(name, up);
      return [...ready.values()].filter(Boolean).length;
    });
    // From the moment the watch's initial list has shown the Deployment's 3 ready pods.
    const during = totals.slice(totals.indexOf(3));
    assert.ok(
      during.some((n) => n > 3),
      'the Rollout’s pods came up beside them',
    );
    assert.ok(Math.min(...during) >= 3, `ready pods over time: ${totals.join(',')}`);
  });

  it('blue-green, replicas 3 → scaled to 6 and 2: (6,6,6,6,6), (2,2,2,2,2), the Deployment at 0 throughout, and after an update', async (t) => {
    const ns = await migrated('wref-prog-bg', 3, {});
    const deployments = await watchDeployments(ns);
    t.after(() => deployments.stop());
    await scaleTo(ns, 6);
    await scaleTo(ns, 2);
    const updated = await applyDeployment(ns, withoutReplicas(deploymentBody('web', 0, 'app:2')));
    // The old version keeps its pods through scaleDownDelaySeconds: (2,4,2,2,2), as Argo's.
    await waitForRollout(ns, 'web', 'Healthy on the update', promotedFrom(updated));
    assert.deepEqual(deploymentReplicas(deployments), [0]);
  });

  it('canary (replicas 4, maxSurge 1, maxUnavailable 0, 25/50/75) scaled to 8: (8,8,8,8,8); three promotes to Healthy; the Deployment at 0 throughout', async (t) => {
    const steps = [
      { setWeight: 25 },
      { pause: {} },
      { setWeight: 50 },
      { pause: {} },
      { setWeight: 75 },
      { pause: {} },
    ];
    const ns = await migrated('wref-prog-canary', 4, {
      strategy: { canary: { maxSurge: 1, maxUnavailable: 0, steps } },
    });
    const deployments = await watchDeployments(ns);
    t.after(() => deployments.stop());
    await scaleTo(ns, 8);
    const updated = await applyDeployment(ns, withoutReplicas(deploymentBody('web', 0, 'app:2')));
    for (const step of [1, 3, 5]) {
      await waitForRollout(
        ns,
        'web',
        `paused at step ${step}`,
        phase('Paused', (r) => r.status?.currentStepIndex === step),
      );
      await patchStatus(ns, 'web', { pauseConditions: null });
    }
    const done = await waitForRollout(ns, 'web', 'Healthy on the update', promotedFrom(updated));
    assert.deepEqual(counts(done), [8, 8, 8, 8, 8]);
    assert.deepEqual(deploymentReplicas(deployments), [0]);
  });
});

describe('better than Argo', () => {
  it('#4935: a GitOps re-apply of replicas 3 after migration is scaled back; the Rollout is not Healthy until the Deployment is empty', async (t) => {
    const ns = await testNamespace('wref-4935');
    await createService(ns, 'web', 'web');
    await applyDeployment(ns, deploymentBody('web', 2));
    await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(2));
    await createRollout(ns, referencingRollout('web', { replicas: 2 }, { scaleDown: 'onsuccess' }));
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await waitForDeployment(ns, 'web', 'drained', deploymentAt(0));
    const history = await watchRollout(ns, 'web');
    const deployments = await watchDeployments(ns);
    t.after(() => {
      history.stop();
      deployments.stop();
    });
    /** Argo CD syncs Git's Deployment (replicas 3): back at 0, and no Healthy before that. */
    const reapply = async (body: Deployment) => {
      const from = history.mark;
      const fromDeployment = deployments.mark;
      const reapplied = await applyDeployment(ns, body);
      const rolled = await waitForRollout(ns, 'web', 'Healthy again', promotedFrom(reapplied));
      await waitForDeployment(ns, 'web', 'back at 0', deploymentAt(0));
      const events = deployments.events.slice(fromDeployment);
      const emptyTime =
        events
          .slice(events.findIndex((e) => e.object.spec?.replicas === 3))
          .find((e) => e.object.spec?.replicas === 0 && (e.object.status?.replicas ?? 0) === 0)
          ?.at ?? Infinity;
      const writes = history.events.slice(from).filter((e) => e.type === 'MODIFIED');
      const healthy = writes.filter((e) => e.object.status?.phase === 'Healthy');
      assert.ok(healthy.length > 0);
      for (const e of healthy) assert.ok(e.at >= emptyTime, 'Healthy only once it ran no pods');
      assert.equal(rolled.metadata.annotations, undefined, 'nothing written to its metadata');
      return writes.map((e) => e.object.status?.message ?? '');
    };
    // Drift alone (the same template): the Rollout says why it is not Healthy.
    const messages = await reapply(deploymentBody('web', 3));
    assert.ok(
      messages.includes('waiting for Deployment "web" to scale down to 0'),
      messages.join(' | '),
    );
    // The next revision, with Git's replicas again.
    await reapply(deploymentBody('web', 3, 'app:2'));
  });

  it('#4681: blue-green with postPromotionAnalysis and onsuccess drains the Deployment after the first Healthy', async () => {
    const ns = await testNamespace('wref-4681');
    endpoint.answers.set(`${ns}-rate`, { rate: 1 });
    const template: AnalysisTemplate = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'smoke' },
      spec: {
        metrics: [
          {
            name: 'success-rate',
            successCondition: 'result >= 0.95',
            provider: { web: { url: endpoint.url(`${ns}-rate`), jsonPath: '{$.rate}' } },
          },
        ],
      },
    };
    await http.json(
      'POST',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/analysistemplates`,
      template,
    );
    await createService(ns, 'web', 'web');
    await applyDeployment(ns, deploymentBody('web', 2));
    await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(2));
    await createRollout(
      ns,
      referencingRollout(
        'web',
        {
          replicas: 2,
          strategy: {
            blueGreen: {
              activeService: 'web',
              postPromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
            },
          },
        },
        { scaleDown: 'onsuccess' },
      ),
    );
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await waitForDeployment(ns, 'web', 'drained', deploymentAt(0));
  });
});
