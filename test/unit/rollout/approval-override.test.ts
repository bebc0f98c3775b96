// Break-glass in the planner: a RolloutApproval with decision Override (the API server admitted it
// only from a holder of the break-glass right) passes the approval step without its approvers,
// and the record and the Event name who did it. A rejection still wins.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';
import type { ApprovalRecord, ApprovalStep } from '../../../src/api/index.ts';
import { judgeApproval, recordEvent } from '../../../src/rollout/approval.ts';

/** A sim waiting at its approval step (index 1 of 3) for revision web:2. */
function waiting(approval: ApprovalStep): Sim {
  const sim = new Sim(
    rolloutFixture({
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    }),
  );
  sim.run();
  sim.setImage('web:2');
  sim.run();
  return sim;
}

const record = (decision: ApprovalRecord['decision'], by: string): ApprovalRecord => ({
  step: 1,
  revision: 'h',
  decision,
  by,
  via: 'plugin',
  at: '2026-12-01T00:00:00Z',
});

describe('break-glass override', () => {
  it('passes the step without its approvers, recorded and announced with the user', () => {
    const sim = waiting({ minApprovals: 2, approvers: { users: ['alice', 'bob'] } });
    const hash = sim.rollout.status?.currentPodHash ?? '';
    const name = sim.decide('Override', 'oncall', { comment: 'outage fix' });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy', 'went on through setWeight 50 to the end');
    assert.deepEqual(
      status.approvals?.map((r) => [r.decision, r.by, r.via, r.step, r.revision, r.ref]),
      [['Override', 'oncall', 'plugin', 1, hash, `RolloutApproval/${name}`]],
    );
    assert.equal(sim.approvals.get(name)?.status?.phase, 'Recorded');
    const events = sim.events();
    assert.ok(
      events.includes(
        `ApprovalOverridden: Approval overridden (break-glass) by oncall via plugin at step 2 of revision ${hash}: outage fix`,
      ),
      events.join('\n'),
    );
    assert.ok(
      events.includes('RolloutResumed: Rollout is resumed (approval overridden by oncall)'),
    );
  });

  it('is refused like any decision when the rollout does not wait at that step and revision', () => {
    const sim = waiting({ approvers: { users: ['alice'] } });
    const name = sim.decide('Override', 'oncall', { step: 0 });
    sim.run();
    assert.equal(sim.approvals.get(name)?.status?.reason, 'WrongStep');
    assert.equal(sim.rollout.status?.message, 'AwaitingApproval');
    assert.deepEqual(sim.rollout.status?.approvals ?? [], []);
  });

  it('an approver whose approval did not suffice may still override, once', () => {
    const sim = waiting({ minApprovals: 2, approvers: { users: ['alice', 'bob'] } });
    sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(sim.rollout.status?.message, 'AwaitingApproval');
    const override = sim.decide('Override', 'alice');
    const again = sim.decide('Override', 'alice');
    sim.run();
    assert.equal(sim.approvals.get(override)?.status?.phase, 'Recorded');
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(
      sim.rollout.status?.approvals?.map((r) => [r.decision, r.by]),
      [
        ['Approve', 'alice'],
        ['Override', 'alice'],
      ],
    );
    assert.equal(sim.approvals.get(again)?.status?.phase, 'Refused');
  });

  it('judge: an override approves, a rejection still wins over it', () => {
    const wait = { step: { minApprovals: 3 }, index: 1, hash: 'h' };
    assert.deepEqual(judgeApproval(wait, [record('Override', 'oncall')], 0, 1), {
      kind: 'approved',
      by: ['oncall'],
      overridden: true,
    });
    const both = [record('Override', 'oncall'), record('Reject', 'alice')];
    assert.equal(judgeApproval(wait, both, 0, 1).kind, 'rejected');
    const otherRevision = { ...record('Override', 'oncall'), revision: 'x' };
    assert.equal(judgeApproval(wait, [otherRevision], 0, 1).kind, 'waiting');
  });

  it('its event is a Warning that names the user', () => {
    const e = recordEvent(record('Override', 'oncall'));
    assert.equal(e.type, 'Warning');
    assert.equal(e.reason, 'ApprovalOverridden');
    assert.match(e.message, /by oncall/);
  });
});
