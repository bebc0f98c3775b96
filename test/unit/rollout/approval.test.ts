// Approval steps in the planner: who may decide, what each decision does, the timeout, and what
// the Rollout and the RolloutApprovals say at each point.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';
import type { ApprovalRecord, ApprovalStep, RolloutSpec } from '../../../src/api/index.ts';
import { MAX_APPROVAL_RECORDS } from '../../../src/api/index.ts';
import { anyoneMay, judgeApproval, pruneRecords } from '../../../src/rollout/approval.ts';
import { admits } from '../../../src/rollout/approval-people.ts';
import type { Approvers } from '../../../src/api/index.ts';
import { specProblems } from '../../../src/rollout/validate.ts';

const MINUTE = 60_000;

function withApproval(approval: ApprovalStep, extra: Partial<RolloutSpec> = {}): Sim {
  const sim = new Sim(
    rolloutFixture({
      strategy: {
        canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] },
      },
      ...extra,
    }),
  );
  sim.run();
  return sim;
}

/** A sim waiting at its approval step (index 1 of 3) for revision web:2. */
function waiting(approval: ApprovalStep = {}): Sim {
  const sim = withApproval(approval);
  sim.setImage('web:2');
  sim.run();
  return sim;
}

const paused = (sim: Sim) => sim.rollout.status?.conditions?.find((c) => c.type === 'Paused');
const progressing = (sim: Sim) =>
  sim.rollout.status?.conditions?.find((c) => c.type === 'Progressing');
const answer = (sim: Sim, name: string) => sim.approvals.get(name)?.status;

