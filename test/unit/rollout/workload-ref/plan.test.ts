// A Rollout with spec.workloadRef walked pass by pass in the in-memory cluster, with both
// strategies: Argo's sequence (missing → Degraded with the Service untouched → Healthy with the
// referent's generation → a new Deployment template is a new revision → back inline clears the
// generation), the Deployment's scale-down modes, and where we do better than Argo (#4935: a
// GitOps re-apply of the Deployment's replicas is scaled back at any revision; #4681: blue-green
// with post-promotion analysis drains; capacity never dips while both run).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout, RolloutSpec, ScaleDownMode } from '../../../../src/api/index.ts';
import {
  ConditionType,
  MIGRATED_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  PRE_MIGRATION_REPLICAS_ANNOTATION,
} from '../../../../src/api/index.ts';
import { Sim, serviceFixture } from '../../../fixtures/rollout/sim.ts';
import { deploymentFixture, podTemplate, referencing } from './fixtures.ts';

const blueGreen: RolloutSpec['strategy'] = {
  blueGreen: { activeService: 'active', autoPromotionEnabled: true },
};

function sim(rollout: Rollout, deploymentReplicas = 2): Sim {
  const s = new Sim(rollout);
  s.services.set('active', serviceFixture('active'));
  s.workload = { object: deploymentFixture(deploymentReplicas) };
  return s;
}

const deployed = (s: Sim): number => s.deployment()?.spec?.replicas ?? -1;
const activeHash = (s: Sim): string | undefined =>
  s.services.get('active')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];
const readyOfRollout = (s: Sim): number =>
  [...s.replicaSets.values()].reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);

describe("workloadRef: Argo's TestWorkloadRef sequence", () => {
  const canary: RolloutSpec['strategy'] = { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } };
  const strategies: readonly (readonly [string, RolloutSpec['strategy']])[] = [
    ['blue-green', blueGreen],
    ['canary', canary],
  ];
  for (const [name, strategy] of strategies) {
    it(`${name}: missing → Degraded, Service untouched → created → Healthy "1" → new template "2" → inline: cleared`, () => {
      const s = sim(referencing({}, { replicas: 1, strategy }));
      s.workload = {};
      s.run();
      let status = s.rollout.status ?? {};
      assert.equal(status.phase, 'Degraded');
      assert.equal(
        status.message,
        'InvalidSpec: spec.workloadRef: Deployment "web-deploy" not found',
      );
      assert.equal(s.replicaSets.size, 0);
      assert.deepEqual(s.services.get('active')?.spec?.selector, { app: 'web' });
      assert.ok(s.log.every((w) => w.kind === 'applyStatus' || w.kind === 'event'));

      s.workload = { object: deploymentFixture(1) };
      s.run();
      status = s.rollout.status ?? {};
      assert.equal(status.phase, 'Healthy');
      assert.equal(status.workloadObservedGeneration, '1');
      assert.equal(
        status.conditions?.some((c) => c.type === ConditionType.InvalidSpec),
        false,
      );
      if (name === 'blue-green') assert.equal(activeHash(s), status.currentPodHash);
      assert.equal(s.rollout.spec.template, undefined, 'the template is never written back');
      assert.equal(s.rollout.spec.selector, undefined);

      const first = status.currentPodHash;
      const d = s.deployment();
      if (d?.spec && d.metadata) {
        d.spec.template = podTemplate('web:2');
        d.metadata.generation = 2;
      }
      s.run(100);
      if (name === 'canary') {
        s.promote();
        s.run();
      }
      status = s.rollout.status ?? {};
      assert.equal(status.workloadObservedGeneration, '2');
      assert.notEqual(status.currentPodHash, first, 'a new template is a new revision');
      assert.equal(status.phase, 'Healthy');

      s.workload = {};
      s.run();
      assert.equal(s.rollout.status?.phase, 'Degraded', 'the referent gone again');
      assert.equal(s.rollout.status?.workloadObservedGeneration, '2', 'kept while missing');

      const { workloadRef: _w, ...inline } = s.rollout.spec;
      s.rollout.spec = {
        ...inline,
        selector: { matchLabels: { app: 'web' } },
        template: podTemplate('web:2'),
      };
      s.workload = undefined;
      s.run();
      assert.equal(s.rollout.status?.phase, 'Healthy');
      assert.equal(s.rollout.status?.workloadObservedGeneration, undefined);
      assert.equal(
        s.rollout.status?.currentPodHash,
        status.currentPodHash,
        'same template, same hash',
      );
    });
  }

  it('template and workloadRef together: exactly one InvalidSpec condition, nothing created', () => {
    const s = sim(referencing({}, { strategy: blueGreen, template: podTemplate() }));
    s.run();
    const invalid = (s.rollout.status?.conditions ?? []).filter(
      (c) => c.type === ConditionType.InvalidSpec,
    );
    assert.equal(invalid.length, 1);
    assert.match(
      invalid[0]?.message ?? '',
      /^spec\.template: must not be set together with spec\.workloadRef/,
    );
    assert.equal(invalid[0]?.message.includes(';'), false, 'one message, not a list');
    assert.equal(s.replicaSets.size, 0);
    assert.equal(deployed(s), 2);
  });
});

