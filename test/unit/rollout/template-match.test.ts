// An undone template (a ReplicaSet's template copied back into spec with the API server's
// defaults) is that ReplicaSet's own: no new revision, and for blue-green inside the scale-down
// delay a fast rollback (Argo's FindNewReplicaSet).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import { POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION } from '../../../src/api/index.ts';
import type { PodTemplateSpec, ReplicaSet } from '../../../src/api/index.ts';
import { declaredTemplate } from '../../../src/rollout/template-match.ts';

/** What the API server stores of a ReplicaSet's template: its defaults filled in. */
function defaulted(s: Sim): void {
  for (const rs of s.replicaSets.values()) {
    for (const c of rs.spec?.template?.spec?.containers ?? []) {
      c.imagePullPolicy ??= 'IfNotPresent';
      c.terminationMessagePath ??= '/dev/termination-log';
    }
  }
}

const ofRevision = (s: Sim, revision: number): ReplicaSet | undefined =>
  [...s.replicaSets.values()].find(
    (rs) => rs.metadata?.annotations?.[REVISION_ANNOTATION] === String(revision),
  );

/** What `kubectl stepwise undo` writes: the ReplicaSet's template, less what we added. */
function undoTo(s: Sim, revision: number): void {
  const rs = ofRevision(s, revision);
  s.rollout.spec.template = declaredTemplate(s.rollout, rs?.spec?.template ?? {});
  s.rollout.metadata.generation = (s.rollout.metadata.generation ?? 0) + 1;
}

describe('an undone template is its ReplicaSet’s', () => {
  it('declaredTemplate takes off the hash label, role keys not declared and blue-green’s term only', () => {
    const rollout = rolloutFixture({
      strategy: {
        blueGreen: { activeService: 'a', activeMetadata: { labels: { role: 'active' } } },
      },
    });
    const userTerm = { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'db' } } };
    const ours = {
      topologyKey: 'kubernetes.io/hostname',
      labelSelector: {
        matchExpressions: [{ key: POD_TEMPLATE_HASH_LABEL, operator: 'In', values: ['abc'] }],
      },
    };
    const stored: PodTemplateSpec = {
      metadata: { labels: { app: 'web', role: 'active', [POD_TEMPLATE_HASH_LABEL]: 'abc' } },
      spec: {
        containers: [{ name: 'web', image: 'web:1' }],
        affinity: {
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [userTerm, ours] },
        },
      },
    };
    assert.deepEqual(declaredTemplate(rollout, stored), {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'web', image: 'web:1' }],
        affinity: {
          podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [userTerm] },
        },
      },
    });
  });

  it('canary: undo to an earlier revision reuses its ReplicaSet, no new revision', () => {
    const s = new Sim(rolloutFixture({ strategy: { canary: { steps: [{ setWeight: 50 }] } } }));
    s.run();
    s.setImage('web:2');
    s.run();
    defaulted(s);
    assert.equal(s.rollout.status?.phase, 'Healthy');
    undoTo(s, 1);
    s.run();
    assert.equal(s.replicaSets.size, 2, 'no third ReplicaSet');
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(
      s.rollout.status?.stableRS,
      ofRevision(s, 1)?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL],
    );
    assert.equal(s.run(), 0);
  });

  it('blue-green: undo inside the scale-down delay is a fast rollback (no pause, no analysis)', () => {
    const s = new Sim(
      rolloutFixture({
        replicas: 2,
        strategy: {
          blueGreen: {
            activeService: 'active',
            autoPromotionEnabled: false,
            scaleDownDelaySeconds: 600,
          },
        },
      }),
    );
    s.services.set('active', serviceFixture('active'));
    s.run();
    s.setImage('web:2');
    s.run();
    s.promote();
    s.run();
    defaulted(s);
    const rev1 = ofRevision(s, 1)?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
    undoTo(s, 1);
    s.run();
    assert.equal(s.replicaSets.size, 2);
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(s.services.get('active')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL], rev1);
  });
});
