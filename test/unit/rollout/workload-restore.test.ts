// A Rollout whose workloadRef names a Deployment gives it back its pre-migration replicas when
// deleted (argo-rollouts#3855), through our finalizer: added only to such Rollouts, taken off
// once the Deployment is restored, never holding a deletion whose Deployment is gone. Named rows,
// Rollout in, steps out; inputs deep-frozen.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  RESTORE_WORKLOAD_FINALIZER,
} from '../../../src/api/index.ts';
import type { Rollout } from '../../../src/api/index.ts';
import {
  deploymentRefOf,
  needsDeployment,
  planWorkloadRestore,
} from '../../../src/rollout/index.ts';
import type { DeploymentView, WorkloadStep } from '../../../src/rollout/index.ts';
import { deepFreeze, rolloutFixture, T0 } from '../../fixtures/rollout/sim.ts';

const REF = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', scaleDown: 'onsuccess' };

function rollout(opts: {
  ref?: unknown;
  ours?: boolean;
  deleting?: boolean;
  others?: string[];
  deadline?: number;
}) {
  const base = rolloutFixture(
    opts.deadline === undefined ? {} : { progressDeadlineSeconds: opts.deadline },
  );
  const finalizers = [...(opts.others ?? []), ...(opts.ours ? [RESTORE_WORKLOAD_FINALIZER] : [])];
  const spec = opts.ref === undefined ? base.spec : { ...base.spec, workloadRef: opts.ref };
  return deepFreeze({
    ...base,
    metadata: {
      ...base.metadata,
      ...(finalizers.length > 0 ? { finalizers } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2026-12-01T10:00:00Z' } : {}),
    },
    spec,
  } as Rollout);
}

/** The Deployment; `available` pods (default none), its generation seen unless `unseen`. */
function deployment(
  replicas: number | undefined,
  recorded?: string,
  available = 0,
  unseen = false,
): DeploymentView {
  return deepFreeze({
    metadata: {
      name: 'web',
      generation: 2,
      ...(recorded === undefined
        ? {}
        : { annotations: { [PRE_MIGRATION_REPLICAS_ANNOTATION]: recorded } }),
    },
    spec: replicas === undefined ? {} : { replicas },
    status: { observedGeneration: unseen ? 1 : 2, availableReplicas: available },
  });
}

/** The deletion was asked for at T0 (the fixture's deletionTimestamp). */
const AT = T0 + 2_000;

const kinds = (steps: readonly WorkloadStep[]) =>
  steps.map((s) => (s.kind === 'event' ? `event ${s.type} ${s.reason}` : s.kind));

describe('workloadRef: the finalizer of a live Rollout', () => {
  const rows: [string, Rollout, string[]][] = [
    ['a Deployment ref without our finalizer: add it', rollout({ ref: REF }), ['addFinalizer']],
    ['a Deployment ref with it: nothing', rollout({ ref: REF, ours: true }), []],
    ['no workloadRef: no finalizer, nothing', rollout({}), []],
    ['a ReplicaSet ref: no finalizer', rollout({ ref: { ...REF, kind: 'ReplicaSet' } }), []],
    [
      'a ref of another apiVersion: no finalizer',
      rollout({ ref: { ...REF, apiVersion: 'v9' } }),
      [],
    ],
    ['a ref without a name: no finalizer', rollout({ ref: { kind: 'Deployment' } }), []],
    ['a ref that is not an object: no finalizer', rollout({ ref: 'web' }), []],
    ['the ref removed, ours still on: take it off', rollout({ ours: true }), ['removeFinalizer']],
    ["another manager's finalizer alone: nothing", rollout({ others: ['x.io/keep'] }), []],
  ];
  for (const [name, r, want] of rows) {
    it(name, () => {
      assert.equal(needsDeployment(r), false, 'a live Rollout never reads the Deployment');
      const p = planWorkloadRestore(r, undefined, AT);
      assert.deepEqual(kinds(p.steps), want);
      assert.equal(p.deleting, false);
    });
  }
});

describe('workloadRef: a deletion our finalizer holds', () => {
  const held = rollout({ ref: REF, ours: true, deleting: true });

  it('reads the Deployment only then', () => {
    assert.equal(needsDeployment(held), true);
    assert.equal(needsDeployment(rollout({ ref: REF, deleting: true })), false);
    assert.equal(deploymentRefOf(held), 'web');
  });

  it('scales the Deployment back to the recorded count and says so; the deletion waits for its pods', () => {
    const p = planWorkloadRestore(held, deployment(0, '3'), AT);
    assert.deepEqual(p, {
      steps: [
        { kind: 'scaleDeployment', name: 'web', replicas: 3, record: '3' },
        {
          kind: 'event',
          type: 'Normal',
          reason: 'WorkloadRestored',
          message: 'Scaled Deployment "web" back to 3 replicas, as before the migration',
        },
      ],
      deleting: true,
      requeueAfterMs: 1000,
    });
  });

  it('once that many pods are available: handed back without our record, and the deletion goes', () => {
    assert.deepEqual(planWorkloadRestore(held, deployment(3, '3', 2), AT), {
      steps: [],
      deleting: true,
      requeueAfterMs: 1000,
    });
    assert.deepEqual(planWorkloadRestore(held, deployment(3, '3', 3), AT).steps, [
      { kind: 'scaleDeployment', name: 'web', replicas: 3 },
      { kind: 'removeFinalizer' },
    ]);
    assert.deepEqual(
      kinds(planWorkloadRestore(held, deployment(3, '3', 3, true), AT).steps),
      [],
      'counts of a generation the Deployment controller has not seen yet are not trusted',
    );
  });

  it('pods not available by the progress deadline after the deletion: reported, the deletion goes on', () => {
    const p = planWorkloadRestore(held, deployment(3, '3', 1), T0 + 600_000);
    assert.deepEqual(kinds(p.steps), [
      'event Warning WorkloadNotRestored',
      'scaleDeployment',
      'removeFinalizer',
    ]);
    const [event] = p.steps;
    assert.ok(event?.kind === 'event');
    assert.equal(
      event.message,
      `Deployment "web" has 1 of 3 pods available 600s after the Rollout's deletion (progressDeadlineSeconds): the deletion goes on`,
    );
    const short = rollout({ ref: REF, ours: true, deleting: true, deadline: 5 });
    assert.equal(planWorkloadRestore(short, deployment(3, '3', 1), T0 + 4_700).requeueAfterMs, 300);
    assert.deepEqual(kinds(planWorkloadRestore(short, deployment(3, '3', 1), T0 + 5_000).steps), [
      'event Warning WorkloadNotRestored',
      'scaleDeployment',
      'removeFinalizer',
    ]);
  });

  const rows: [string, DeploymentView | undefined, string[]][] = [
    ['the Deployment already gone: not held', undefined, ['removeFinalizer']],
    [
      'at the recorded count, its pods available: handed back, let go',
      deployment(3, '3', 3),
      ['scaleDeployment', 'removeFinalizer'],
    ],
    [
      'a recorded 0 at 2 (scaled by hand since): back to 0, nothing to wait for',
      deployment(2, '0'),
      ['scaleDeployment', 'event Normal WorkloadRestored', 'removeFinalizer'],
    ],
    [
      'unset replicas count as 1: a recorded 1 with its pod up is handed back, no event',
      deployment(undefined, '1', 1),
      ['scaleDeployment', 'removeFinalizer'],
    ],
    [
      'nothing recorded (scaleDown: never): not held, untouched',
      deployment(2),
      ['removeFinalizer'],
    ],
    [
      'a record that is not a count: reported, untouched, not held',
      deployment(0, 'three'),
      ['event Warning WorkloadNotRestored', 'removeFinalizer'],
    ],
    [
      'a negative record: reported',
      deployment(0, '-1'),
      ['event Warning WorkloadNotRestored', 'removeFinalizer'],
    ],
    [
      'a record past int32: reported',
      deployment(0, '2147483648'),
      ['event Warning WorkloadNotRestored', 'removeFinalizer'],
    ],
    [
      'a record with a leading zero or space: reported',
      deployment(0, ' 03'),
      ['event Warning WorkloadNotRestored', 'removeFinalizer'],
    ],
  ];
  for (const [name, d, want] of rows) {
    it(name, () => assert.deepEqual(kinds(planWorkloadRestore(held, d, AT).steps), want));
  }

  it('the warning names the Deployment, the annotation and the value', () => {
    const [event] = planWorkloadRestore(held, deployment(0, 'three'), AT).steps;
    assert.ok(event?.kind === 'event');
    assert.match(event.message, /Deployment "web" not restored: .*pre-migration-replicas.*"three"/);
  });

  it('a ref removed before the deletion: the finalizer goes, the Deployment is not read', () => {
    const r = rollout({ ours: true, deleting: true });
    assert.equal(needsDeployment(r), false);
    assert.deepEqual(kinds(planWorkloadRestore(r, undefined, AT).steps), ['removeFinalizer']);
  });

  it('a deletion without our finalizer: no steps, and the usual plan still stops', () => {
    const p = planWorkloadRestore(rollout({ ref: REF, deleting: true }), undefined, AT);
    assert.deepEqual(p, { steps: [], deleting: true });
    const plain = planWorkloadRestore(
      rollout({ deleting: true, others: ['x.io/keep'] }),
      undefined,
      AT,
    );
    assert.deepEqual(plain, { steps: [], deleting: true });
  });
});
