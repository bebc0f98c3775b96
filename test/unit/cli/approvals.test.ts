// The plugin's approval side, pure: what approve/reject create, when they refuse, what
// `get rollout` says of a pending approval and of the decisions on record, and promote's hint.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalStep, Rollout } from '../../../src/api/index.ts';
import { decideApproval, pendingApproval, pendingText } from '../../../src/cli/approvals.ts';
import { decidePromote } from '../../../src/cli/requests.ts';
import { renderHeader } from '../../../src/cli/render/tree.ts';
import { infoOf } from './views.ts';

const NOW = Date.parse('2026-12-01T10:00:00Z');

function waiting(approval: ApprovalStep, status: Partial<Rollout['status']> = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', generation: 2 },
    spec: {
      selector: {},
      template: {},
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    },
    status: {
      phase: 'Paused',
      message: 'AwaitingApproval',
      observedGeneration: '2',
      currentPodHash: 'abc123',
      stableRS: 'old456',
      currentStepIndex: 1,
      pauseConditions: [{ reason: 'AwaitingApproval', startTime: '2026-12-01T09:50:00Z' }],
      ...status,
    },
  };
}

const alice = { username: 'alice', groups: ['release', 'system:authenticated'] };

describe('approve and reject', () => {
  it('create a RolloutApproval for the step and revision waited at, as the user, owned by the Rollout', () => {
    const d = decideApproval(waiting({}), alice, 'Approve', 'fine', NOW);
    assert.equal(d.kind, 'create');
    if (d.kind !== 'create') return;
    assert.deepEqual(d.body.spec, {
      rolloutName: 'web',
      revision: 'abc123',
      step: 1,
      decision: 'Approve',
      approver: 'alice',
      approverGroups: ['release', 'system:authenticated'],
      comment: 'fine',
    });
    assert.equal(d.body.metadata.generateName, 'web-approve-');
    assert.deepEqual(d.body.metadata.ownerReferences, [
      { apiVersion: 'stepwise.dev/v1alpha1', kind: 'Rollout', name: 'web', uid: 'uid-1' },
    ]);
  });

  it('refuse when the rollout is not waiting for approval, or its spec is not yet observed', () => {
    const notWaiting = waiting({}, { pauseConditions: [], phase: 'Progressing', message: '' });
    const d = decideApproval(notWaiting, alice, 'Approve', undefined, NOW);
    assert.deepEqual(d, {
      kind: 'error',
      message: "rollout 'web' is not waiting for approval (Progressing)",
    });
    const stale = decideApproval(
      waiting({}, { observedGeneration: '1' }),
      alice,
      'Reject',
      '',
      NOW,
    );
    assert.match(stale.kind === 'error' ? stale.message : '', /not yet observed the latest spec/);
  });

  it('promote at an approval step points at approve', () => {
    const d = decidePromote(waiting({}), { full: false });
    assert.equal(d.kind, 'error');
    assert.match(d.message, /waits for approval at step 2; use 'kubectl stepwise approve web'/);
    assert.doesNotMatch(d.message, /--full/, 'no longer advises skipping the approval');
    assert.match(d.message, /approve web --break-glass/);
  });

  it('promote --full refuses while an approval step is at or after the current step', () => {
    const full = decidePromote(waiting({}), { full: true });
    assert.equal(full.kind, 'error');
    assert.match(
      full.message,
      /has an approval step ahead \(step 2\), which a full promotion may not skip/,
    );
    const before = waiting({}, { currentStepIndex: 0, pauseConditions: [] });
    assert.equal(decidePromote(before, { full: true }).kind, 'error');
    const past = waiting({}, { currentStepIndex: 2, pauseConditions: [] });
    assert.deepEqual(decidePromote(past, { full: true }), {
      kind: 'patch',
      status: { promoteFull: true, pauseConditions: null },
      message: "rollout 'web' fully promoted",
    });
  });

  it('approve --break-glass creates an Override, named as such', () => {
    const d = decideApproval(waiting({}), alice, 'Override', undefined, NOW);
    assert.equal(d.kind, 'create');
    if (d.kind !== 'create') return;
    assert.equal(d.body.spec.decision, 'Override');
    assert.equal(d.body.metadata.generateName, 'web-override-');
  });
});

describe('a pending approval, as shown', () => {
  it('says who is asked, how many approved, and the time left', () => {
    const ro = waiting(
      { minApprovals: 2, timeout: '30m', approvers: { users: ['alice', 'dave'] } },
      {
        approvals: [
          {
            step: 1,
            revision: 'abc123',
            decision: 'Approve',
            by: 'alice',
            via: 'plugin',
            at: '2026-12-01T09:55:00Z',
          },
          {
            step: 1,
            revision: 'old456',
            decision: 'Approve',
            by: 'dave',
            via: 'plugin',
            at: '2026-11-30T09:55:00Z',
          },
        ],
      },
    );
    const p = pendingApproval(ro, NOW);
    assert.equal(p?.secondsLeft, 1200);
    assert.deepEqual(p?.approvedBy, ['alice'], 'another revision does not count');
    assert.equal(pendingText(p), 'step 2/3: 1 of 2 from users alice, dave (20m left, then abort)');
    const header = renderHeader(infoOf(ro, [], [], NOW));
    assert.match(header, /Awaiting:\s+step 2\/3: 1 of 2 from users alice, dave/);
    assert.match(
      header,
      /Approvals:\s+step 2: approved by alice via plugin at 2026-12-01T09:55:00Z/,
    );
    assert.doesNotMatch(header, /old456|2026-11-30/);
  });

  it('counts as the controller does: people, this wait only, links as one anonymous approver', () => {
    const record = (by: string, via: 'plugin' | 'slack' | 'link', at: string, person?: string) => ({
      step: 1,
      revision: 'abc123',
      decision: 'Approve' as const,
      by,
      via,
      at,
      ...(person !== undefined ? { person } : {}),
    });
    const ro = waiting(
      { minApprovals: 3, approvers: {} },
      {
        approvals: [
          record('carol', 'plugin', '2026-12-01T09:40:00Z'),
          record('alice', 'plugin', '2026-12-01T09:51:00Z', 'alice'),
          record('U0ALICE1', 'slack', '2026-12-01T09:52:00Z', 'alice'),
          record('link:abc', 'link', '2026-12-01T09:53:00Z'),
          record('U0BOB', 'slack', '2026-12-01T09:54:00Z'),
        ],
      },
    );
    assert.deepEqual(
      pendingApproval(ro, NOW)?.approvedBy,
      ['alice', 'U0BOB'],
      'carol approved in an earlier wait; alice twice is one person; the link does not count',
    );
  });

  it('nothing pending once aborted or past the step', () => {
    assert.equal(pendingApproval(waiting({}, { abort: true }), NOW), undefined);
    assert.equal(pendingApproval(waiting({}, { currentStepIndex: 2 }), NOW), undefined);
  });
});
