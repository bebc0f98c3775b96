// Approvals count people, not channel identities (issue 20 H2), and only decisions of the
// current wait by someone the step admits now (M4): after a retry, a rollback to an earlier
// revision, or a tightening of the approvers, old records decide nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture } from '../../fixtures/rollout/sim.ts';
import type { ApprovalRecord, ApprovalStep, Person } from '../../../src/api/index.ts';
import { judgeApproval, refusalFor } from '../../../src/rollout/approval.ts';
import type { ApprovalOutcome } from '../../../src/rollout/approval.ts';

const MINUTE = 60_000;
const HASH = 'h1';
const START = Date.parse('2026-12-01T10:00:00Z');
const ALICE: Person = { name: 'alice', kubeUser: 'alice', slackUser: 'U0ALICE1' };
const SRE_BOT: Person = { name: 'sam', slackUser: 'U0SAM', groups: ['sre'] };

function rec(
  by: string,
  via: ApprovalRecord['via'],
  extra: Partial<ApprovalRecord> = {},
): ApprovalRecord {
  return {
    step: 1,
    revision: HASH,
    decision: 'Approve',
    by,
    via,
    at: new Date(START + 1000).toISOString(),
    ref: `${via}:${by}`,
    ...extra,
  };
}

const judge = (step: ApprovalStep, records: ApprovalRecord[], people: Person[] = []) =>
  judgeApproval(
    { step, index: 1, hash: HASH, since: START },
    records,
    START,
    START + MINUTE,
    people,
  );

const summary = (o: ApprovalOutcome): string =>
  o.kind === 'waiting'
    ? `waiting ${o.approvals}`
    : o.kind === 'approved'
      ? `approved by ${o.by.join(', ')}`
      : o.kind === 'rejected'
        ? `rejected by ${o.record.by}`
        : o.kind;

const README_STEP: ApprovalStep = {
  minApprovals: 2,
  approvers: { users: ['alice', 'dave'], slackUsers: ['U0ALICE1'] },
};

describe('approvals count people (H2)', () => {
  const cases: [string, ApprovalStep, ApprovalRecord[], Person[], string][] = [
    [
      'alice by kubectl and by Slack, mapped cluster-wide: one person',
      README_STEP,
      [rec('alice', 'plugin'), rec('U0ALICE1', 'slack')],
      [ALICE],
      'waiting 1',
    ],
    [
      'alice by kubectl and by Slack, mapped in the step: one person',
      { ...README_STEP, approvers: { ...README_STEP.approvers, people: [ALICE] } },
      [rec('alice', 'plugin'), rec('U0ALICE1', 'slack')],
      [],
      'waiting 1',
    ],
    [
      'alice twice and dave: two people',
      README_STEP,
      [rec('alice', 'plugin'), rec('U0ALICE1', 'slack'), rec('dave', 'plugin')],
      [ALICE],
      'approved by alice, dave',
    ],
    [
      'anyone mode: a Slack press and the link of the same message are not two',
      { minApprovals: 2 },
      [rec('U0BOB', 'slack'), rec('link:abc', 'link')],
      [],
      'waiting 1',
    ],
    [
      'anyone mode: two links are at most one anonymous approver',
      { minApprovals: 2, countLinkApprovals: true },
      [rec('link:abc', 'link'), rec('link:def', 'link')],
      [],
      'waiting 1',
    ],
    [
      'countLinkApprovals: the links count as one approver next to a person',
      { minApprovals: 2, countLinkApprovals: true },
      [rec('U0BOB', 'slack'), rec('link:abc', 'link')],
      [],
      'approved by U0BOB, a link',
    ],
    [
      'one approval needed: a link decides alone',
      {},
      [rec('link:abc', 'link')],
      [],
      'approved by a link',
    ],
    [
      'a Slack user mapped to a person in a listed group is admitted',
      { approvers: { groups: ['sre'] } },
      [rec('U0SAM', 'slack')],
      [SRE_BOT],
      'approved by sam',
    ],
    [
      'a Slack user mapped to nobody is not a listed Kubernetes user',
      { approvers: { users: ['alice'] } },
      [rec('U0ALICE1', 'slack')],
      [],
      'waiting 0',
    ],
    [
      'a person listed in the step may approve through either channel',
      { approvers: { people: [ALICE] } },
      [rec('U0ALICE1', 'slack')],
      [],
      'approved by alice',
    ],
  ];
  for (const [label, step, records, people, expected] of cases) {
    it(label, () => assert.equal(summary(judge(step, records, people)), expected));
  }
});

