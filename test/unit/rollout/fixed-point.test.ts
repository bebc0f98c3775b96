// Every state is a fixed point (style.md §6): from any state a random history leads to (healthy
// or broken pods, mid-step, paused, aborted, past a deadline, scaled up or down), passes that
// observe nothing new stop writing within a few passes, and a pass a moment later, before any
// timer is due, writes nothing either. Statuses are stored as the API server stores them
// (test/fixtures/rollout/status-store.ts, checked against the real server end to end).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import type {
  AnalysisPhase,
  AnalysisTemplate,
  CanaryStep,
  RolloutSpec,
} from '../../../src/api/index.ts';

const BROKEN = 'web:broken';
const GIT_WEIGHTS = { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] };
const MAX_PASSES = 4;

type Action =
  | { readonly kind: 'image'; readonly broken: boolean }
  | { readonly kind: 'replicas'; readonly n: number }
  | { readonly kind: 'settle' }
  | { readonly kind: 'pass' }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'promote' | 'abort' | 'retry' | 'promoteFull' | 'pause' | 'resume' }
  /** A GitOps tool resets the router's weights to Git's (all to the stable). */
  | { readonly kind: 'trafficReset' }
  /** The AnalysisRun controller records a phase on the newest run. */
  | { readonly kind: 'runPhase'; readonly phase: AnalysisPhase }
  /** A person approves or rejects through the plugin (a RolloutApproval), possibly for a stale
   *  step, or through a signed link (a record the endpoint writes into status.approvals). */
  | {
      readonly kind: 'decide';
      readonly decision: 'Approve' | 'Reject';
      readonly by: string;
      readonly via: 'plugin' | 'link';
      readonly stepOffset: number;
    };

const ANALYSIS = { templates: [{ templateName: 'check' }] };
const TEMPLATE: AnalysisTemplate = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'AnalysisTemplate',
  metadata: { name: 'check', namespace: 'ns' },
  spec: { metrics: [{ name: 'm', provider: { web: { url: 'http://127.0.0.1:1/' } } }] },
};

const stepLists: readonly (readonly CanaryStep[])[] = [
  [],
  [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: { duration: '30s' } }],
  [{ setWeight: 50 }, { pause: { duration: 60 } }],
  [{ setCanaryScale: { replicas: 2 } }, { setWeight: 20 }, { pause: {} }],
  [{ pause: { duration: '720h' } }],
  [{ setWeight: 25 }, { analysis: ANALYSIS }, { setWeight: 50 }, { pause: {} }],
  [{ setWeight: 25 }, { approval: { timeout: '30m' } }, { setWeight: 50 }],
  [
    { approval: { minApprovals: 2, approvers: { users: ['alice', 'bob'] } } },
    { setWeight: 50 },
    { approval: { timeout: 90, onTimeout: 'pause' } },
  ],
];

const canarySpecs: fc.Arbitrary<Partial<RolloutSpec>> = fc
  .record({
    replicas: fc.integer({ min: 1, max: 6 }),
    progressDeadlineSeconds: fc.constantFrom(10, 60, 600),
    progressDeadlineAbort: fc.boolean(),
    strategy: fc.record({
      canary: fc.record({
        steps: fc.constantFrom(...stepLists).map((steps) => [...steps]),
        maxSurge: fc.constantFrom(0, 1, 2, '25%'),
        maxUnavailable: fc.constantFrom(1, 0, '25%'),
        canaryService: fc.constantFrom(undefined, 'web-canary'),
        stableService: fc.constantFrom(undefined, 'web-stable'),
        analysis: fc.constantFrom(undefined, { ...ANALYSIS, startingStep: 1 }),
        trafficRouting: fc.constantFrom(undefined, { gatewayAPI: { httpRoute: 'web' } }),
        dynamicStableScale: fc.constantFrom(undefined, true),
      }),
    }),
  })
  .filter((s) => !(s.strategy.canary.maxSurge === 0 && s.strategy.canary.maxUnavailable === 0));

const blueGreenSpecs: fc.Arbitrary<Partial<RolloutSpec>> = fc.record({
  replicas: fc.integer({ min: 1, max: 6 }),
  progressDeadlineSeconds: fc.constantFrom(10, 60, 600),
  progressDeadlineAbort: fc.boolean(),
  strategy: fc.record({
    blueGreen: fc.record({
      activeService: fc.constant('web-stable'),
      previewService: fc.constantFrom(undefined, 'web-canary'),
      autoPromotionEnabled: fc.constantFrom(undefined, false, true),
      autoPromotionSeconds: fc.constantFrom(undefined, 0, 30),
      previewReplicaCount: fc.constantFrom(undefined, 1, 2),
      scaleDownDelaySeconds: fc.constantFrom(undefined, 0, 10),
      scaleDownDelayRevisionLimit: fc.constantFrom(undefined, 1, 2),
      abortScaleDownDelaySeconds: fc.constantFrom(undefined, 0, 5),
      prePromotionAnalysis: fc.constantFrom(undefined, ANALYSIS),
      postPromotionAnalysis: fc.constantFrom(undefined, ANALYSIS),
      antiAffinity: fc.constantFrom(undefined, {
        requiredDuringSchedulingIgnoredDuringExecution: {},
      }),
      activeMetadata: fc.constantFrom(undefined, { labels: { role: 'active' } }),
      previewMetadata: fc.constantFrom(undefined, { labels: { role: 'preview' } }),
    }),
  }),
});

