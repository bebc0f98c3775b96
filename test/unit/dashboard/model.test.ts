// The dashboard's view models: steps with the current one and the time left on a timed pause,
// "needs me", the list's counts and filters, and text from the cluster kept inert.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRecord } from '../../../src/api/approval.ts';
import type { Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import {
  awaitsViewer,
  countRows,
  filterRows,
  namespacesOf,
  timeLeft,
} from '../../../src/dashboard/model/filter.ts';
import { needsMe } from '../../../src/dashboard/model/pauses.ts';
import { canarySteps } from '../../../src/dashboard/model/steps.ts';
import { detailOf, eventsOf, rowOf, rowsOf } from '../../../src/dashboard/model/views.ts';
import {
  ago,
  canaryPods,
  canaryRS,
  NOW,
  pausedStatus,
  rollout,
  stablePods,
  stableRS,
} from '../cli/fixtures.ts';

const at = (
  ns: string,
  name: string,
  status: RolloutStatus,
  over: Partial<Rollout['spec']> = {},
) => {
  const ro = rollout(status, over);
  return { ...ro, metadata: { ...ro.metadata, namespace: ns, name } };
};

/** Paused at the timed pause (step 4 of 4, `pause: 30s`), started 10 s ago. */
const timedPause: RolloutStatus = {
  ...pausedStatus,
  currentStepIndex: 3,
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: ago(10) }],
};

describe('canary steps', () => {
  it('marks the steps before the index done, the one at it current, the rest pending', () => {
    const steps = canarySteps(rollout(pausedStatus));
    assert.deepEqual(
      steps.map((s) => [s.label, s.state]),
      [
        ['setWeight: 20', 'done'],
        ['pause', 'current'],
        ['setWeight: 50', 'pending'],
        ['pause: 30s', 'pending'],
      ],
    );
    assert.equal(steps[1]?.waitsForPerson, true, 'an untimed pause waits for a person');
  });

  it('gives a running timed pause its end, from the pause condition and the step duration', () => {
    const steps = canarySteps(rollout(timedPause));
    assert.equal(steps[3]?.state, 'current');
    assert.equal(steps[3]?.endsAt, NOW - 10_000 + 30_000);
    assert.equal(steps[3]?.waitsForPerson, undefined);
    assert.equal(timeLeft((steps[3]?.endsAt ?? 0) - NOW), '20s');
  });

  it('has no end for a timed pause the controller has not started', () => {
    const steps = canarySteps(rollout({ ...timedPause, pauseConditions: [] }));
    assert.equal(steps[3]?.endsAt, undefined);
  });

  it('shows every step done once promoted, even before the controller wrote an index', () => {
    const steps = canarySteps(rollout({ stableRS: 'h1', currentPodHash: 'h1' }));
    assert.ok(steps.every((s) => s.state === 'done'));
  });
});

describe('time left', () => {
  for (const [ms, text] of [
    [0, '0s'],
    [-5000, '0s'],
    [1, '1s'],
    [59_000, '59s'],
    [65_000, '1m05s'],
    [3_600_000 + 61_000, '1h01m01s'],
  ] as const) {
    it(`${ms} ms reads ${text}`, () => assert.equal(timeLeft(ms), text));
  }
});

describe('needs me', () => {
  it('an untimed pause step waits for promote', () => {
    assert.equal(needsMe(rollout(pausedStatus)), 'waits for promote');
  });
  it('a timed pause ends by itself: nobody is needed', () => {
    assert.equal(needsMe(rollout(timedPause)), undefined);
  });
  it('an approval, a pause by a person, an inconclusive analysis, Degraded', () => {
    const reason = (r: string) =>
      needsMe(rollout({ ...pausedStatus, pauseConditions: [{ reason: r, startTime: ago(1) }] }));
    assert.equal(reason('AwaitingApproval'), 'awaiting approval');
    assert.equal(reason('PausedByUser'), 'paused by a person: resume');
    assert.equal(reason('InconclusiveAnalysisRun'), 'analysis inconclusive: promote or abort');
    assert.equal(needsMe(rollout({ phase: 'Degraded', abort: true })), 'Degraded');
  });
  it('a Degraded phase is not trusted before the spec generation is observed', () => {
    assert.equal(needsMe(rollout({ phase: 'Degraded', observedGeneration: '1' })), undefined);
  });
  it('a blue-green pause waits for promote unless it promotes itself', () => {
    const bg = (autoPromotionSeconds?: number, autoPromotionEnabled?: boolean) =>
      rollout(
        { ...pausedStatus, pauseConditions: [{ reason: 'BlueGreenPause', startTime: ago(5) }] },
        {
          strategy: {
            blueGreen: {
              activeService: 'web-active',
              ...(autoPromotionSeconds !== undefined ? { autoPromotionSeconds } : {}),
              ...(autoPromotionEnabled !== undefined ? { autoPromotionEnabled } : {}),
            },
          },
        },
      );
    assert.equal(needsMe(bg(undefined, false)), 'waits for promote');
    assert.equal(needsMe(bg(60)), undefined);
    assert.equal(needsMe(bg(60, false)), 'waits for promote');
  });
  it('a Healthy Rollout wants nobody', () => {
    assert.equal(
      needsMe(rollout({ phase: 'Healthy', stableRS: 'h', currentPodHash: 'h' })),
      undefined,
    );
  });
});