describe('only the current wait, and only those admitted now (M4)', () => {
  const before = new Date(START - 1).toISOString();
  const cases: [string, ApprovalStep, ApprovalRecord[], string][] = [
    [
      'an approval made before the wait began',
      {},
      [rec('alice', 'plugin', { at: before })],
      'waiting 0',
    ],
    [
      'a rejection made before the wait began (a retry) does not abort again',
      {},
      [rec('alice', 'plugin', { at: before, decision: 'Reject' })],
      'waiting 0',
    ],
    [
      'approvers tightened from anyone to groups: [sre]: an earlier link approval',
      { approvers: { groups: ['sre'] } },
      [rec('link:abc', 'link')],
      'waiting 0',
    ],
    [
      'a plugin approval by someone no longer listed',
      { approvers: { users: ['alice'] } },
      [rec('carol', 'plugin', { groups: ['dev'] })],
      'waiting 0',
    ],
    [
      'a Slack rejection by someone no longer listed does not abort',
      { approvers: { slackUsers: ['U0ALICE1'] } },
      [rec('U0BOB', 'slack', { decision: 'Reject' })],
      'waiting 0',
    ],
    [
      'a plugin approval by a member of a listed group still counts',
      { approvers: { groups: ['sre'] } },
      [rec('carol', 'plugin', { groups: ['sre'] })],
      'approved by carol',
    ],
    [
      'a record whose time cannot be read',
      {},
      [rec('alice', 'plugin', { at: 'soon' })],
      'waiting 0',
    ],
  ];
  for (const [label, step, records, expected] of cases) {
    it(label, () => assert.equal(summary(judge(step, records)), expected));
  }
});

describe('refusals name the reason', () => {
  const ctx = (step: ApprovalStep, records: ApprovalRecord[] = [], people: Person[] = []) => ({
    rolloutName: 'web',
    currentHash: HASH,
    currentStep: 1,
    waiting: { step, index: 1, hash: HASH, since: START },
    records,
    people,
  });
  it('a link issued for an earlier wait is refused with EarlierWait', () => {
    const refused = refusalFor(
      {
        revision: HASH,
        step: 1,
        identity: { by: 'link:abc', via: 'link' },
        waitStart: START - MINUTE,
      },
      ctx({}),
    );
    assert.equal(refused?.reason, 'EarlierWait');
    assert.match(refused?.message ?? '', /issued for an earlier wait .* began at 2026-12-01T10:00/);
    const current = { revision: HASH, step: 1, identity: { by: 'link:abc', via: 'link' as const } };
    assert.equal(refusalFor({ ...current, waitStart: START }, ctx({})), undefined);
  });
  it('a RolloutApproval created before the wait began is refused with EarlierWait', () => {
    const identity = { by: 'alice', via: 'plugin' as const };
    const early = { revision: HASH, step: 1, identity, createdAt: START - 1000 };
    assert.equal(refusalFor(early, ctx({}))?.reason, 'EarlierWait');
    // creationTimestamp has whole seconds: created in the second the wait began is in time.
    assert.equal(refusalFor({ ...early, createdAt: START }, ctx({})), undefined);
  });
  it('the same person through a second channel is refused: already decided', () => {
    const refused = refusalFor(
      { revision: HASH, step: 1, identity: { by: 'U0ALICE1', via: 'slack' } },
      ctx(README_STEP, [rec('alice', 'plugin')], [ALICE]),
    );
    assert.equal(refused?.reason, 'AlreadyDecided');
    assert.match(
      refused?.message ?? '',
      /U0ALICE1 \(alice\) already decided Approve .* via plugin/,
    );
  });
  it('a decision of an earlier wait does not stop the person deciding again', () => {
    const old = rec('alice', 'plugin', { at: new Date(START - 1).toISOString() });
    const again = { revision: HASH, step: 1, identity: { by: 'alice', via: 'plugin' as const } };
    assert.equal(refusalFor(again, ctx({}, [old])), undefined);
  });
});

/** A Rollout whose step 2 of 3 is an approval, waiting for revision web:2. */
function waiting(approval: ApprovalStep, people: Person[] = []): Sim {
  const sim = new Sim(
    rolloutFixture({
      strategy: { canary: { steps: [{ setWeight: 25 }, { approval }, { setWeight: 50 }] } },
    }),
  );
  sim.approvalPeople = people;
  sim.run();
  sim.setImage('web:2');
  sim.run();
  return sim;
}

const pausedMessage = (sim: Sim) =>
  sim.rollout.status?.conditions?.find((c) => c.type === 'Paused')?.message;