describe('waiting for approval', () => {
  it('pauses with AwaitingApproval, says who is asked and wakes at the timeout', () => {
    const sim = waiting({
      timeout: '30m',
      approvers: { users: ['alice'], groups: ['release'] },
      message: 'check the dashboard',
    });
    const status = sim.rollout.status ?? {};
    assert.equal(status.currentStepIndex, 1);
    assert.equal(status.phase, 'Paused');
    assert.equal(status.message, 'AwaitingApproval');
    assert.deepEqual(
      status.pauseConditions?.map((c) => c.reason),
      ['AwaitingApproval'],
    );
    assert.equal(paused(sim)?.message, 'Rollout is paused: awaiting approval at step 2/3 (0 of 1)');
    assert.ok(
      sim
        .events()
        .includes(
          `ApprovalRequested: Rollout is waiting for approval at step 2/3 of revision ${status.currentPodHash} (1 from users: alice; groups: release; timeout 30m): check the dashboard`,
        ),
    );
    const idle = sim.pass();
    assert.deepEqual(idle.writes, []);
    assert.equal(idle.requeueAfterMs, 30 * MINUTE);
  });

  it('an approval from a listed user completes the step and is recorded with who and how', () => {
    const sim = waiting({ approvers: { users: ['alice'] } });
    const hash = sim.rollout.status?.currentPodHash;
    const name = sim.decide('Approve', 'alice', { comment: 'dashboards look fine' });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy', 'went on through setWeight 50 to the end');
    assert.deepEqual(status.approvals, [
      {
        step: 1,
        revision: hash,
        decision: 'Approve',
        by: 'alice',
        via: 'plugin',
        at: new Date(sim.now).toISOString(),
        comment: 'dashboards look fine',
        ref: `RolloutApproval/${name}`,
      },
    ]);
    assert.equal(answer(sim, name)?.phase, 'Recorded');
    const events = sim.events();
    assert.ok(
      events.includes(
        `ApprovalRecorded: Approved by alice via plugin at step 2 of revision ${hash}: dashboards look fine`,
      ),
    );
    assert.ok(events.includes('RolloutResumed: Rollout is resumed (approved by alice)'));
  });

  it('minApprovals counts distinct people: the same person twice is refused', () => {
    const sim = waiting({ minApprovals: 2, approvers: { users: ['alice', 'bob'] } });
    sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
    assert.equal(paused(sim)?.message, 'Rollout is paused: awaiting approval at step 2/3 (1 of 2)');
    const again = sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(answer(sim, again)?.phase, 'Refused');
    assert.equal(answer(sim, again)?.reason, 'AlreadyDecided');
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
    sim.decide('Approve', 'bob');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(
      sim.rollout.status?.approvals?.map((r) => r.by),
      ['alice', 'bob'],
    );
  });

  it('someone not among the approvers is refused with a reason, and nothing moves', () => {
    const sim = waiting({ approvers: { users: ['alice'], groups: ['release'] } });
    const before = structuredClone(sim.rollout.status);
    const name = sim.decide('Approve', 'mallory', { groups: ['dev'] });
    const plan = sim.pass();
    assert.deepEqual(
      plan.writes.map((w) => w.kind),
      ['markApproval', 'event'],
      'no status write: the refusal is on the RolloutApproval and in an event',
    );
    assert.deepEqual(sim.rollout.status, before);
    assert.deepEqual(answer(sim, name), {
      phase: 'Refused',
      reason: 'NotAnApprover',
      message: 'mallory is not among the approvers of step 2 (users: alice; groups: release)',
      at: new Date(sim.now).toISOString(),
    });
    assert.ok(
      sim
        .events()
        .includes(
          'ApprovalRefused: Approve by mallory refused (NotAnApprover): mallory is not among the approvers of step 2 (users: alice; groups: release)',
        ),
    );
    assert.deepEqual(sim.pass().writes, [], 'answered once');
  });

  it('a member of a listed group may approve', () => {
    const sim = waiting({ approvers: { users: ['alice'], groups: ['release'] } });
    const name = sim.decide('Approve', 'carol', { groups: ['system:authenticated', 'release'] });
    sim.run();
    assert.equal(answer(sim, name)?.phase, 'Recorded');
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  for (const [label, opts, reason, message] of [
    [
      'another revision',
      { revision: 'old-hash' },
      'WrongRevision',
      /is for revision old-hash, but rollout 'web' is at revision /,
    ],
    [
      'another step',
      { step: 2 },
      'WrongStep',
      /is for step 3, but rollout 'web' waits for approval at step 2/,
    ],
  ] as const) {
    it(`a decision for ${label} is refused (${reason})`, () => {
      const sim = waiting();
      const name = sim.decide('Approve', 'alice', opts);
      sim.run();
      assert.equal(answer(sim, name)?.reason, reason);
      assert.match(answer(sim, name)?.message ?? '', message);
      assert.equal(sim.rollout.status?.currentStepIndex, 1);
      assert.equal(sim.rollout.status?.approvals, undefined);
    });
  }

  it('a decision while the rollout is not waiting for approval is refused', () => {
    const sim = withApproval({});
    sim.setImage('web:2');
    sim.podsBecomeReady = false;
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 0, 'still at setWeight 25');
    const name = sim.decide('Approve', 'alice', { step: 0 });
    sim.run();
    assert.equal(answer(sim, name)?.reason, 'NotAwaitingApproval');
  });

  it('a rejection aborts, names who and why, and goes back to stable', () => {
    const sim = waiting({ approvers: { users: ['alice'] } });
    sim.decide('Reject', 'alice', { comment: 'p99 doubled' });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.abort, true);
    assert.equal(status.phase, 'Degraded');
    assert.equal(progressing(sim)?.reason, 'RolloutAborted');
    assert.match(
      progressing(sim)?.message ?? '',
      /rejected by alice via plugin at step 2\/3: p99 doubled/,
    );
    assert.deepEqual(Object.values(sim.replicaCounts()).sort(), [0, 4]);
    assert.ok(sim.events().some((e) => e.startsWith('ApprovalRejected: Rejected by alice')));
    assert.equal(status.approvals?.[0]?.decision, 'Reject', 'the rejection stays on record');
  });

  it('a rejection wins over approvals that arrive in the same pass', () => {
    const sim = waiting({ minApprovals: 1 });
    sim.decide('Approve', 'alice');
    sim.decide('Reject', 'bob');
    sim.run();
    assert.equal(sim.rollout.status?.abort, true);
  });
});

