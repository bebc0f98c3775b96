// deploy/argocd/actions/ on a real Lua 5.1: each action writes exactly the status fields
// `kubectl stepwise` writes for the same request (src/cli/requests.ts), never anything outside
// status, and discovery.lua enables an action exactly when it would write something.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import {
  decideAbort,
  decidePromote,
  decideRetry,
  type Decision,
} from '../../../src/cli/requests.ts';
import { ACTIONS, type ActionName } from '../../lua/argocd-cm.ts';
import {
  applyMergePatch,
  discovery,
  findLua,
  runLua,
  runLuaMany,
  splitStatusPatch,
  type DiscoveredAction,
  type LuaOutcome,
} from '../../lua/run-lua.ts';
import {
  ACTION_LUA,
  DISCOVERY_LUA,
  aborted,
  awaitingApproval,
  blueGreenCutover,
  blueGreenPaused,
  blueGreenSpec,
  pausedByUser,
  healthy,
  inconclusive,
  notObserved,
  pausedAtStep,
  progressing,
  rollout,
} from './fixtures.ts';

const lua = findLua();
const skip = 'skip' in lua ? lua.skip : false;

/** The plugin's decision for the request an action stands for. */
const PLUGIN: Record<ActionName, (ro: Rollout) => Decision> = {
  promote: (ro) => decidePromote(ro, { full: false }),
  'promote-full': (ro) => decidePromote(ro, { full: true }),
  abort: decideAbort,
  retry: decideRetry,
};

/** As the API server would serve it: plain JSON, no undefined keys. */
const json = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

/** The fixture's steps with an approval step where the second pause step was. */
const withApprovalStep: Partial<Rollout['spec']> = {
  strategy: { canary: { steps: [{ setWeight: 25 }, { approval: {} }, { setWeight: 50 }] } },
};

type Expect = { patch: object } | { noop: true } | { error: RegExp };

/** Runs an action as Argo CD would and returns the status patch it leads to. */
function run(name: ActionName, obj: Rollout): { patch?: unknown; error?: string } {
  const live = json(obj);
  const outcome = runLua(ACTION_LUA[name], live, `${name}/action.lua`);
  if (!outcome.ok) return { error: outcome.error };
  const { statusPatch, otherPatch } = splitStatusPatch(live, outcome.value);
  assert.equal(otherPatch, undefined, `${name} changed more than status`);
  return { patch: statusPatch };
}

interface Case {
  readonly name: string;
  readonly obj: Rollout;
  readonly expect: Expect;
}

const T = '2026-03-01T12:00:00Z';
const noStepLeft: RolloutStatus = { ...progressing, currentStepIndex: 4, message: 'x' };

