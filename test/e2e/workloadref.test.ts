// spec.workloadRef against the local control plane (issue 22 item 2, Argo's TestWorkloadRef,
// TestWorkloadRefTemplate, TestScaleDownOnSuccess/Progressively, TestNeverScaleDown): the
// template is read from the user's Deployment on every pass and never written into the Rollout;
// a missing referent is Degraded with the Service left alone; the referent's generation is in
// status.workloadObservedGeneration only; scaleDown takes the Deployment to 0 (or leaves it).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Rollout, ScaleDownMode } from '../../src/api/index.ts';
import {
  FIELD_MANAGER,
  MANAGED_BY_ANNOTATION,
  MIGRATED_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  PRE_MIGRATION_REPLICAS_ANNOTATION,
} from '../../src/api/index.ts';
import { FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { stopWatches } from './support/history.ts';
import {
  createRollout,
  createService,
  getRollout,
  getService,
  http,
  installCrds,
  patchSpec,
  phase,
  replicaSets,
  waitForRollout,
} from './support/rollouts.ts';
import {
  applyDeployment,
  deploymentAt,
  deploymentBody,
  getDeployment,
  referencingRollout,
  waitForDeployment,
} from './support/workloads.ts';

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());
afterEach(() => stopWatches());

const degraded =
  (message: string | RegExp) =>
  (r: Rollout): boolean =>
    r.status?.phase === 'Degraded' &&
    (typeof message === 'string'
      ? (r.status.message ?? '').includes(message)
      : message.test(r.status.message ?? ''));