describe('the timeout', () => {
  it('aborts at the timeout (not a moment before) with onTimeout: abort', () => {
    const sim = waiting({ timeout: '30m' });
    sim.advance(30 * MINUTE - 1);
    assert.deepEqual(sim.pass().writes, []);
    sim.advance(1);
    sim.run();
    assert.equal(sim.rollout.status?.abort, true);
    assert.match(
      progressing(sim)?.message ?? '',
      /approval of step 2\/3 timed out after 1800s without enough approvals/,
    );
    assert.ok(sim.events().some((e) => e.startsWith('ApprovalTimedOut:')));
  });

  it('keeps waiting with onTimeout: pause, says so once, and an approval still counts', () => {
    const sim = waiting({ timeout: 90, onTimeout: 'pause' });
    sim.advance(90_000);
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Paused');
    assert.equal(sim.rollout.status?.abort, false);
    assert.equal(
      paused(sim)?.message,
      'Rollout is paused: approval of step 2/3 timed out after 90s; still waiting for a person',
    );
    const timedOut = () => sim.events().filter((e) => e.startsWith('ApprovalTimedOut')).length;
    assert.equal(timedOut(), 1);
    sim.advance(3_600_000);
    assert.deepEqual(sim.pass().writes, []);
    sim.settle();
    sim.run();
    assert.equal(timedOut(), 1, 'said once');
    sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });
});