const cases: Record<ActionName, Case[]> = {
  promote: [
    {
      name: 'paused at a pause step: clears the pause conditions',
      obj: rollout(pausedAtStep),
      expect: { patch: { status: { pauseConditions: null } } },
    },
    {
      name: 'awaiting approval: refuses, pointing at approve',
      obj: rollout(awaitingApproval),
      expect: {
        error: /waits for approval at step \d+; approve it with 'kubectl stepwise approve web'/,
      },
    },
    {
      name: 'paused by a person: refuses, pointing at resume',
      obj: rollout(pausedByUser),
      expect: {
        error: /was paused with 'kubectl stepwise pause'; use 'kubectl stepwise resume web'/,
      },
    },
    {
      name: 'inconclusive analysis: clears the pause conditions (the controller goes on)',
      obj: rollout(inconclusive),
      expect: { patch: { status: { pauseConditions: null } } },
    },
    {
      name: 'mid-step and not paused: skips the current step',
      obj: rollout(progressing),
      expect: { patch: { status: { currentStepIndex: 1 } } },
    },
    {
      name: 'aborted: refuses, pointing at retry',
      obj: rollout(aborted),
      expect: { error: /is aborted; run the retry action/ },
    },
    {
      name: 'paused in Git: refuses',
      obj: rollout(pausedAtStep, { paused: true }),
      expect: { error: /spec\.paused/ },
    },
    { name: 'fully promoted: nothing to write', obj: rollout(healthy), expect: { noop: true } },
    {
      name: 'spec not yet observed: refuses',
      obj: rollout(notObserved),
      expect: { error: /has not yet observed the latest spec of rollout 'web' \(generation 2\)/ },
    },
    {
      name: 'no status at all: refuses',
      obj: rollout(),
      expect: { error: /has not yet observed/ },
    },
    {
      name: 'no step left and not fully promoted: refuses, pointing at promote-full',
      obj: rollout(noStepLeft),
      expect: { error: /no step left to skip; run promote-full/ },
    },
  ],
  'promote-full': [
    {
      name: 'paused: asks for full promotion and clears the pause',
      obj: rollout(pausedAtStep),
      expect: { patch: { status: { promoteFull: true, pauseConditions: null } } },
    },
    {
      name: 'progressing with an empty pauseConditions list',
      obj: rollout(progressing),
      expect: { patch: { status: { promoteFull: true, pauseConditions: null } } },
    },
    {
      name: 'aborted: skips to the end',
      obj: rollout(aborted),
      expect: { patch: { status: { promoteFull: true, pauseConditions: null } } },
    },
    {
      name: 'no status yet',
      obj: rollout(),
      expect: { patch: { status: { promoteFull: true } } },
    },
    {
      name: 'already being fully promoted: nothing to write',
      obj: rollout({ ...pausedAtStep, promoteFull: true, pauseConditions: [] }),
      expect: { noop: true },
    },
    { name: 'fully promoted: nothing to write', obj: rollout(healthy), expect: { noop: true } },
    {
      name: 'paused in Git: refuses',
      obj: rollout(pausedAtStep, { paused: true }),
      expect: { error: /spec\.paused/ },
    },
    {
      name: 'an approval step ahead: refuses, pointing at approve (the API server would refuse)',
      obj: rollout(awaitingApproval, withApprovalStep),
      expect: {
        error: /has an approval step ahead \(step 2\), which a full promotion may not skip/,
      },
    },
  ],
  abort: [
    {
      name: 'paused: sets status.abort',
      obj: rollout(pausedAtStep),
      expect: { patch: { status: { abort: true } } },
    },
    {
      name: 'progressing: sets status.abort',
      obj: rollout(progressing),
      expect: { patch: { status: { abort: true } } },
    },
    {
      name: 'a spec the controller has not observed yet: sets status.abort',
      obj: rollout(notObserved),
      expect: { patch: { status: { abort: true } } },
    },
    { name: 'already aborted: nothing to write', obj: rollout(aborted), expect: { noop: true } },
    {
      name: 'fully promoted and Healthy: refuses',
      obj: rollout(healthy),
      expect: { error: /fully promoted; there is no update in progress to abort/ },
    },
  ],
  retry: [
    {
      name: 'aborted: clears status.abort (false, as the plugin writes it)',
      obj: rollout(aborted),
      expect: { patch: { status: { abort: false } } },
    },
    {
      name: 'not aborted: refuses',
      obj: rollout(pausedAtStep),
      expect: { error: /is not aborted; retry only restarts an aborted update/ },
    },
    { name: 'no status: refuses', obj: rollout(), expect: { error: /is not aborted/ } },
  ],
};

describe('Argo CD actions', { skip }, () => {
  for (const name of ACTIONS) {
    describe(name, () => {
      for (const c of cases[name]) {
        it(c.name, () => {
          const got = run(name, c.obj);
          if ('error' in c.expect) {
            assert.match(got.error ?? '(no error)', c.expect.error);
            return;
          }
          assert.equal(got.error, undefined);
          if ('noop' in c.expect) assert.equal(got.patch, undefined, 'wrote something');
          else assert.deepEqual(got.patch, c.expect.patch);
        });
      }
    });
  }

  it('changes only status, never spec, in every state above', () => {
    const objs = Object.values(cases)
      .flat()
      .map((c) => json(c.obj));
    for (const name of ACTIONS) {
      runLuaMany(ACTION_LUA[name], objs, `${name}/action.lua`).forEach((outcome, i) => {
        if (!outcome.ok) return;
        const { otherPatch } = splitStatusPatch(objs[i], outcome.value);
        assert.equal(otherPatch, undefined, `${name} changed more than status`);
      });
    }
  });
});