describe("workloadRef: Argo's TestWorkloadRef sequence (blue-green, replicas 1)", () => {
  it('missing → Degraded, Service untouched → created → Healthy "1", pinned → bad image → Degraded "2" → fixed → Healthy → inline: cleared', async () => {
    const ns = await testNamespace('wref');
    await createService(ns, 'web', 'web');
    await createRollout(ns, referencingRollout('web', { progressDeadlineSeconds: 10 }));

    await waitForRollout(ns, 'web', 'Degraded: not found', degraded('Deployment "web" not found'));
    assert.deepEqual((await getService(ns, 'web')).spec?.selector, { app: 'web' });
    assert.deepEqual(await replicaSets(ns, 'web'), []);

    await applyDeployment(ns, deploymentBody('web', 1));
    let r = await waitForRollout(
      ns,
      'web',
      'Healthy with generation 1',
      phase('Healthy', (x) => x.status?.workloadObservedGeneration === '1'),
    );
    assert.equal(r.spec.template, undefined, 'the template is never written into the Rollout');
    assert.equal(r.spec.selector, undefined);
    assert.equal(r.metadata.annotations, undefined, 'no write to the Rollout’s metadata');
    assert.deepEqual((await getService(ns, 'web')).spec?.selector, {
      app: 'web',
      [POD_TEMPLATE_HASH_LABEL]: r.status?.currentPodHash,
    });
    const first = r.status?.currentPodHash;

    const bad = deploymentBody('web', 1, 'app:2');
    const labels = bad.spec?.template.metadata?.labels;
    if (labels) labels[FAULT_LABEL] = NEVER_READY;
    await applyDeployment(ns, bad);
    r = await waitForRollout(
      ns,
      'web',
      'Degraded on the bad template, generation 2',
      (x) =>
        degraded(/^ProgressDeadlineExceeded/)(x) && x.status?.workloadObservedGeneration === '2',
    );
    assert.notEqual(r.status?.currentPodHash, first);
    assert.equal((await getService(ns, 'web')).spec?.selector?.[POD_TEMPLATE_HASH_LABEL], first);

    await applyDeployment(ns, deploymentBody('web', 1, 'app:3'));
    r = await waitForRollout(
      ns,
      'web',
      'Healthy on the fixed template, generation 3',
      phase('Healthy', (x) => x.status?.workloadObservedGeneration === '3'),
    );
    assert.equal(
      (await getService(ns, 'web')).spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      r.status?.currentPodHash,
    );

    await http.json('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    await waitForRollout(ns, 'web', 'Degraded: gone', degraded('Deployment "web" not found'));
    await applyDeployment(ns, deploymentBody('web', 1, 'app:3'));
    await waitForRollout(ns, 'web', 'Healthy: back', phase('Healthy'));

    await patchSpec(ns, 'web', {
      workloadRef: null,
      selector: { matchLabels: { app: 'web' } },
      template: deploymentBody('web', 1, 'app:3').spec?.template,
    });
    await waitForRollout(
      ns,
      'web',
      'Healthy inline, generation cleared',
      phase('Healthy', (x) => x.status?.workloadObservedGeneration === undefined),
    );
  });

  it('template and workloadRef together: exactly one InvalidSpec condition saying so', async () => {
    const ns = await testNamespace('wref-both');
    await createService(ns, 'web', 'web');
    await applyDeployment(ns, deploymentBody('web', 1));
    const body = referencingRollout('web', {
      selector: { matchLabels: { app: 'web' } },
      template: deploymentBody('web', 1).spec?.template,
    });
    await createRollout(ns, body);
    const r = await waitForRollout(ns, 'web', 'InvalidSpec', degraded('InvalidSpec'));
    const invalid = (r.status?.conditions ?? []).filter((c) => c.type === 'InvalidSpec');
    assert.equal(invalid.length, 1);
    assert.equal(
      invalid[0]?.message,
      'spec.template: must not be set together with spec.workloadRef (the pod template comes from Deployment "web")',
    );
    const ours = (await replicaSets(ns, 'web')).filter(
      (rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] !== undefined,
    );
    assert.deepEqual(ours, [], 'nothing created (the Deployment’s own ReplicaSet aside)');
  });
});

describe('workloadRef to a PodTemplate', () => {
  it('the Rollout runs the PodTemplate’s template with its own selector; a change to it is a new revision', async () => {
    const ns = await testNamespace('wref-podtemplate');
    const podTemplate = (image: string) => ({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 'web' },
      template: deploymentBody('web', 1, image).spec?.template,
    });
    await http.json(
      'PATCH',
      `/api/v1/namespaces/${ns}/podtemplates/web?fieldManager=argocd-controller&force=true`,
      podTemplate('app:1'),
      'application/apply-patch+yaml',
    );
    await createRollout(
      ns,
      referencingRollout(
        'web',
        {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
        },
        { apiVersion: 'v1', kind: 'PodTemplate' },
      ),
    );
    const first = await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await http.json(
      'PATCH',
      `/api/v1/namespaces/${ns}/podtemplates/web?fieldManager=argocd-controller&force=true`,
      podTemplate('app:2'),
      'application/apply-patch+yaml',
    );
    const second = await waitForRollout(
      ns,
      'web',
      'Healthy on the new template',
      phase(
        'Healthy',
        (r) =>
          r.status?.currentPodHash !== first.status?.currentPodHash &&
          r.status?.stableRS === r.status?.currentPodHash,
      ),
    );
    const images = (await replicaSets(ns, 'web'))
      .filter((rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === second.status?.stableRS)
      .map((rs) => rs.spec?.template?.spec?.containers[0]?.image);
    assert.deepEqual(images, ['registry.invalid/app:2']);
  });
});

describe('workloadRef scaleDown (replicas 2)', () => {
  const modes: readonly [ScaleDownMode, number][] = [
    ['onsuccess', 0],
    ['progressively', 0],
    ['never', 2],
  ];
  for (const [mode, expected] of modes) {
    it(`${mode}: the Deployment ends at ${expected}`, async () => {
      const ns = await testNamespace(`wref-${mode}`);
      await createService(ns, 'web', 'web');
      await applyDeployment(ns, deploymentBody('web', 2));
      await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(2));
      await createRollout(ns, referencingRollout('web', { replicas: 2 }, { scaleDown: mode }));
      await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
      const d = await waitForDeployment(
        ns,
        'web',
        `Deployment at ${expected}`,
        deploymentAt(expected),
      );
      const annotations = d.metadata?.annotations ?? {};
      if (expected === 2) {
        assert.equal(annotations[MANAGED_BY_ANNOTATION], undefined, 'never: not touched');
        return;
      }
      assert.equal(annotations[PRE_MIGRATION_REPLICAS_ANNOTATION], '2');
      assert.equal(annotations[MIGRATED_ANNOTATION], 'true');
      assert.equal(annotations[MANAGED_BY_ANNOTATION], 'web');
      const ours = d.metadata?.managedFields?.find((f) => f.manager === FIELD_MANAGER);
      assert.equal(ours?.operation, 'Apply', 'server-side apply, not an update');
      const r = await getRollout(ns, 'web');
      assert.equal(r.status?.phase, 'Healthy');
      assert.equal((await getDeployment(ns, 'web')).spec?.replicas, 0);
    });
  }
});
