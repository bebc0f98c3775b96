// A workloadRef Rollout is a fixed point from any state (style.md §6): whatever happened to its
// Deployment (new templates, broken ones, a GitOps re-apply of its replicas, gone and back) and to
// the Rollout (scaled, promoted), passes that observe nothing new stop writing within a few
// passes; and a migrated Deployment is at 0 whenever the Rollout has settled Healthy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Deployment, RolloutSpec, ScaleDownMode } from '../../../../src/api/index.ts';
import { MIGRATED_ANNOTATION } from '../../../../src/api/index.ts';
import { Sim, serviceFixture } from '../../../fixtures/rollout/sim.ts';
import { deploymentFixture, podTemplate, referencing } from './fixtures.ts';

const BROKEN = 'web:broken';
const MAX_PASSES = 4;

type Action =
  | { readonly kind: 'image'; readonly image: string }
  | { readonly kind: 'gitopsReplicas'; readonly n: number }
  | { readonly kind: 'referent'; readonly present: boolean }
  | { readonly kind: 'replicas'; readonly n: number }
  | { readonly kind: 'settle' | 'pass' | 'promote' };

const actions: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('image' as const),
    image: fc.constantFrom('web:2', 'web:3', BROKEN),
  }),
  fc.record({ kind: fc.constant('gitopsReplicas' as const), n: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('referent' as const), present: fc.boolean() }),
  fc.record({ kind: fc.constant('replicas' as const), n: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constantFrom('settle' as const, 'pass' as const, 'promote' as const) }),
);

const strategies: readonly RolloutSpec['strategy'][] = [
  { blueGreen: { activeService: 'active' } },
  { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
  { canary: { maxSurge: 1, maxUnavailable: 0 } },
];

function apply(s: Sim, a: Action, kept: { deployment: Deployment }): void {
  const d = s.deployment() ?? kept.deployment;
  switch (a.kind) {
    case 'image':
      if (d.spec && d.metadata) {
        d.spec.template = podTemplate(a.image);
        d.metadata.generation = (d.metadata.generation ?? 1) + 1;
      }
      break;
    case 'gitopsReplicas':
      if (d.spec && d.metadata && d.spec.replicas !== a.n) {
        d.spec.replicas = a.n;
        d.metadata.generation = (d.metadata.generation ?? 1) + 1;
      }
      break;
    case 'referent':
      s.workload = a.present ? { object: d } : {};
      break;
    case 'replicas':
      s.setReplicas(a.n);
      break;
    case 'settle':
      s.settle();
      break;
    case 'pass':
      s.pass();
      break;
    case 'promote':
      s.promote();
      break;
  }
}

describe('workloadRef fixed points', () => {
  it('from any history, passes over an unchanged world stop writing; a migrated Deployment is 0 when settled Healthy', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<ScaleDownMode>('never', 'onsuccess', 'progressively'),
        fc.constantFrom(...strategies),
        fc.array(actions, { maxLength: 25 }),
        (mode, strategy, history) => {
          const s = new Sim(referencing({ scaleDown: mode }, { strategy }));
          s.services.set('active', serviceFixture('active'));
          s.unreadyImages.add(BROKEN);
          const kept = { deployment: deploymentFixture(2) };
          s.workload = { object: kept.deployment };
          for (const a of history) apply(s, a, kept);
          s.settle();
          let writes = -1;
          for (let i = 0; i < 30 && writes !== 0; i++) {
            s.settle();
            for (let p = 0; p < MAX_PASSES && writes !== 0; p++) writes = s.pass().writes.length;
          }
          assert.equal(
            writes,
            0,
            `no fixed point: ${JSON.stringify(s.pass().writes).slice(0, 800)}`,
          );
          const d = s.deployment();
          if (
            s.rollout.status?.phase === 'Healthy' &&
            d?.metadata?.annotations?.[MIGRATED_ANNOTATION]
          ) {
            assert.equal(d.spec?.replicas, 0);
          }
          if (mode === 'never') assert.equal(d?.metadata?.annotations, undefined);
        },
      ),
      { numRuns: 300 },
    );
  });
});
