// Deleting a Rollout releases the Services it pinned (as Argo's service controller does): our
// pod-template hash and our managed-by mark leave them, so a Deployment that takes over (or
// nothing) is not left behind a selector for pods that are gone. Canary and blue-green.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Service } from '../../src/api/index.ts';
import { MANAGED_BY_ANNOTATION, POD_TEMPLATE_HASH_LABEL } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  createRollout,
  createService,
  http,
  installCrds,
  phase,
  rolloutBody,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';
import type { RolloutSpec } from '../../src/api/index.ts';

let controller: ControllerProcess;

before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

const released = (svc: Service): boolean =>
  JSON.stringify(svc.spec?.selector) === JSON.stringify({ app: 'web' }) &&
  svc.metadata?.annotations?.[MANAGED_BY_ANNOTATION] === undefined;

async function deletedReleases(
  prefix: string,
  services: string[],
  strategy: RolloutSpec['strategy'],
) {
  const ns = await testNamespace(prefix);
  for (const name of services) await createService(ns, name, 'web');
  await createRollout(ns, rolloutBody('web', { replicas: 2, strategy }));
  const healthy = await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  for (const name of services) {
    const pinned = await waitFor<Service>(
      `${name} pinned`,
      `/api/v1/namespaces/${ns}/services`,
      name,
      (s) => s.spec?.selector?.[POD_TEMPLATE_HASH_LABEL] === healthy.status?.stableRS,
    );
    assert.equal(pinned.metadata?.annotations?.[MANAGED_BY_ANNOTATION], 'web');
  }
  await http.json('DELETE', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/web`);
  for (const name of services) {
    const svc = await waitFor<Service>(
      `${name} released`,
      `/api/v1/namespaces/${ns}/services`,
      name,
      released,
      10_000,
    );
    assert.ok(released(svc));
  }
}

describe('deleting a Rollout releases its Services', () => {
  it('canary: the canary and stable Services lose our hash and mark within 10 s', async () => {
    await deletedReleases('release-canary', ['web-canary', 'web-stable'], {
      canary: {
        canaryService: 'web-canary',
        stableService: 'web-stable',
        steps: [{ setWeight: 50 }],
      },
    });
  });

  it('blue-green: the active and preview Services lose our hash and mark within 10 s', async () => {
    await deletedReleases('release-bluegreen', ['web-active', 'web-preview'], {
      blueGreen: { activeService: 'web-active', previewService: 'web-preview' },
    });
  });
});