describe('the list', () => {
  const rows = rowsOf([
    at('team-b', 'api', { phase: 'Healthy', stableRS: 'h', currentPodHash: 'h' }),
    at('team-a', 'web', pausedStatus),
    at('team-c', 'pay', { phase: 'Degraded', abort: true }),
    at('team-a', 'cart', { ...timedPause, phase: 'Paused' }),
  ]);

  it('puts the Rollouts that want a person first, then by namespace and name', () => {
    assert.deepEqual(
      rows.map((r) => r.key),
      ['team-a/web', 'team-c/pay', 'team-a/cart', 'team-b/api'],
    );
  });

  it('counts every phase, zeros included, and those that want a person', () => {
    assert.deepEqual(countRows(rows), {
      byPhase: { Progressing: 0, Paused: 2, Degraded: 1, Healthy: 1 },
      needsMe: 2,
      awaitingMe: 0,
    });
  });

  it('filters by phase, namespace, needs me and words in name, namespace or image', () => {
    const keys = (f: Parameters<typeof filterRows>[1]) => filterRows(rows, f).map((r) => r.key);
    assert.deepEqual(keys({ phase: 'Paused' }), ['team-a/web', 'team-a/cart']);
    assert.deepEqual(keys({ namespace: 'team-a' }), ['team-a/web', 'team-a/cart']);
    assert.deepEqual(keys({ needsMe: true }), ['team-a/web', 'team-c/pay']);
    assert.deepEqual(keys({ search: 'CART' }), ['team-a/cart']);
    assert.deepEqual(keys({ search: 'team-a nginx:1.26' }), ['team-a/web', 'team-a/cart']);
    assert.deepEqual(keys({ search: 'nothing-like-this' }), []);
    assert.deepEqual(namespacesOf(rows), ['team-a', 'team-b', 'team-c']);
  });

  it('shows step and weight as the plugin does', () => {
    const web = rows.find((r) => r.key === 'team-a/web');
    assert.equal(web?.step, '1/4');
    assert.equal(web?.setWeight, '20');
    assert.equal(web?.strategy, 'Canary');
  });

  it('keeps names and messages inert: terminal escapes become visible text', () => {
    const row = rowOf(at('x', 'web', { ...pausedStatus, message: 'ok\x1b[2AHealthy\r<script>' }));
    assert.equal(row.message, 'ok\\x1b[2AHealthy\\r<script>');
  });
});

