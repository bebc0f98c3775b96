// Resolution of spec.workloadRef, one row per rule: the effective Rollout carries the referent's
// template (and its selector when the Rollout has none), the workloadRef itself is gone from it,
// and each way it cannot be resolved is exactly one problem.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout } from '../../../../src/api/index.ts';
import { resolveWorkload } from '../../../../src/rollout/workload-ref/index.ts';
import type { ObservedWorkload } from '../../../../src/rollout/workload-ref/index.ts';
import { rolloutFixture } from '../../../fixtures/rollout/sim.ts';
import {
  deploymentFixture,
  podTemplate,
  podTemplateReferent,
  referencing,
  replicaSetReferent,
} from './fixtures.ts';

interface Row {
  readonly name: string;
  readonly rollout: Rollout;
  readonly workload?: ObservedWorkload;
  readonly problem?: string | RegExp;
  readonly generation?: string;
}

const rows: readonly Row[] = [
  {
    name: 'an inline template resolves to itself, with no generation',
    rollout: rolloutFixture(),
  },
  {
    name: 'a Deployment gives its template and selector, and its generation',
    rollout: referencing(),
    workload: { object: deploymentFixture(3, 'web:1', 7) },
    generation: '7',
  },
  {
    name: 'a ReplicaSet gives its template and selector',
    rollout: referencing({ kind: 'ReplicaSet', name: 'web-rs' }),
    workload: { object: replicaSetReferent() },
    generation: '4',
  },
  {
    name: 'a PodTemplate gives its template; the Rollout brings the selector',
    rollout: referencing(
      { apiVersion: 'v1', kind: 'PodTemplate', name: 'web-pt' },
      { selector: { matchLabels: { app: 'web' } } },
    ),
    workload: { object: podTemplateReferent() },
    generation: '0',
  },
  {
    name: 'a PodTemplate without a selector on the Rollout: one problem',
    rollout: referencing({ apiVersion: 'v1', kind: 'PodTemplate', name: 'web-pt' }),
    workload: { object: podTemplateReferent() },
    problem: 'spec.selector: must be set (PodTemplate "web-pt" has no selector to take)',
    generation: '0',
  },
  {
    name: 'template and workloadRef together: exactly one problem saying so',
    rollout: rolloutFixture({
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web-deploy' },
    }),
    workload: { object: deploymentFixture() },
    problem:
      'spec.template: must not be set together with spec.workloadRef (the pod template comes from Deployment "web-deploy")',
  },
  {
    name: 'neither a template nor a workloadRef: exactly one problem',
    rollout: (() => {
      const r = referencing();
      const { workloadRef: _w, ...spec } = r.spec;
      return { ...r, spec };
    })(),
    problem: /^spec\.template: must be set, or spec\.workloadRef must name/,
  },
  {
    name: 'the referent is missing: not found, by kind and name',
    rollout: referencing(),
    workload: {},
    problem: 'spec.workloadRef: Deployment "web-deploy" not found',
  },
  {
    name: 'a kind the controller cannot read: says so, not "not found"',
    rollout: referencing(),
    workload: { unreadable: 'the controller cannot list deployments.apps' },
    problem:
      'spec.workloadRef: Deployment "web-deploy" cannot be read: the controller cannot list deployments.apps',
  },
  {
    name: 'nothing observed at all counts as missing',
    rollout: referencing(),
    problem: 'spec.workloadRef: Deployment "web-deploy" not found',
  },
  {
    name: 'an object of another kind is not the referent',
    rollout: referencing(),
    workload: { object: replicaSetReferent() },
    problem: 'spec.workloadRef: Deployment "web-deploy" not found',
  },
  {
    name: 'a kind at the wrong apiVersion',
    rollout: referencing({ apiVersion: 'extensions/v1beta1' }),
    workload: { object: deploymentFixture() },
    problem: 'spec.workloadRef.apiVersion: must be apps/v1 for kind Deployment',
  },
  {
    name: 'scaleDown on a kind that has no replicas to scale',
    rollout: referencing({ kind: 'ReplicaSet', name: 'web-rs', scaleDown: 'onsuccess' }),
    workload: { object: replicaSetReferent() },
    problem:
      'spec.workloadRef.scaleDown: must be never for kind ReplicaSet (only a Deployment is scaled down)',
  },
  {
    name: "the Rollout's own selector must match the referent's labels",
    rollout: referencing({}, { selector: { matchLabels: { app: 'other' } } }),
    workload: { object: deploymentFixture() },
    problem: `spec.selector: must match the labels of Deployment "web-deploy"'s pod template`,
    generation: '1',
  },
];

describe('resolveWorkload', () => {
  for (const row of rows) {
    it(row.name, () => {
      const r = resolveWorkload(row.rollout, row.workload);
      if (row.problem === undefined) {
        assert.ok(r.ok, r.ok ? '' : r.problem);
        assert.equal(r.generation, row.generation);
        assert.equal(r.rollout.spec.workloadRef, undefined, 'the effective Rollout is inline');
        assert.deepEqual(r.rollout.spec.template, podTemplate());
        assert.deepEqual(r.rollout.spec.selector, { matchLabels: { app: 'web' } });
        return;
      }
      assert.equal(r.ok, false);
      if (r.ok) return;
      if (typeof row.problem === 'string') assert.equal(r.problem, row.problem);
      else assert.match(r.problem, row.problem);
      assert.equal(r.generation, row.generation);
    });
  }

  it('never changes the Rollout it was given (no write-back of the template)', () => {
    const rollout = referencing();
    const before = structuredClone(rollout);
    resolveWorkload(rollout, { object: deploymentFixture() });
    assert.deepEqual(rollout, before);
  });
});
