// The write-storm guard: a Rollout whose status is rewritten without its step, pod hash or counts
// moving is backed off, reported once and counted; a canary that moves is never held back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout, RolloutStatus } from '../../../src/api/index.ts';
import { ControllerMetrics } from '../../../src/controller/metrics.ts';
import { RolloutReconciler } from '../../../src/controller/rollout-reconciler.ts';
import {
  STORM_BACKOFF_BASE_MS,
  STORM_BACKOFF_MAX_MS,
  STORM_MAX_WRITES,
  STORM_WINDOW_MS,
  statusDiff,
  WriteStormGuard,
} from '../../../src/controller/write-storm.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { silentLogger } from '../../../src/kube/log.ts';
import type { Observed, Plan } from '../../../src/rollout/types.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { rolloutFixture, serviceFixture, Sim, T0 } from '../../fixtures/rollout/sim.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A mid-canary status whose Progressing condition was last updated at `at`. */
function status(at: number, moved: Partial<RolloutStatus> = {}): RolloutStatus {
  return {
    phase: 'Progressing',
    currentPodHash: 'new',
    stableRS: 'old',
    currentStepIndex: 0,
    replicas: 5,
    updatedReplicas: 1,
    readyReplicas: 4,
    availableReplicas: 4,
    conditions: [
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: 'more replicas need to be updated',
        lastUpdateTime: iso(at),
        lastTransitionTime: iso(T0),
      },
    ],
    ...moved,
  };
}

interface Attempt {
  readonly at: number;
  readonly moved?: Partial<RolloutStatus>;
  /** The same status as the previous attempt (no timestamp refreshed). */
  readonly same?: boolean;
}

/** Feeds attempts to a guard as the reconciler does; one token per attempt. */
function run(attempts: readonly Attempt[]): string[] {
  const guard = new WriteStormGuard();
  let prev: RolloutStatus | undefined;
  return attempts.map(({ at, moved, same }) => {
    const s = same && prev ? prev : status(at, moved);
    prev = s;
    const d = guard.decide('ns/web', s, at);
    if (d.kind === 'write') {
      guard.written('ns/web', s, at);
      return 'write';
    }
    return d.started
      ? `storm ${d.retryAfterMs} after ${d.started.writes}: ${d.started.fields.join(',') || '-'}`
      : `hold ${d.retryAfterMs}`;
  });
}

/** `n` attempts `gap` ms apart from `from`, each refreshing the timestamp. */
const every = (n: number, gap: number, from = 0): Attempt[] =>
  Array.from({ length: n }, (_, i) => ({ at: from + i * gap }));

const STORM = `storm ${STORM_BACKOFF_BASE_MS} after ${STORM_MAX_WRITES}: conditions[Progressing].lastUpdateTime`;
const writes = (n: number): string[] => Array<string>(n).fill('write');

