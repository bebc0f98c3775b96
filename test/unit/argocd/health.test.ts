// deploy/argocd/health.lua on a real Lua 5.1, over a Rollout in each state, and against the
// plugin's reading of the phase (src/cli/render/info.ts rolloutPhase) on random statuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import { rolloutPhase } from '../../../src/cli/render/info.ts';
import { findLua, health, runLuaMany, type Health } from '../../lua/run-lua.ts';
import {
  HEALTH_LUA,
  aborted,
  awaitingApproval,
  blueGreenCutover,
  blueGreenPaused,
  blueGreenPostAnalysis,
  blueGreenSpec,
  deadlineExceeded,
  healthy,
  inconclusive,
  invalidSpec,
  notObserved,
  pausedAtStep,
  progressing,
  promotedNotYetSeen,
  refused,
  rollout,
} from './fixtures.ts';

const lua = findLua();
const skip = 'skip' in lua ? lua.skip : false;

const WAITING = 'Waiting for rollout spec update to be observed';

interface Case {
  readonly name: string;
  readonly obj: Rollout;
  readonly status: string;
  /** Every one of these is in the message. */
  readonly says?: readonly string[];
  readonly message?: string;
}

const cases: Case[] = [
  { name: 'no status yet', obj: rollout(), status: 'Progressing', message: WAITING },
  {
    name: 'status without observedGeneration',
    obj: rollout({ phase: 'Healthy' }),
    status: 'Progressing',
    message: WAITING,
  },
  {
    name: 'a generation not yet observed',
    obj: rollout(notObserved),
    status: 'Progressing',
    message: WAITING,
  },
  {
    name: 'observedGeneration ahead of metadata.generation',
    obj: rollout({ ...healthy, observedGeneration: '3' }),
    status: 'Progressing',
    message: WAITING,
  },
  {
    name: 'an observedGeneration that is not a number',
    obj: rollout({ ...healthy, observedGeneration: '5d8f7c' }),
    status: 'Progressing',
    message: WAITING,
  },
  { name: 'Healthy', obj: rollout(healthy), status: 'Healthy', message: '' },
  {
    name: 'Progressing',
    obj: rollout(progressing),
    status: 'Progressing',
    message: 'more replicas need to be updated',
  },
  {
    name: 'Progressing with no message',
    obj: rollout({ ...progressing, message: '' }),
    status: 'Progressing',
    message: 'Waiting for rollout to finish',
  },
  {
    name: 'paused at a pause step',
    obj: rollout(pausedAtStep),
    status: 'Suspended',
    message: 'Rollout is paused: CanaryPauseStep',
  },
  {
    name: 'awaiting approval',
    obj: rollout(awaitingApproval),
    status: 'Suspended',
    says: ['AwaitingApproval'],
  },
  {
    name: 'an inconclusive analysis',
    obj: rollout(inconclusive),
    status: 'Suspended',
    says: ['InconclusiveAnalysisRun'],
  },
  {
    name: 'two pause reasons',
    obj: rollout({
      ...pausedAtStep,
      pauseConditions: [
        { reason: 'CanaryPauseStep', startTime: '2026-03-01T12:00:00Z' },
        { reason: 'AwaitingApproval', startTime: '2026-03-01T12:00:00Z' },
      ],
    }),
    status: 'Suspended',
    message: 'Rollout is paused: CanaryPauseStep, AwaitingApproval',
  },
  {
    name: 'paused in Git (spec.paused)',
    obj: rollout(
      { ...pausedAtStep, message: 'manually paused', pauseConditions: [], controllerPause: false },
      { paused: true },
    ),
    status: 'Suspended',
    message: 'Rollout is paused: manually paused',
  },
  {
    name: 'Paused with neither message nor pause conditions',
    obj: rollout({ ...pausedAtStep, message: '', pauseConditions: [], controllerPause: false }),
    status: 'Suspended',
    message: 'Rollout is paused',
  },
  {
    name: 'blue-green at its pause before the switch',
    obj: rollout(blueGreenPaused, blueGreenSpec),
    status: 'Suspended',
    message: 'Rollout is paused: BlueGreenPause',
  },
  {
    name: 'blue-green promoted, cutover pending (controllerPause kept, as Argo)',
    obj: rollout(blueGreenCutover, blueGreenSpec),
    status: 'Progressing',
    message: 'active service cutover pending',
  },
  {
    name: 'blue-green switched, post-promotion analysis running',
    obj: rollout(blueGreenPostAnalysis, blueGreenSpec),
    status: 'Progressing',
    message: 'waiting for analysis to complete',
  },
  {
    name: 'blue-green promoted, not yet acknowledged (still Paused, no pause conditions)',
    obj: rollout({ ...blueGreenPaused, pauseConditions: [] }, blueGreenSpec),
    status: 'Progressing',
    message: 'Waiting for rollout to unpause',
  },
  {
    name: 'a promote not yet acknowledged (controllerPause, no pause conditions)',
    obj: rollout(promotedNotYetSeen),
    status: 'Progressing',
    message: 'Waiting for rollout to unpause',
  },
  {
    name: 'aborted',
    obj: rollout(aborted),
    status: 'Degraded',
    message: 'RolloutAborted: Rollout aborted update to revision 3',
  },
  {
    name: 'InvalidSpec',
    obj: rollout(invalidSpec),
    status: 'Degraded',
    message: 'InvalidSpec: spec.strategy.canary.stableService: service "web-stable" not found',
  },
  {
    name: 'progress deadline exceeded',
    obj: rollout(deadlineExceeded),
    status: 'Degraded',
    message: 'ProgressDeadlineExceeded: ReplicaSet "web-h3" has timed out progressing.',
  },
  {
    name: 'Degraded for another reason (a refused ReplicaSet): status.message',
    obj: rollout(refused),
    status: 'Degraded',
    message: 'ReplicaSetCreateError: pods "web-h3" is forbidden: exceeded quota',
  },
  {
    name: 'Degraded without conditions',
    obj: rollout({ ...refused, conditions: undefined }),
    status: 'Degraded',
    says: ['ReplicaSetCreateError'],
  },
  {
    name: 'a numeric observedGeneration (older writers)',
    obj: rollout({ ...healthy, observedGeneration: 2 as unknown as string }),
    status: 'Healthy',
  },
  {
    name: 'an unknown phase',
    obj: rollout({ ...healthy, phase: 'Exploded' as RolloutStatus['phase'] }),
    status: 'Unknown',
    says: ['Exploded'],
  },
  {
    name: 'a message with quotes, backslashes, newlines and UTF-8',
    obj: rollout({ ...progressing, message: 'waiting for "web" \\ ünïcode ✓\nline 2' }),
    status: 'Progressing',
    message: 'waiting for "web" \\ ünïcode ✓\nline 2',
  },
];