const bgGate: Partial<Rollout['spec']> = {
  strategy: {
    blueGreen: { activeService: 'web-active', previewService: 'web-preview', approval: {} },
  },
};

interface DiscoveryCase {
  readonly name: string;
  readonly obj: Rollout;
  readonly enabled: readonly ActionName[];
}

const discoveryCases: DiscoveryCase[] = [
  { name: 'Healthy, fully promoted: nothing to do', obj: rollout(healthy), enabled: [] },
  {
    name: 'paused at a step',
    obj: rollout(pausedAtStep),
    enabled: ['promote', 'promote-full', 'abort'],
  },
  {
    name: 'awaiting approval (people approve; promote does not count)',
    obj: rollout(awaitingApproval),
    enabled: ['promote-full', 'abort'],
  },
  {
    name: 'awaiting approval at an approval step: no full promotion past it',
    obj: rollout(awaitingApproval, withApprovalStep),
    enabled: ['abort'],
  },
  {
    name: 'paused by a person (resume is the plugin’s)',
    obj: rollout(pausedByUser),
    enabled: ['promote-full', 'abort'],
  },
  {
    name: 'progressing mid-step (promote skips the step)',
    obj: rollout(progressing),
    enabled: ['promote', 'promote-full', 'abort'],
  },
  { name: 'aborted', obj: rollout(aborted), enabled: ['promote-full', 'retry'] },
  {
    name: 'blue-green at its pause before the switch',
    obj: rollout(blueGreenPaused, blueGreenSpec),
    enabled: ['promote', 'promote-full', 'abort'],
  },
  {
    name: 'blue-green promoted, cutover pending (controllerPause kept): no promote left',
    obj: rollout(blueGreenCutover, blueGreenSpec),
    enabled: ['promote-full', 'abort'],
  },
  {
    name: 'blue-green with an approval gate not yet approved: no full promotion past it',
    obj: rollout({ ...blueGreenCutover, currentStepIndex: 0 }, bgGate),
    enabled: ['abort'],
  },
  {
    name: 'blue-green whose gate the controller has passed (index 1)',
    obj: rollout({ ...blueGreenCutover, currentStepIndex: 1 }, bgGate),
    enabled: ['promote-full', 'abort'],
  },

  {
    name: 'paused in Git: no promotion from Argo CD',
    obj: rollout(pausedAtStep, { paused: true }),
    enabled: ['abort'],
  },
  {
    name: 'a full promotion under way',
    obj: rollout({ ...progressing, promoteFull: true }),
    enabled: ['promote', 'abort'],
  },
  {
    name: 'no step left, not fully promoted (old pods pending termination)',
    obj: rollout(noStepLeft),
    enabled: ['promote-full', 'abort'],
  },
  {
    name: 'a spec not yet observed',
    obj: rollout({
      ...notObserved,
      pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T }],
    }),
    enabled: ['promote', 'promote-full', 'abort'],
  },
];

describe('discovery.lua', { skip }, () => {
  for (const c of discoveryCases) {
    it(`${c.name}: ${c.enabled.length ? c.enabled.join(', ') : 'none'} enabled`, () => {
      const actions = discovery(DISCOVERY_LUA, json(c.obj));
      assert.deepEqual(Object.keys(actions).sort(), [...ACTIONS].sort());
      const enabled = ACTIONS.filter((a) => actions[a]?.disabled === false);
      assert.deepEqual(enabled, [...c.enabled]);
      for (const a of ACTIONS) {
        assert.equal(typeof actions[a]?.disabled, 'boolean');
        assert.match(actions[a]?.iconClass ?? '', /^fa /);
      }
    });
  }
});