describe('workloadRef scaleDown', () => {
  const modes: readonly [ScaleDownMode | undefined, number][] = [
    [undefined, 2],
    ['never', 2],
    ['onsuccess', 0],
    ['progressively', 0],
  ];
  for (const [mode, expected] of modes) {
    it(`${mode ?? 'unset'} (replicas 2): the Deployment ends at ${expected}`, () => {
      const s = sim(referencing(mode ? { scaleDown: mode } : {}, { strategy: blueGreen }));
      s.run();
      assert.equal(s.rollout.status?.phase, 'Healthy');
      assert.equal(deployed(s), expected);
      const annotations = s.deployment()?.metadata?.annotations ?? {};
      if (expected === 0) {
        assert.equal(annotations[PRE_MIGRATION_REPLICAS_ANNOTATION], '2');
        assert.equal(annotations[MIGRATED_ANNOTATION], 'true');
      } else {
        assert.deepEqual(annotations, {}, 'never: not touched at all');
      }
      assert.deepEqual(s.pass().writes, [], 'a settled pass writes nothing');
    });
  }

  it('onsuccess: the Rollout never reports Healthy while the Deployment still runs its pods', () => {
    const s = sim(referencing({ scaleDown: 'onsuccess' }, { strategy: blueGreen }), 3);
    const phases: string[] = [];
    for (let i = 0; i < 30; i++) {
      s.settle();
      const writes = s.pass().writes;
      const d = s.deployment();
      if (s.rollout.status?.phase === 'Healthy') phases.push(`Healthy with ${d?.status?.replicas}`);
      if (writes.length === 0) break;
    }
    assert.deepEqual([...new Set(phases)], ['Healthy with 0']);
    assert.equal(s.deployment()?.metadata?.annotations?.[PRE_MIGRATION_REPLICAS_ANNOTATION], '3');
  });

  it('progressively: ready capacity across both never drops below spec.replicas', () => {
    const s = sim(
      referencing({ scaleDown: 'progressively' }, { replicas: 3, strategy: blueGreen }),
      3,
    );
    // The Rollout's pods become ready one per pass (the sim would make them all ready at once).
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      s.settle();
      for (const rs of s.replicaSets.values()) {
        const ready = Math.min(rs.spec?.replicas ?? 0, i);
        rs.status = {
          replicas: rs.spec?.replicas ?? 0,
          readyReplicas: ready,
          availableReplicas: ready,
        };
      }
      s.pass();
      const capacity = readyOfRollout(s) + (s.deployment()?.status?.readyReplicas ?? 0);
      seen.push(deployed(s));
      assert.ok(capacity >= 3, `pass ${i}: ${capacity} ready pods across both`);
    }
    assert.deepEqual([...new Set(seen)], [3, 2, 1, 0], 'down one by one');
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });

  it('#4935: a GitOps re-apply of replicas 3 after migration is scaled back in the next revision, never Healthy meanwhile', () => {
    const s = sim(referencing({ scaleDown: 'onsuccess' }, { strategy: blueGreen }), 2);
    s.run();
    assert.equal(deployed(s), 0);
    const d = s.deployment();
    if (d?.spec) d.spec.replicas = 3;
    if (d?.metadata) d.metadata.generation = (d.metadata.generation ?? 1) + 1;
    if (d?.spec) d.spec.template = podTemplate('web:2');
    s.settle();
    const plan = s.pass();
    assert.ok(plan.writes.some((w) => w.kind === 'scaleWorkload' && w.body.spec?.replicas === 0));
    assert.notEqual(s.rollout.status?.phase, 'Healthy');
    s.run();
    assert.equal(deployed(s), 0);
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(
      s.deployment()?.metadata?.annotations?.[PRE_MIGRATION_REPLICAS_ANNOTATION],
      '2',
      'the count before migration, not the re-applied one',
    );
  });

  it('progressively after migration: scaling the Rollout to 6 and to 2 keeps the Deployment at 0 (#4321)', () => {
    const s = sim(
      referencing({ scaleDown: 'progressively' }, { replicas: 3, strategy: blueGreen }),
      3,
    );
    s.run();
    assert.equal(deployed(s), 0);
    for (const replicas of [6, 2]) {
      s.setReplicas(replicas);
      s.podsBecomeReady = true;
      for (let i = 0; i < 20; i++) {
        s.settle();
        if (s.pass().writes.length === 0) break;
        assert.equal(deployed(s), 0);
      }
      const st = s.rollout.status ?? {};
      assert.deepEqual(
        [st.replicas, st.readyReplicas, st.availableReplicas],
        [replicas, replicas, replicas],
      );
    }
  });

  it('#4681: blue-green with post-promotion analysis and onsuccess drains after the first Healthy', () => {
    const s = sim(
      referencing(
        { scaleDown: 'onsuccess' },
        {
          strategy: {
            blueGreen: {
              activeService: 'active',
              postPromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
            },
          },
        },
      ),
      2,
    );
    s.analysisTemplates.set('smoke', {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'smoke', namespace: 'ns' },
      spec: {
        metrics: [
          {
            name: 'smoke',
            provider: { prometheus: { address: 'http://127.0.0.1:9090', query: 'up' } },
          },
        ],
      },
    });
    s.run();
    for (const [name, run] of s.analysisRuns) if (!run.status) s.setRunPhase(name, 'Successful');
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(deployed(s), 0);
  });
});

describe("workloadRef: the referent's template is the API server's to check", () => {
  it('a Deployment template field unknown to our models does not make the Rollout InvalidSpec', () => {
    const s = sim(referencing({}, { replicas: 1, strategy: blueGreen }));
    const deployment = deploymentFixture(1);
    const podSpec = deployment.spec?.template.spec;
    assert.ok(podSpec);
    // A field a newer Kubernetes knows and client-node's models do not.
    Object.assign(podSpec, { fieldFromAFutureRelease: true });
    s.workload = { object: deployment };
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(s.replicaSets.size, 1);
  });
});
