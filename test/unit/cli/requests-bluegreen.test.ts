// promote / promote --full / abort / retry / approve / undo on a blue-green Rollout: no steps,
// the BlueGreenPause before the switch, and the `approval` gate before it, which a full
// promotion may not skip until it is approved (as the status policy refuses).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRecord, ApprovalStep, RolloutStatus } from '../../../src/api/index.ts';
import { decideApproval, pendingApproval } from '../../../src/cli/approvals.ts';
import { renderHeader } from '../../../src/cli/render/tree.ts';
import {
  approvalAhead,
  decideAbort,
  decidePromote,
  decideRetry,
} from '../../../src/cli/requests.ts';
import { decideUndo } from '../../../src/cli/spec-edits.ts';
import type { ReplicaSetLike } from '../../../src/cli/render/objects.ts';
import { NOW, T0, bgHealthy, bgPaused, blueGreenRollout } from './bluegreen-fixtures.ts';
import { infoOf } from './views.ts';

const progressing: RolloutStatus = {
  ...bgPaused,
  phase: 'Progressing',
  message: 'active service cutover pending',
  controllerPause: false,
  pauseConditions: [],
};

describe('promote on blue-green', () => {
  it('at the BlueGreenPause: clears the pause (the switch follows)', () => {
    assert.deepEqual(decidePromote(blueGreenRollout(bgPaused), { full: false }), {
      kind: 'patch',
      status: { pauseConditions: null },
      message: "rollout 'web' promoted",
    });
  });

  it('--full: asks for full promotion (no pause, no analyses) and clears the pause', () => {
    for (const status of [bgPaused, progressing]) {
      assert.deepEqual(decidePromote(blueGreenRollout(status), { full: true }), {
        kind: 'patch',
        status: { promoteFull: true, pauseConditions: null },
        message: "rollout 'web' fully promoted",
      });
    }
  });

  it('healthy on one revision: nothing to promote, with or without --full', () => {
    for (const full of [false, true]) {
      assert.deepEqual(decidePromote(blueGreenRollout(bgHealthy), { full }), {
        kind: 'noop',
        message: "rollout 'web' is already fully promoted",
      });
    }
  });

  it('not paused mid-update: says so in blue-green words (no "step left to skip")', () => {
    const d = decidePromote(blueGreenRollout(progressing), { full: false });
    assert.equal(d.kind, 'error');
    assert.match(d.message, /is not paused before the switch/);
    assert.match(d.message, /promote web --full' to skip the pause and the analyses/);
    assert.doesNotMatch(d.message, /\bsteps?\b/);
  });

  it('is refused while aborted; retry restarts it, abort sets it', () => {
    const aborted = blueGreenRollout({ ...progressing, phase: 'Degraded', abort: true });
    assert.match(decidePromote(aborted, { full: false }).message, /is aborted; use .*retry/);
    assert.deepEqual(decideRetry(aborted), {
      kind: 'patch',
      status: { abort: false },
      message: "rollout 'web' retried",
    });
    assert.deepEqual(decideAbort(blueGreenRollout(bgPaused)), {
      kind: 'patch',
      status: { abort: true },
      message: "rollout 'web' aborted",
    });
    assert.equal(decideAbort(blueGreenRollout(bgHealthy)).kind, 'error');
    assert.equal(decideAbort(aborted).kind, 'noop');
    assert.equal(decideRetry(blueGreenRollout(bgPaused)).kind, 'error');
  });
});

describe('the blue-green approval gate', () => {
  const gate: ApprovalStep = { approvers: { users: ['alice'] }, timeout: '10m' };
  const awaiting: RolloutStatus = {
    ...bgPaused,
    message: 'AwaitingApproval',
    pauseConditions: [{ reason: 'AwaitingApproval', startTime: T0 }],
  };
  const record = (decision: ApprovalRecord['decision'], revision = 'gr33n'): ApprovalRecord => ({
    step: 0,
    revision,
    decision,
    by: 'alice',
    via: 'plugin',
    at: new Date(NOW - 30_000).toISOString(),
  });

  it('is ahead until the controller has passed it (index 0 → 1), as the status policy reads it', () => {
    const ro = (status: RolloutStatus) => blueGreenRollout(status, { approval: gate });
    assert.equal(approvalAhead(ro(progressing)), 'gate ahead (before the switch)');
    assert.equal(approvalAhead(ro(awaiting)), 'gate ahead (before the switch)');
    // Approvals on record do not pass it: the controller does, once they are enough.
    assert.equal(
      approvalAhead(ro({ ...awaiting, currentStepIndex: 0, approvals: [record('Approve')] })),
      'gate ahead (before the switch)',
    );
    assert.equal(approvalAhead(ro({ ...progressing, currentStepIndex: 1 })), undefined);
    assert.equal(approvalAhead(blueGreenRollout(progressing)), undefined, 'no gate configured');
  });

  it('promote --full is refused while the gate is ahead, pointing at approve', () => {
    const d = decidePromote(blueGreenRollout(progressing, { approval: gate }), { full: true });
    assert.equal(d.kind, 'error');
    assert.match(
      d.message,
      /has an approval gate ahead \(before the switch\), which a full promotion may not skip; approve it with 'kubectl stepwise approve web'/,
    );
    const passed = blueGreenRollout(
      { ...progressing, currentStepIndex: 1, approvals: [record('Approve')] },
      { approval: gate },
    );
    assert.equal(decidePromote(passed, { full: true }).kind, 'patch');
    // An aborted one is offered retry only, not --full.
    const aborted = blueGreenRollout({ ...progressing, abort: true }, { approval: gate });
    assert.doesNotMatch(decidePromote(aborted, { full: false }).message, /--full/);
  });

  it('plain promote at the gate is refused: approvers decide', () => {
    const d = decidePromote(blueGreenRollout(awaiting, { approval: gate }), { full: false });
    assert.equal(d.kind, 'error');
    assert.match(
      d.message,
      /waits for approval before the switch; use 'kubectl stepwise approve web'/,
    );
  });

  it('approve names the gate (step 0) and the revision; get rollout shows the wait and the record', () => {
    const ro = blueGreenRollout(awaiting, { approval: gate });
    const d = decideApproval(ro, { username: 'alice', groups: [] }, 'Approve', undefined, NOW);
    assert.equal(d.kind, 'create');
    if (d.kind === 'create') {
      assert.equal(d.body.spec.step, 0);
      assert.equal(d.body.spec.revision, 'gr33n');
    }
    assert.equal(pendingApproval(ro, NOW)?.where, 'before the switch to the new version');
    const header = renderHeader(infoOf(ro, [], [], NOW));
    assert.match(
      header,
      /Awaiting: +before the switch to the new version: 0 of 1 from users alice \(9m left, then abort\)/,
    );
    const recorded = blueGreenRollout(
      { ...progressing, currentStepIndex: 1, approvals: [record('Approve')] },
      { approval: gate },
    );
    assert.match(
      renderHeader(infoOf(recorded, [], [], NOW)),
      /Approvals: +before the switch: approved by alice via plugin/,
    );
    assert.equal(pendingApproval(blueGreenRollout(awaiting), NOW), undefined, 'no gate configured');
  });
});

describe('undo on blue-green', () => {
  const hash = 'rollouts-pod-template-hash';
  const rs = (
    revision: number,
    image: string,
    labels: Record<string, string>,
    spec: object = {},
  ): ReplicaSetLike => ({
    metadata: {
      name: `web-h${revision}`,
      annotations: { 'stepwise.dev/revision': String(revision) },
      ownerReferences: [{ uid: 'uid-web', kind: 'Rollout', name: 'web', controller: true }],
    },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'web', [hash]: `h${revision}`, ...labels } },
        spec: { containers: [{ name: 'web', image }], ...spec },
      } as never,
    },
  });

  it('leaves out the active/preview labels and the anti-affinity term the controller added', () => {
    const ro = blueGreenRollout(bgHealthy, {
      activeMetadata: { labels: { role: 'active' } },
      previewMetadata: { labels: { role: 'preview' } },
      antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} },
    });
    const injected = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchExpressions: [{ key: hash, operator: 'In', values: ['h1'] }] },
              namespaces: ['shop'],
              topologyKey: 'kubernetes.io/hostname',
            },
          ],
        },
      },
    };
    const d = decideUndo(
      ro,
      [
        rs(1, 'nginx:1.24', { role: 'active' }),
        rs(2, 'nginx:1.25', { role: 'preview' }, injected),
        rs(3, 'nginx:1.26', { role: 'active' }),
      ],
      2,
    );
    assert.equal(d.kind, 'patch');
    const body = JSON.stringify(d.kind === 'patch' ? d.patch : {});
    assert.match(body, /nginx:1\.25/);
    assert.doesNotMatch(body, /role|preview|affinity|rollouts-pod-template-hash/);
  });

  it("keeps an anti-affinity of the user's own", () => {
    const own = {
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 10,
              podAffinityTerm: {
                labelSelector: { matchLabels: { app: 'db' } },
                topologyKey: 'zone',
              },
            },
            {
              weight: 50,
              podAffinityTerm: {
                labelSelector: {
                  matchExpressions: [{ key: hash, operator: 'In', values: ['h1'] }],
                },
                topologyKey: 'kubernetes.io/hostname',
              },
            },
          ],
        },
      },
    };
    const d = decideUndo(
      blueGreenRollout(bgHealthy),
      [rs(1, 'nginx:1.24', {}, own), rs(2, 'nginx:1.26', {})],
      1,
    );
    const body = JSON.stringify(d.kind === 'patch' ? d.patch : {});
    assert.match(body, /"app":"db"/);
    assert.doesNotMatch(body, /rollouts-pod-template-hash|"weight":50/);
  });
});