describe('other channels and people', () => {
  it('a record written by the link endpoint counts and is carried by later status writes', () => {
    const sim = waiting();
    const hash = sim.rollout.status?.currentPodHash ?? '';
    const record: ApprovalRecord = {
      step: 1,
      revision: hash,
      decision: 'Approve',
      by: 'link:abc',
      via: 'link',
      at: new Date(sim.now).toISOString(),
      ref: 'link:abc',
    };
    sim.recordDecision(record);
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.deepEqual(sim.rollout.status?.approvals, [record]);
  });

  it('promote does not pass an approval step; promote --full does', () => {
    const sim = waiting();
    sim.promote();
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
    assert.deepEqual(
      sim.rollout.status?.pauseConditions?.map((c) => c.reason),
      ['AwaitingApproval'],
    );
    sim.patchStatus({ promoteFull: true });
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  it('a decision recorded by a pass whose answer did not land is answered, not recorded twice', () => {
    const sim = waiting();
    const name = sim.decide('Approve', 'alice');
    const plan = sim.pass();
    assert.ok(plan.writes.some((w) => w.kind === 'markApproval'));
    const approval = sim.approvals.get(name);
    if (approval) delete approval.status; // the mark was lost
    sim.run();
    assert.equal(answer(sim, name)?.phase, 'Recorded');
    assert.equal(sim.rollout.status?.approvals?.length, 1);
  });

  it('a new revision while waiting starts over: decisions for the old one are refused', () => {
    const sim = waiting();
    const oldHash = sim.rollout.status?.currentPodHash;
    sim.setImage('web:3');
    sim.run();
    assert.notEqual(sim.rollout.status?.currentPodHash, oldHash);
    const name = sim.decide('Approve', 'alice', { revision: oldHash ?? '' });
    sim.run();
    assert.equal(answer(sim, name)?.reason, 'WrongRevision');
    assert.equal(sim.rollout.status?.currentStepIndex, 1, 'waits again, for the new revision');
  });
});

describe('records', () => {
  const record = (revision: string, by: string, decision: 'Approve' | 'Reject' = 'Approve') =>
    ({ step: 1, revision, decision, by, via: 'plugin', at: '2026-12-01T10:00:00.000Z' }) as const;

  it('keeps every record of the current revision and the newest others up to the cap', () => {
    const old = Array.from({ length: MAX_APPROVAL_RECORDS }, (_, i) => record('old', `u${i}`));
    const current = [record('cur', 'alice'), record('cur', 'bob')];
    const kept = pruneRecords([...old, ...current], 'cur');
    assert.equal(kept.length, MAX_APPROVAL_RECORDS);
    assert.deepEqual(kept.slice(-2), current);
    assert.equal(kept[0]?.by, 'u2', 'the oldest others went first');
  });

  for (const [name, records, min, expected] of [
    ['no records: waiting', [], 1, 'waiting'],
    ['one approval of two: waiting', [record('h', 'a')], 2, 'waiting'],
    ['two distinct: approved', [record('h', 'a'), record('h', 'b')], 2, 'approved'],
    ['the same person twice: waiting', [record('h', 'a'), record('h', 'a')], 2, 'waiting'],
    ['another revision does not count', [record('x', 'a')], 1, 'waiting'],
    ['a rejection wins', [record('h', 'a'), record('h', 'b', 'Reject')], 1, 'rejected'],
  ] as const) {
    it(name, () => {
      const outcome = judgeApproval(
        { step: { minApprovals: min }, index: 1, hash: 'h' },
        records,
        0,
        1,
      );
      assert.equal(outcome.kind, expected);
    });
  }
});

describe('validation', () => {
  const problems = (approval: ApprovalStep) =>
    specProblems(rolloutFixture({ strategy: { canary: { steps: [{ approval }] } } }), new Map());

  it('a timeout that does not parse, or zero, is InvalidSpec', () => {
    assert.deepEqual(problems({ timeout: 'soon' }).length, 1);
    assert.match(problems({ timeout: 'soon' })[0] ?? '', /steps\[0\]\.approval\.timeout/);
    assert.match(problems({ timeout: 0 })[0] ?? '', /must be greater than 0/);
  });

  it('more approvals than people named is InvalidSpec, unless a group may approve', () => {
    assert.deepEqual(problems({ minApprovals: 3, approvers: { users: ['a', 'b'] } }), [
      'spec.strategy.canary.steps[0].approval.minApprovals: must not exceed the 2 approvers listed (got 3)',
    ]);
    assert.deepEqual(
      problems({ minApprovals: 3, approvers: { users: ['a'], groups: ['release'] } }),
      [],
    );
  });

  it('unknown fields in an approval step are refused by the schema', () => {
    const bad = { timeout: '1m', approver: 'alice' } as unknown as ApprovalStep;
    assert.match(problems(bad)[0] ?? '', /approver/);
  });
});

const kubeUserAllowed = (a: Approvers, by: string, groups: string[]): boolean =>
  admits(a, { by, via: 'plugin', groups }, undefined);
const slackUserAllowed = (a: Approvers, by: string): boolean =>
  admits(a, { by, via: 'slack' }, undefined);

describe('who may decide through which channel', () => {
  const none = {};
  const named = { users: ['alice'], groups: ['release'], slackUsers: ['U01ALICE'] };
  const slackOnly = { slackUsers: ['U01ALICE'] };
  for (const [label, approvers, kube, slack, link] of [
    ['nobody named: anyone, any channel', none, true, true, true],
    ['people named: only they, links do not count', named, false, false, false],
    ['only Slack users named: Kubernetes users may not', slackOnly, false, false, false],
  ] as const) {
    it(label, () => {
      assert.equal(kubeUserAllowed(approvers, 'mallory', ['dev']), kube);
      assert.equal(slackUserAllowed(approvers, 'U02MALLORY'), slack);
      assert.equal(anyoneMay(approvers), link);
    });
  }
  it('named people pass through the channel that proves who they are', () => {
    assert.equal(kubeUserAllowed(named, 'alice', []), true);
    assert.equal(kubeUserAllowed(named, 'carol', ['release']), true);
    assert.equal(slackUserAllowed(named, 'U01ALICE'), true);
    assert.equal(kubeUserAllowed(slackOnly, 'alice', []), false);
  });
});