describe('the Rollout view', () => {
  const events = [
    {
      involvedObject: { kind: 'Rollout', name: 'web', namespace: 'shop' },
      reason: 'Old',
      message: 'a',
      lastTimestamp: ago(100),
    },
    {
      involvedObject: { kind: 'Rollout', name: 'web', namespace: 'shop' },
      reason: 'New',
      message: 'b\x07',
      eventTime: ago(5),
      series: { count: 3, lastObservedTime: ago(2) },
    },
    {
      involvedObject: { kind: 'Rollout', name: 'other', namespace: 'shop' },
      reason: 'NotMine',
      message: 'c',
    },
    {
      involvedObject: { kind: 'Deployment', name: 'web', namespace: 'shop' },
      reason: 'NotMine',
      message: 'd',
    },
  ];

  it('lists its own Events only, newest first, counted, text inert', () => {
    const seen = eventsOf(rollout(pausedStatus), events);
    assert.deepEqual(
      seen.map((e) => [e.reason, e.message, e.count]),
      [
        ['New', 'b\\x07', 3],
        ['Old', 'a', 1],
      ],
    );
  });

  it('holds revisions with their ReplicaSets and pods, the canary part, and the offers given', () => {
    const d = detailOf({
      rollout: rollout(timedPause),
      replicaSets: [stableRS, canaryRS],
      pods: [...stablePods, ...canaryPods],
      analysisRuns: [],
      events,
      actions: [{ action: 'promote', label: 'Promote', confirm: '?', enabled: true, note: 'n' }],
      now: NOW,
    });
    assert.deepEqual(
      d.info.revisions.map((r) => [r.revision, r.replicaSets.map((rs) => rs.pods.length)]),
      [
        [2, [1]],
        [1, [5]],
      ],
    );
    assert.equal(d.strategy.kind, 'canary');
    if (d.strategy.kind === 'canary') {
      assert.equal(d.strategy.setWeight, 50);
      assert.equal(d.strategy.actualWeight, 20);
      assert.equal(d.strategy.steps[3]?.endsAt, NOW + 20_000);
    }
    assert.equal(d.actions[0]?.action, 'promote');
    assert.equal(d.needsMe, undefined);
  });

  it('gives a blue-green Rollout the blue-green part, with the end of a timed pause', () => {
    const d = detailOf({
      rollout: rollout(
        { ...pausedStatus, pauseConditions: [{ reason: 'BlueGreenPause', startTime: ago(5) }] },
        { strategy: { blueGreen: { activeService: 'web-active', autoPromotionSeconds: 60 } } },
      ),
      replicaSets: [],
      pods: [],
      analysisRuns: [],
      events: [],
      actions: [],
      now: NOW,
    });
    assert.equal(d.strategy.kind, 'blueGreen');
    if (d.strategy.kind === 'blueGreen') {
      assert.equal(d.strategy.endsAt, NOW + 55_000);
      assert.ok(d.strategy.lines.every(([, v]) => !v.includes('promotes itself in')));
    }
  });
});

describe('awaiting my approval', () => {
  const waiting = (
    approvers: { users?: string[]; groups?: string[] },
    approvals: ApprovalRecord[] = [],
  ) =>
    at(
      'shop',
      'web',
      {
        ...pausedStatus,
        observedGeneration: '2',
        currentStepIndex: 1,
        pauseConditions: [{ reason: 'AwaitingApproval', startTime: ago(30) }],
        approvals,
      },
      {
        strategy: {
          canary: { steps: [{ setWeight: 20 }, { approval: { approvers } }, { setWeight: 50 }] },
        },
      },
    );
  const alice = { username: 'alice', groups: ['sre', 'system:authenticated'] };
  const bob = { username: 'bob', groups: ['dev'] };

  it('asks the users and groups the step names; naming nobody asks anyone', () => {
    const named = rowOf(waiting({ users: ['bob'], groups: ['sre'] }));
    assert.deepEqual(named.approval, { users: ['bob'], groups: ['sre'], decided: [] });
    assert.deepEqual(
      [alice, bob, { username: 'carol', groups: ['dev'] }].map((v) => awaitsViewer(named, v)),
      [true, true, false],
    );
    assert.equal(awaitsViewer(rowOf(waiting({})), bob), true);
    assert.equal(awaitsViewer(named, undefined), false, 'an unknown viewer is asked nothing');
    assert.equal(rowOf(rollout(pausedStatus)).approval, undefined, 'not an approval step');
  });

  it('filters and counts for the viewer; who already approved is not asked again', () => {
    const rows = [
      rowOf(waiting({ groups: ['sre'] })),
      rowOf(waiting({ users: ['bob'] })),
      rowOf(rollout(pausedStatus)),
    ];
    assert.equal(filterRows(rows, { awaitingMe: true }, alice).length, 1);
    assert.equal(countRows(rows, bob).awaitingMe, 1);
    assert.equal(countRows(rows).awaitingMe, 0);
    const decided = rowOf(
      waiting({ groups: ['sre'] }, [
        {
          step: 1,
          revision: pausedStatus.currentPodHash ?? '',
          decision: 'Approve',
          by: 'alice',
          groups: ['sre'],
          via: 'plugin',
          at: ago(5),
        },
      ]),
    );
    assert.deepEqual(decided.approval?.decided, ['alice']);
    assert.equal(awaitsViewer(decided, alice), false);
  });
});