describe('in the planner', () => {
  it('alice by kubectl, then by a mapped Slack identity: still 1 of 2, refused as already decided', () => {
    const sim = waiting(README_STEP, [ALICE]);
    sim.decide('Approve', 'alice');
    sim.run();
    const hash = sim.rollout.status?.currentPodHash ?? '';
    sim.recordDecision({
      ...rec('U0ALICE1', 'slack'),
      revision: hash,
      at: new Date(sim.now).toISOString(),
    });
    sim.run();
    assert.equal(pausedMessage(sim), 'Rollout is paused: awaiting approval at step 2/3 (1 of 2)');
    assert.equal(
      sim.rollout.status?.approvals?.[0]?.person,
      'alice',
      'the record names the person',
    );
    sim.decide('Approve', 'dave');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  it('retry after a rejection: the old rejection does not abort again, the old approver may decide again', () => {
    const sim = waiting({ approvers: { users: ['alice'] } });
    sim.decide('Reject', 'alice');
    sim.run();
    assert.equal(sim.rollout.status?.abort, true);
    sim.advance(MINUTE);
    sim.retry();
    sim.run();
    assert.equal(sim.rollout.status?.abort, false);
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
    assert.equal(pausedMessage(sim), 'Rollout is paused: awaiting approval at step 2/3 (0 of 1)');
    sim.advance(MINUTE);
    const again = sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(sim.approvals.get(again)?.status?.phase, 'Recorded');
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  it('approvers tightened from anyone to groups: [sre]: an earlier link approval no longer counts', () => {
    const sim = waiting({ minApprovals: 2, countLinkApprovals: true });
    const hash = sim.rollout.status?.currentPodHash ?? '';
    sim.recordDecision({
      ...rec('link:abc', 'link'),
      revision: hash,
      at: new Date(sim.now).toISOString(),
    });
    sim.run();
    assert.equal(pausedMessage(sim), 'Rollout is paused: awaiting approval at step 2/3 (1 of 2)');
    // A reviewed change: one approval is enough, but only from SRE; the pod template is the same.
    const steps = sim.rollout.spec.strategy.canary?.steps ?? [];
    steps[1] = { approval: { approvers: { groups: ['sre'] } } };
    sim.rollout.metadata.generation = (sim.rollout.metadata.generation ?? 0) + 1;
    sim.run();
    assert.equal(sim.rollout.status?.currentPodHash, hash);
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
    assert.equal(pausedMessage(sim), 'Rollout is paused: awaiting approval at step 2/3 (0 of 1)');
    sim.decide('Approve', 'carol', { groups: ['sre'] });
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  it('rollback to an earlier revision: its old approval does not skip the step', () => {
    const sim = waiting({ approvers: { users: ['alice'] } });
    sim.decide('Approve', 'alice');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy', 'web:2 approved and promoted');
    for (const image of ['web:3', 'web:2']) {
      sim.advance(MINUTE);
      sim.setImage(image);
      sim.run();
      assert.equal(sim.rollout.status?.currentStepIndex, 1, `${image} waits`);
      assert.equal(pausedMessage(sim), 'Rollout is paused: awaiting approval at step 2/3 (0 of 1)');
      if (image === 'web:3') {
        sim.decide('Approve', 'alice');
        sim.run();
        assert.equal(sim.rollout.status?.phase, 'Healthy');
      }
    }
  });
});

describe('a step that cannot tell people apart is refused', () => {
  const invalid = (sim: Sim) =>
    sim.rollout.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.message;
  it('minApprovals 2 with users and slackUsers not mapped to people: InvalidSpec naming them', () => {
    const sim = waiting(README_STEP);
    assert.equal(sim.rollout.status?.phase, 'Degraded');
    assert.equal(
      invalid(sim),
      'spec.strategy.canary.steps[1].approval.minApprovals: minApprovals 2 with both Kubernetes approvers and slackUsers needs every Slack user mapped to a person (approvers.people or --approval-people), or one person could approve once per channel; not mapped: U0ALICE1',
    );
  });
  it('the same step with the Slack user mapped, in the step or cluster-wide, is valid', () => {
    assert.equal(invalid(waiting(README_STEP, [ALICE])), undefined);
    const inStep = { ...README_STEP, approvers: { ...README_STEP.approvers, people: [ALICE] } };
    assert.equal(invalid(waiting(inStep)), undefined);
  });
  it('fewer people than minApprovals once identities are mapped: InvalidSpec', () => {
    const step = { minApprovals: 2, approvers: { users: ['alice'], slackUsers: ['U0ALICE1'] } };
    assert.match(
      invalid(waiting(step, [ALICE])) ?? '',
      /minApprovals: must not exceed the 1 people listed once --approval-people maps their identities \(got 2\)/,
    );
    const inStep = { ...step, approvers: { ...step.approvers, people: [ALICE] } };
    assert.match(
      invalid(waiting(inStep)) ?? '',
      /must not exceed the 1 approvers listed \(got 2\)/,
    );
  });
});