describe('WriteStormGuard', () => {
  const rows: { name: string; attempts: Attempt[]; expect: string[] }[] = [
    {
      name: `${STORM_MAX_WRITES} writes without progress pass; the next starts a storm naming the field`,
      attempts: every(STORM_MAX_WRITES + 2, 10),
      expect: [...writes(STORM_MAX_WRITES), STORM, `hold ${STORM_BACKOFF_BASE_MS - 10}`],
    },
    {
      name: 'writes spread wider than the window never storm',
      attempts: every(20, STORM_WINDOW_MS / STORM_MAX_WRITES),
      expect: writes(20),
    },
    {
      name: 'a canary whose counts move every write is never held back, however fast',
      attempts: Array.from({ length: 40 }, (_, i) => ({ at: i, moved: { readyReplicas: i } })),
      expect: writes(40),
    },
    {
      name: 'a step, a pod hash or a stable ReplicaSet that moves is progress too',
      attempts: [
        ...every(5, 1),
        { at: 5, moved: { currentStepIndex: 1 } },
        { at: 6, moved: { currentStepIndex: 1, currentPodHash: 'newer' } },
        { at: 7, moved: { currentStepIndex: 1, currentPodHash: 'newer', stableRS: 'new' } },
      ],
      expect: writes(8),
    },
    {
      name: 'held until the backoff passes, then one probe write, and the backoff doubles',
      attempts: [
        ...every(6, 10),
        { at: 50 + STORM_BACKOFF_BASE_MS - 1 },
        { at: 50 + STORM_BACKOFF_BASE_MS },
        { at: 50 + STORM_BACKOFF_BASE_MS + 1 },
        { at: 50 + 3 * STORM_BACKOFF_BASE_MS },
      ],
      expect: [
        ...writes(5),
        STORM,
        'hold 1',
        'write',
        `hold ${2 * STORM_BACKOFF_BASE_MS - 1}`,
        'write',
      ],
    },
    {
      name: 'the same status written again and again is a storm too (nothing changed)',
      attempts: [{ at: 0 }, ...every(5, 1, 1).map((a) => ({ ...a, same: true }))],
      expect: [...writes(5), `storm ${STORM_BACKOFF_BASE_MS} after 5: -`],
    },
    {
      name: 'progress ends a storm; a new storm after it is reported again',
      attempts: [
        ...every(6, 1),
        { at: 6, moved: { readyReplicas: 5, availableReplicas: 5 } },
        ...every(5, 1, 7).map((a) => ({ ...a, moved: { readyReplicas: 5, availableReplicas: 5 } })),
      ],
      expect: [...writes(5), STORM, ...writes(5), STORM],
    },
    {
      name: 'a planner that planned no status write for a whole window ends the storm',
      attempts: [
        ...every(6, 1),
        { at: 5 + STORM_BACKOFF_BASE_MS + STORM_WINDOW_MS },
        { at: 6 + STORM_BACKOFF_BASE_MS + STORM_WINDOW_MS },
      ],
      expect: [...writes(5), STORM, 'write', 'write'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(run(row.attempts), row.expect));
  }

  it(`the backoff doubles up to ${STORM_BACKOFF_MAX_MS / 1000} s and stays there`, () => {
    const guard = new WriteStormGuard();
    let now = 0;
    for (; now < STORM_MAX_WRITES; now++) guard.written('ns/web', status(now), now);
    const backoffs: number[] = [];
    for (let i = 0; i < 9; i++) {
      const held = guard.decide('ns/web', status(now), now);
      assert.equal(held.kind, 'suppress');
      if (held.kind !== 'suppress') return;
      backoffs.push(held.retryAfterMs);
      now += held.retryAfterMs; // requeued for exactly then: the probe
      assert.equal(guard.decide('ns/web', status(now), now).kind, 'write');
      guard.written('ns/web', status(now), now);
    }
    const base = STORM_BACKOFF_BASE_MS;
    const cap = STORM_BACKOFF_MAX_MS;
    assert.deepEqual(backoffs, [base, 2 * base, 4 * base, 8 * base, 16 * base, cap, cap, cap, cap]);
  });

  it('keeps Rollouts apart', () => {
    const guard = new WriteStormGuard();
    for (let t = 0; t < STORM_MAX_WRITES; t++) guard.written('ns/a', status(t), t);
    assert.equal(guard.decide('ns/b', status(9), 9).kind, 'write');
    assert.equal(guard.decide('ns/a', status(9), 9).kind, 'suppress');
    guard.forget('ns/a');
    assert.equal(guard.decide('ns/a', status(10), 10).kind, 'write');
  });

  /** Feeds every status the real planner wrote in `sim` to a guard, 1 ms apart (worst case). */
  function heldBack(sim: Sim): number[] {
    const statuses = sim.log.flatMap((w) => (w.kind === 'applyStatus' ? [w.status] : []));
    assert.ok(statuses.length >= 3, `the planner wrote its status (${statuses.length} writes)`);
    const guard = new WriteStormGuard();
    return statuses.flatMap((s, i) => {
      if (guard.decide('ns/web', s, i).kind !== 'write') return [i];
      guard.written('ns/web', s, i);
      return [];
    });
  }

  it('the real planner walking a whole canary is never held back, even 1 ms apart', () => {
    const sim = new Sim(rolloutFixture());
    sim.run();
    sim.setImage('web:2');
    sim.run();
    sim.promote();
    sim.run();
    sim.advance(30_000);
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.equal(sim.rollout.status?.stableRS, sim.rollout.status?.currentPodHash);
    assert.deepEqual(heldBack(sim), []);
  });

  it('the real planner walking a blue-green with both analyses, a pause and an abort is never held back', () => {
    const template = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'smoke', namespace: 'ns' },
      spec: { metrics: [{ name: 'm', provider: { web: { url: 'http://127.0.0.1:1/' } } }] },
    };
    const analysis = { templates: [{ templateName: 'smoke' }] };
    const sim = new Sim(
      rolloutFixture({
        strategy: {
          blueGreen: {
            activeService: 'active',
            previewService: 'preview',
            autoPromotionEnabled: false,
            prePromotionAnalysis: analysis,
            postPromotionAnalysis: analysis,
          },
        },
      }),
    );
    sim.analysisTemplates.set('smoke', template);
    for (const name of ['active', 'preview']) sim.services.set(name, serviceFixture(name));
    sim.run();
    const newest = (): string => [...sim.analysisRuns.keys()].at(-1) ?? '';
    for (const image of ['web:2', 'web:3']) {
      sim.setImage(image);
      sim.run();
      sim.setRunPhase(newest(), 'Running');
      sim.run();
      sim.setRunPhase(newest(), 'Successful');
      sim.run();
      sim.promote();
      sim.run();
      sim.setRunPhase(newest(), 'Running');
      sim.run();
      sim.setRunPhase(newest(), image === 'web:2' ? 'Successful' : 'Failed');
      sim.run();
    }
    assert.equal(sim.rollout.status?.phase, 'Degraded');
    assert.deepEqual(heldBack(sim), []);
  });

  it('the real planner on a stuck canary reaches Degraded without being held back', () => {
    const sim = new Sim(
      rolloutFixture({
        progressDeadlineSeconds: 10,
        strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    sim.unreadyImages.add('web:broken');
    sim.run();
    sim.setImage('web:broken');
    sim.run();
    sim.advance(10_000);
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Degraded');
    assert.deepEqual(heldBack(sim), []);
  });
});

describe('statusDiff', () => {
  const rows: { name: string; before: unknown; after: unknown; expect: string[] }[] = [
    { name: 'equal', before: status(1), after: status(1), expect: [] },
    {
      name: 'a condition keyed by type',
      before: status(1),
      after: status(2),
      expect: ['conditions[Progressing].lastUpdateTime'],
    },
    {
      name: 'a field added and one removed',
      before: { message: 'a', phase: 'Progressing' },
      after: { phase: 'Degraded', abort: true },
      expect: ['message', 'phase', 'abort'],
    },
    {
      name: 'pause conditions keyed by reason, plain lists by index',
      before: { pauseConditions: [{ reason: 'CanaryPauseStep', startTime: 'x' }], l: [1, 2] },
      after: { pauseConditions: [{ reason: 'CanaryPauseStep', startTime: 'y' }], l: [1, 3] },
      expect: ['pauseConditions[CanaryPauseStep].startTime', 'l[1]'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(statusDiff(row.before, row.after), row.expect));
  }
});

/** A planner with the bug of issue 6: every pass refreshes lastUpdateTime, nothing else moves. */
function stormyPlanner(o: Observed): Plan {
  return {
    writes: [
      { kind: 'applyStatus', status: status(o.now) },
      { kind: 'event', type: 'Normal', reason: 'RolloutUpdated', message: 'progressing' },
    ],
  };
}

/** A canary whose pods become ready one per pass: counts move on every status write. */
function movingPlanner(o: Observed): Plan {
  const ready = (o.rollout.status?.readyReplicas ?? 0) + 1;
  return { writes: [{ kind: 'applyStatus', status: status(o.now, { readyReplicas: ready }) }] };
}

function setup(planner: (o: Observed) => Plan) {
  const api = new FakeKubeApi();
  api.seed(rolloutFixture());
  const clock = new FakeClock(T0);
  const metrics = new ControllerMetrics({ defaultMetrics: false });
  const events: string[] = [];
  const stored = (): Rollout => api.stored(Resources.Rollout, 'ns', 'web') as unknown as Rollout;
  const reconciler = new RolloutReconciler({
    cache: {
      rollout: stored, // an informer that is always caught up
      replicaSetsOf: () => [],
      podsOf: () => [],
      service: () => undefined,
    },
    api,
    events: { event: (_r, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    clock,
    log: silentLogger,
    planner,
    stormMetrics: {
      stormStarted: () => metrics.statusWriteStorms.inc(),
      writeSuppressed: () => metrics.statusWritesSuppressed.inc(),
    },
  });
  /** A pass every 10 ms (the watch event of our own write, a pod, …) for `ms` of fake time. */
  const drive = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 10) {
      clock.advance(10);
      await reconciler.reconcile('ns/web');
    }
  };
  const statusWrites = () => api.writes().filter((r) => r.verb === 'applyStatus').length;
  const metric = async (name: string) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
  return { api, events, drive, statusWrites, metric, reconciler, clock };
}

describe('RolloutReconciler with the write-storm guard', () => {
  it('a planner that rewrites a timestamp every pass: writes stop, one Warning names the field, counted', async () => {
    const t = setup(stormyPlanner);
    await t.drive(900); // 90 passes, all before the first probe
    assert.equal(t.statusWrites(), STORM_MAX_WRITES);
    const warnings = t.events.filter((e) => e.startsWith('Warning'));
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] ?? '',
      /^Warning StatusWriteStorm: .*conditions\[Progressing\]\.lastUpdateTime/,
    );
    assert.equal(
      t.events.filter((e) => e.startsWith('Normal')).length,
      STORM_MAX_WRITES,
      'the events planned with a held-back status are held back too',
    );
    assert.equal(await t.metric('stepwise_status_write_storms_total'), 1);
    assert.ok((await t.metric('stepwise_status_writes_suppressed_total')) > 80);
  });

  it('a backed-off Rollout is requeued for the probe, and stays quiet and reported once for a minute', async () => {
    const t = setup(stormyPlanner);
    await t.drive(60);
    const result = await t.reconciler.reconcile('ns/web');
    assert.ok(
      (result.requeueAfterMs ?? 0) > 0 && (result.requeueAfterMs ?? 0) <= STORM_BACKOFF_BASE_MS,
    );
    await t.drive(60_000);
    // probes at ~1, 3, 7, 15, 31 s and at the 30 s cap: a handful, not 6,000
    assert.ok(t.statusWrites() <= STORM_MAX_WRITES + 6, `${t.statusWrites()} status writes`);
    assert.equal(t.events.filter((e) => e.startsWith('Warning')).length, 1);
    assert.equal(await t.metric('stepwise_status_write_storms_total'), 1);
  });

  it('a canary whose counts move is never throttled', async () => {
    const t = setup(movingPlanner);
    await t.drive(1000);
    assert.equal(t.statusWrites(), 100);
    assert.deepEqual(t.events, []);
    assert.equal(await t.metric('stepwise_status_write_storms_total'), 0);
    assert.equal(await t.metric('stepwise_status_writes_suppressed_total'), 0);
  });
});