const specs: fc.Arbitrary<Partial<RolloutSpec>> = fc.oneof(canarySpecs, blueGreenSpecs);

const actions: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('image' as const), broken: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replicas' as const),
      n: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 4, arbitrary: fc.constant({ kind: 'settle' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'trafficReset' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'pass' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 7_200_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...(['promote', 'abort', 'retry', 'promoteFull', 'pause', 'resume'] as const))
      .map((kind) => ({ kind })),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('decide' as const),
      decision: fc.constantFrom('Approve' as const, 'Reject' as const),
      by: fc.constantFrom('alice', 'bob', 'mallory'),
      via: fc.constantFrom('plugin' as const, 'link' as const),
      stepOffset: fc.constantFrom(0, 0, 0, 1, -1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('runPhase' as const),
      phase: fc.constantFrom(
        ...(['Running', 'Successful', 'Failed', 'Error', 'Inconclusive'] as const),
      ),
    }),
  },
);

function act(sim: Sim, a: Action, version: { n: number }): void {
  switch (a.kind) {
    case 'image':
      sim.setImage(a.broken ? BROKEN : `web:${++version.n}`);
      return;
    case 'replicas':
      return sim.setReplicas(a.n);
    case 'settle':
      return sim.settle();
    case 'trafficReset':
      if (sim.traffic !== undefined) sim.traffic = { state: GIT_WEIGHTS, problems: [] };
      return;
    case 'pass':
      sim.pass();
      return;
    case 'advance':
      return sim.advance(a.ms);
    case 'promote':
      return sim.promote();
    case 'abort':
      return sim.abort();
    case 'retry':
      return sim.retry();
    case 'promoteFull':
      return sim.patchStatus({ promoteFull: true });
    case 'pause':
      return sim.pauseByUser();
    case 'resume':
      return sim.resume();
    case 'decide': {
      const step = (sim.rollout.status?.currentStepIndex ?? 0) + a.stepOffset;
      if (a.via === 'plugin') {
        sim.decide(a.decision, a.by, { step });
        return;
      }
      return sim.recordDecision({
        step,
        revision: sim.rollout.status?.currentPodHash ?? '',
        decision: a.decision,
        by: `link:${a.by}`,
        via: 'link',
        at: new Date(sim.now).toISOString(),
        ref: `link:${++version.n}`,
      });
    }
    case 'runPhase': {
      const newest = [...sim.analysisRuns.keys()].at(-1);
      if (newest !== undefined) sim.setRunPhase(newest, a.phase, `phase ${a.phase}`, '[0.5]');
      return;
    }
  }
}

/** A Rollout with both Services, whose broken image never becomes Ready. */
function simOf(spec: Partial<RolloutSpec>): Sim {
  const sim = new Sim(rolloutFixture(spec));
  sim.unreadyImages.add(BROKEN);
  sim.analysisTemplates.set('check', TEMPLATE);
  for (const name of ['web-canary', 'web-stable']) sim.services.set(name, serviceFixture(name));
  if (spec.strategy?.canary?.trafficRouting !== undefined) {
    sim.traffic = { state: GIT_WEIGHTS, problems: [] };
  }
  return sim;
}

/** Passes at one instant until one writes nothing; the number of passes that wrote. */
function converge(sim: Sim): number {
  for (let i = 0; i < MAX_PASSES; i++) if (sim.pass().writes.length === 0) return i;
  throw new Error(`still writing after ${MAX_PASSES} passes: ${JSON.stringify(sim.pass().writes)}`);
}

describe('every state is a fixed point', () => {
  it('passes that observe nothing new stop writing, now and a moment later', () => {
    fc.assert(
      fc.property(specs, fc.array(actions, { maxLength: 40 }), (spec, history) => {
        const sim = simOf(spec);
        const version = { n: 1 };
        for (const a of history) act(sim, a, version);

        converge(sim);
        const idle = sim.pass();
        assert.deepEqual(idle.writes, []);
        const moment = Math.min(1_000, (idle.requeueAfterMs ?? Infinity) - 1);
        if (moment > 0) {
          sim.advance(moment);
          assert.deepEqual(sim.pass().writes, [], `a pass ${moment} ms later wrote`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('timestamps move only with what they describe', () => {
    fc.assert(
      fc.property(specs, fc.array(actions, { maxLength: 40 }), (spec, history) => {
        const sim = simOf(spec);
        const version = { n: 1 };
        for (const a of history) {
          const before = structuredClone(sim.rollout.status?.conditions ?? []);
          act(sim, a, version);
          if (a.kind !== 'pass') continue;
          for (const c of sim.rollout.status?.conditions ?? []) {
            const was = before.find((b) => b.type === c.type);
            if (was === undefined || was.lastTransitionTime === c.lastTransitionTime) continue;
            assert.notEqual(
              was.status,
              c.status,
              `${c.type}.lastTransitionTime moved without a flip`,
            );
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
