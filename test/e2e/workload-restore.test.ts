// argo-rollouts#3855 against the local control plane: deleting a Rollout whose workloadRef took
// over a Deployment gives that Deployment back the replicas it had before the migration (recorded
// on it when it was first scaled down), within 10 s, so removing Stepwise never leaves the app at
// 0 pods. The deletion waits for it, and for its pods, through our finalizer (only on Rollouts
// with a workloadRef), which an Argo CD apply of the Rollout leaves alone; a Deployment already
// gone holds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import {
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  RESTORE_WORKLOAD_FINALIZER,
} from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  createService,
  events,
  http,
  installCrds,
  phase,
  waitForRollout,
} from './support/rollouts.ts';
import { ARGOCD, applyAs } from './support/traffic.ts';
import type { Obj } from '../fixtures/traffic.ts';
import {
  applyDeployment,
  deploymentAt,
  deploymentBody,
  getDeployment,
  referencingRollout,
  waitForDeployment,
} from './support/workloads.ts';
import { withInstanceLabel } from './support/isolation.ts';

const ROLLOUTS = (ns: string) => `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts`;
const RESTORED_WITHIN_MS = 10_000;

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

const held = (r: Rollout): boolean =>
  (r.metadata.finalizers ?? []).includes(RESTORE_WORKLOAD_FINALIZER);

/** A Deployment of 3 taken over by a Rollout of 3 (canary, scaleDown: onsuccess): Healthy, the
 *  Deployment at 0 with its 3 recorded, as the migration leaves it. */
async function migrated(prefix: string): Promise<{ ns: string; manifest: Rollout }> {
  const ns = await testNamespace(prefix);
  await createService(ns, 'web', 'web');
  await applyDeployment(ns, deploymentBody('web', 3));
  await waitForDeployment(ns, 'web', 'Deployment at 3', deploymentAt(3));
  const manifest = referencingRollout(
    'web',
    { replicas: 3, strategy: { canary: { stableService: 'web', steps: [{ setWeight: 50 }] } } },
    { scaleDown: 'onsuccess' },
  );
  await createRollout(ns, manifest);
  const healthy = await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  assert.ok(held(healthy), 'our finalizer is on');
  const drained = await waitForDeployment(ns, 'web', 'Deployment drained', deploymentAt(0));
  assert.equal(drained.metadata?.annotations?.[PRE_MIGRATION_REPLICAS_ANNOTATION], '3');
  return { ns, manifest };
}

/** Deletes the Rollout; its `gone` resolves when the Rollout is gone (a watch opened
 *  before the DELETE sees the DELETED event), or rejects after `ms`. */
async function deleteRollout(ns: string, ms = 30_000): Promise<{ gone: Promise<void> }> {
  let done = (): void => undefined;
  const gone = new Promise<void>((resolve) => (done = resolve));
  const watch = await http.watch(`${ROLLOUTS(ns)}?fieldSelector=metadata.name%3Dweb`, (e) => {
    if (e.type === 'DELETED') done();
  });
  await http.json('DELETE', `${ROLLOUTS(ns)}/web`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the Rollout was not gone within ${ms} ms`)), ms);
  });
  return {
    gone: Promise.race([gone, late]).finally(() => {
      clearTimeout(timer);
      watch.close();
    }),
  };
}

describe('deleting a Rollout that took over a Deployment (argo-rollouts#3855)', () => {
  it('the Deployment gets its 3 replicas back within 10 s, then the Rollout goes', async () => {
    const { ns, manifest } = await migrated('restore');
    // Argo CD syncs the Rollout from Git (forced, no finalizers in Git): ours stays.
    const synced = await applyAs<Rollout>(ARGOCD, ns, {
      ...(withInstanceLabel(ns, manifest) as unknown as Obj),
    });
    assert.ok(held(synced), 'a GitOps apply of the Rollout leaves our finalizer');
    const started = Date.now();
    const { gone } = await deleteRollout(ns, RESTORED_WITHIN_MS);
    const restored = await waitForDeployment(
      ns,
      'web',
      'Deployment back at 3',
      (d) => d.spec?.replicas === 3,
      RESTORED_WITHIN_MS,
    );
    assert.equal(restored.spec?.replicas, 3);
    await gone;
    assert.ok(Date.now() - started < RESTORED_WITHIN_MS, 'restored and gone within 10 s');
    // The Rollout went only once the Deployment's pods were up: the app was never without them.
    const now = await getDeployment(ns, 'web');
    assert.equal(now.status?.availableReplicas, 3);
    // Handed back: none of our annotations left on it (the scale-down wrote them as ours).
    const ours = Object.keys(now.metadata?.annotations ?? {}).filter((k) =>
      k.startsWith('stepwise.dev/'),
    );
    assert.deepEqual(ours, []);
    const reasons = (await events(ns)).map((e) => e.reason);
    assert.ok(reasons.includes('WorkloadRestored'), `events: ${reasons.join(', ')}`);
  });

  it('a Deployment already gone does not hold the deletion', async () => {
    const { ns } = await migrated('restore-gone');
    await http.json('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    const { gone } = await deleteRollout(ns, RESTORED_WITHIN_MS);
    await gone;
    await assert.rejects(getDeployment(ns, 'web'), 'nothing re-created it');
  });
});
