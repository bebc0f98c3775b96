// Switching a Rollout between canary and blue-green: the Services the new strategy no longer
// names are given back (our hash and our mark leave them), so none stays pinned to a version
// nothing keeps; the Services it still names are pinned as its own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../../fixtures/rollout/sim.ts';
import { MANAGED_BY_ANNOTATION, POD_TEMPLATE_HASH_LABEL } from '../../../../src/api/index.ts';

const selectorOf = (s: Sim, name: string): Record<string, string> | undefined =>
  s.services.get(name)?.spec?.selector;

describe('switching strategies', () => {
  it('blue-green → canary without Services (Argo TestBlueGreenToCanary): selectors back to exactly {app}', () => {
    const s = new Sim(
      rolloutFixture({
        replicas: 2,
        strategy: { blueGreen: { activeService: 'active', previewService: 'preview' } },
      }),
    );
    s.services.set('active', serviceFixture('active'));
    s.services.set('preview', serviceFixture('preview'));
    s.run();
    assert.ok(selectorOf(s, 'active')?.[POD_TEMPLATE_HASH_LABEL]);
    s.rollout.spec.strategy = { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } };
    s.setImage('web:2');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.deepEqual(selectorOf(s, 'active'), { app: 'web' });
    assert.deepEqual(selectorOf(s, 'preview'), { app: 'web' });
    assert.equal(
      s.services.get('active')?.metadata?.annotations?.[MANAGED_BY_ANNOTATION],
      undefined,
    );
    assert.ok(s.events().some((e) => e.startsWith("SwitchService: Released service 'active'")));
    assert.equal(s.run(), 0, 'a release is written once');
  });

  it('canary → blue-green: the canary Service is released, the shared stable/active one pinned to the stable', () => {
    const s = new Sim(
      rolloutFixture({
        replicas: 2,
        strategy: {
          canary: { canaryService: 'canary', stableService: 'web', steps: [{ setWeight: 50 }] },
        },
      }),
    );
    s.services.set('canary', serviceFixture('canary'));
    s.services.set('web', serviceFixture('web'));
    s.run();
    const stable = s.rollout.status?.stableRS;
    assert.equal(selectorOf(s, 'canary')?.[POD_TEMPLATE_HASH_LABEL], stable);
    s.rollout.spec.strategy = { blueGreen: { activeService: 'web' } };
    s.run();
    assert.deepEqual(selectorOf(s, 'canary'), { app: 'web' });
    assert.equal(selectorOf(s, 'web')?.[POD_TEMPLATE_HASH_LABEL], stable);
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });
});