/** Random Rollouts over the fields the decisions read. */
const arbitraryRollout: fc.Arbitrary<Rollout> = fc
  .record({
    hasStatus: fc.boolean(),
    // true: an approval step (a full promotion may not skip it), false: a setWeight step.
    steps: fc.array(fc.boolean(), { maxLength: 4 }),
    // blueGreenGate: with an approval gate before the switch.
    strategy: fc.constantFrom('canary', 'canary', 'blueGreen', 'blueGreenGate'),
    specPaused: fc.option(fc.boolean(), { nil: undefined }),
    status: fc.record(
      {
        observedGeneration: fc.constantFrom('1', '2'),
        phase: fc.constantFrom('Healthy', 'Progressing', 'Paused', 'Degraded'),
        currentStepIndex: fc.integer({ min: 0, max: 5 }),
        pauseConditions: fc.array(
          fc
            .constantFrom(
              'CanaryPauseStep',
              'BlueGreenPause',
              'AwaitingApproval',
              'InconclusiveAnalysisRun',
            )
            .map((reason) => ({ reason, startTime: T })),
          { maxLength: 2 },
        ),
        controllerPause: fc.boolean(),
        abort: fc.boolean(),
        promoteFull: fc.boolean(),
        stableRS: fc.constantFrom('h2', 'h3', ''),
        currentPodHash: fc.constantFrom('h2', 'h3'),
        approvals: fc.array(
          fc.record({
            revision: fc.constantFrom('h2', 'h3'),
            decision: fc.constantFrom('Approve' as const, 'Reject' as const),
          }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ hasStatus, steps, strategy, specPaused, status }) =>
    json(
      rollout(
        hasStatus
          ? {
              ...status,
              approvals: status.approvals?.map((r) => ({
                ...r,
                step: 0,
                by: 'a',
                via: 'plugin',
                at: T,
              })),
            }
          : undefined,
        {
          ...(specPaused !== undefined ? { paused: specPaused } : {}),
          strategy:
            strategy === 'canary'
              ? {
                  canary: {
                    steps: steps.map((approval, i) =>
                      approval ? { approval: {} } : { setWeight: 10 * (i + 1) },
                    ),
                  },
                }
              : {
                  blueGreen: {
                    activeService: 'web-active',
                    ...(strategy === 'blueGreenGate' ? { approval: {} } : {}),
                  },
                },
        },
      ),
    ),
  );

describe(
  'the actions and discovery agree with `kubectl stepwise` on random Rollouts',
  { skip },
  () => {
    const objs = skip ? [] : fc.sample(arbitraryRollout, { numRuns: 300, seed: 7 });

    for (const name of ACTIONS) {
      it(name, () => {
        const outcomes: LuaOutcome[] = runLuaMany(ACTION_LUA[name], objs, `${name}/action.lua`);
        const kinds = new Set<Decision['kind']>();
        objs.forEach((obj, i) => {
          const outcome = outcomes[i];
          const decision = PLUGIN[name](obj);
          kinds.add(decision.kind);
          const where = `${name} on ${JSON.stringify({ spec: obj.spec.paused, status: obj.status })}`;
          assert.ok(outcome, where);
          if (decision.kind === 'error') {
            assert.equal(outcome.ok, false, `${where}: the plugin refuses (${decision.message})`);
            return;
          }
          assert.ok(outcome.ok, `${where}: ${outcome.ok ? '' : outcome.error}`);
          const { otherPatch } = splitStatusPatch(obj, outcome.value);
          assert.equal(otherPatch, undefined, `${where}: changed more than status`);
          const expected =
            decision.kind === 'noop' ? obj : applyMergePatch(obj, { status: decision.status });
          assert.deepEqual(outcome.value, expected, where);
        });
        // The sample reaches every kind of decision (retry never has nothing to do).
        assert.deepEqual(
          [...kinds].sort(),
          name === 'retry' ? ['error', 'patch'] : ['error', 'noop', 'patch'],
        );
      });
    }

    it('discovery enables exactly the requests the plugin would write', () => {
      const outcomes = runLuaMany(DISCOVERY_LUA, objs, 'discovery.lua');
      objs.forEach((obj, i) => {
        const outcome = outcomes[i];
        assert.ok(outcome?.ok, JSON.stringify(outcome));
        const actions = outcome.value as Record<string, DiscoveredAction>;
        for (const name of ACTIONS) {
          const writes = PLUGIN[name](obj).kind === 'patch';
          assert.equal(
            actions[name]?.disabled,
            !writes,
            `${name} on ${JSON.stringify({ spec: obj.spec.paused, status: obj.status })}`,
          );
        }
      });
    });
  },
);
