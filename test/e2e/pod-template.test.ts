// spec.template on the real control plane: the CRD keeps it schemaless, so the API server accepts
// a misspelt pod field; the controller refuses it as InvalidSpec naming the field's path, before
// any ReplicaSet is tried (which the API server would refuse, leaving only ReplicaSetCreateError).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Container } from '@kubernetes/client-node';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  installCrds,
  patchSpec,
  phase,
  replicaSets,
  rolloutBody,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

let controller: ControllerProcess;

before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

describe('the pod template', () => {
  it('a misspelt container field: InvalidSpec with its path, no ReplicaSet; fixed, it rolls out', async () => {
    const ns = await testNamespace('pod-template');
    const body = rolloutBody('typo', { replicas: 1 });
    const container = { name: 'app', image: 'registry.invalid/app:1' };
    // A container as written, misspelt fields and all (the types would refuse them).
    const template = (c: object) => ({
      ...body.spec.template,
      spec: { containers: [c as V1Container] },
    });
    await createRollout(ns, {
      ...body,
      spec: { ...body.spec, template: template({ ...container, imagePullPolicyy: 'Always' }) },
    });
    const invalid = await waitForRollout(ns, 'typo', 'InvalidSpec', phase('Degraded'));
    assert.equal(
      invalid.status?.message,
      'InvalidSpec: spec.template.spec.containers[0].imagePullPolicyy: unknown field in a Container (did you mean imagePullPolicy?)',
    );
    await waitForEvents(ns, ['InvalidSpec']);
    assert.deepEqual(await replicaSets(ns, 'typo'), []);

    // A merge patch replaces the containers list: the misspelt field goes with it.
    await patchSpec(ns, 'typo', {
      template: template({ ...container, imagePullPolicy: 'Always' }),
    });
    await waitForRollout(ns, 'typo', 'Healthy after the fix', phase('Healthy'));
    assert.equal((await replicaSets(ns, 'typo')).length, 1);
  });
});