describe('health.lua', { skip }, () => {
  for (const c of cases) {
    it(`${c.name} → ${c.status}`, () => {
      const hs = health(HEALTH_LUA, c.obj);
      assert.equal(hs.status, c.status, `message: ${hs.message}`);
      if (c.message !== undefined) assert.equal(hs.message, c.message);
      for (const s of c.says ?? []) assert.match(hs.message ?? '', new RegExp(s));
    });
  }

  it('agrees with the phase `kubectl stepwise` reads, on random statuses', () => {
    const toHealth: Record<string, string> = {
      Healthy: 'Healthy',
      Progressing: 'Progressing',
      Paused: 'Suspended',
      Degraded: 'Degraded',
    };
    const reason = fc.constantFrom(
      'CanaryPauseStep',
      'BlueGreenPause',
      'AwaitingApproval',
      'InconclusiveAnalysisRun',
    );
    const status = fc.record(
      {
        observedGeneration: fc.constantFrom('1', '2', '3'),
        phase: fc.constantFrom('Healthy', 'Progressing', 'Paused', 'Degraded'),
        message: fc.constantFrom(
          '',
          'CanaryPauseStep',
          'more replicas need to be updated',
          'active service cutover pending',
        ),
        controllerPause: fc.boolean(),
        pauseConditions: fc.array(
          reason.map((r) => ({ reason: r, startTime: '2026-03-01T12:00:00Z' })),
          { maxLength: 2 },
        ),
        abort: fc.boolean(),
        stableRS: fc.constantFrom('h2', 'h3'),
        currentPodHash: fc.constantFrom('h2', 'h3'),
      },
      { requiredKeys: ['observedGeneration'] },
    ) as fc.Arbitrary<RolloutStatus>;
    const samples = fc.sample(fc.option(status, { nil: undefined }), { numRuns: 300, seed: 42 });
    const objs = samples.map((s) => rollout(s));
    const verdicts = runLuaMany(HEALTH_LUA, objs, 'health.lua');
    objs.forEach((obj, i) => {
      const outcome = verdicts[i];
      assert.ok(
        outcome?.ok,
        `health.lua failed on ${JSON.stringify(obj.status)}: ${JSON.stringify(outcome)}`,
      );
      const hs = outcome.value as Health;
      const expected = toHealth[rolloutPhase(obj).phase];
      assert.equal(
        hs.status,
        expected,
        `status ${JSON.stringify(obj.status)} → ${JSON.stringify(hs)}`,
      );
    });
  });
});
