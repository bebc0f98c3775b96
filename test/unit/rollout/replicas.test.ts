// Replica math for canary rollouts: Argo Rollouts' own test tables (utils/replicaset/canary_test.go)
// ported row by row, then properties over random states.
import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  approximateWeightedCounts,
  canaryCounts,
  desiredCounts,
  weightToReplicas,
} from '../../../src/rollout/canary/replicas.ts';
import type {
  CanaryScale,
  ReplicaInput,
  RsCounts,
  TrafficWeights,
} from '../../../src/rollout/canary/replicas.ts';
import { resolveSurgeUnavailable } from '../../../src/api/intorpercent.ts';

type Pods = readonly [spec: number, available: number];
const rs = ([spec, available]: Pods): RsCounts => ({ spec, available });

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** One row of Argo's TestCalculateReplicaCountsForCanary, inputs as Argo writes them. */
interface Row {
  readonly replicas: number;
  readonly weight: number;
  readonly surge?: number | string; // maxSurge as written in the Rollout
  readonly unavailable?: number | string; // maxUnavailable likewise
  readonly stable: Pods;
  readonly canary?: Pods;
  readonly older?: Pods;
  readonly trafficRouted?: boolean;
  readonly canaryScale?: CanaryScale;
}

function input(r: Row): ReplicaInput {
  const limits = resolveSurgeUnavailable(r.surge, r.unavailable, r.replicas);
  assert.ok(limits.ok, limits.ok ? '' : limits.error);
  return deepFreeze({
    replicas: r.replicas,
    weight: r.weight,
    ...limits.value,
    stable: rs(r.stable),
    canary: rs(r.canary ?? [0, 0]),
    others: r.older ? [rs(r.older)] : [],
    trafficRouted: r.trafficRouted ?? false,
    ...(r.canaryScale ? { canaryScale: r.canaryScale } : {}),
  });
}

// [name, row, expected canary, expected stable]. Argo's row values, except where a comment says
// how an input Argo reads from the Rollout (promoteFull, abort, …) reaches us already resolved.
// prettier-ignore
const argoRows: ReadonlyArray<readonly [string, Row, number, number]> = [
  ['Do not add extra RSs in scaleDownCount when .Spec.Replica < AvailableReplicas',
    { replicas: 10, weight: 100, surge: 3, unavailable: 0, stable: [7, 8], canary: [6, 3] }, 6, 7],
  ['Use max surge int to scale up canary',
    { replicas: 10, weight: 20, surge: 2, unavailable: 0, stable: [10, 10], canary: [0, 0] }, 2, 10],
  ['Use max surge percentage to scale up canary',
    { replicas: 10, weight: 20, surge: '20%', unavailable: 0, stable: [10, 10], canary: [0, 0] }, 2, 10],
  ['Scale down extra stable replicas',
    { replicas: 10, weight: 20, surge: '20%', unavailable: 0, stable: [10, 10], canary: [2, 2] }, 2, 8],
  ['Do not go past max surge',
    { replicas: 10, weight: 30, surge: 2, unavailable: 0, stable: [10, 10], canary: [0, 0] }, 2, 10],
  ['Use max unavailable int to scale down stableRS',
    { replicas: 10, weight: 20, surge: 0, unavailable: 2, stable: [10, 10], canary: [0, 0] }, 0, 8],
  ['Use max surge percentage to scale down stableRS',
    { replicas: 10, weight: 20, surge: 0, unavailable: '20%', stable: [10, 10], canary: [0, 0] }, 0, 8],
  ['Do not go past max unavailable',
    { replicas: 10, weight: 30, surge: 0, unavailable: 2, stable: [10, 10], canary: [0, 0] }, 0, 8],
  ['Use Max Surge and Max Unavailable',
    { replicas: 10, weight: 50, surge: 2, unavailable: 1, stable: [10, 10], canary: [0, 0] }, 2, 9],
  ['Scale canaryRS to zero on setWeight of 0%',
    { replicas: 10, weight: 0, surge: 1, unavailable: 1, stable: [10, 10], canary: [1, 1] }, 0, 10],
  ['Scale stable to zero on setWeight of 100%',
    { replicas: 10, weight: 100, surge: 1, unavailable: 1, stable: [1, 1], canary: [10, 10] }, 10, 0],
  ['Do not scale canaryRS down to zero on non-zero weight',
    { replicas: 1, weight: 20, surge: 1, unavailable: 0, stable: [1, 1], canary: [0, 0] }, 1, 1],
  ['Do not scale canaryRS down to zero on non-100 weight',
    { replicas: 1, weight: 90, surge: 1, unavailable: 0, stable: [1, 1], canary: [0, 0] }, 1, 1],
  ['Scale canaryRS to zero on <50 weight without surge',
    { replicas: 1, weight: 49, surge: 0, unavailable: 1, stable: [1, 1], canary: [0, 0] }, 0, 1],
  ['Scale stableRS down to zero on >=50 weight without surge',
    { replicas: 1, weight: 51, surge: 0, unavailable: 1, stable: [1, 1], canary: [0, 0] }, 0, 0],
  ['Scale canaryRS to one on >=50 weight without surge and stable replicas',
    { replicas: 1, weight: 51, surge: 0, unavailable: 1, stable: [0, 0], canary: [0, 0] }, 1, 0],
  ['Scale up Stable before canaryRS',
    { replicas: 10, weight: 30, surge: 1, unavailable: 0, stable: [1, 1], canary: [0, 0],
      older: [3, 3] }, 1, 7],
  ['Scale down canaryRS and stable',
    { replicas: 10, weight: 30, surge: 0, unavailable: 3, stable: [8, 5], canary: [4, 4] }, 3, 7],
  ['Scale down stable and canary available',
    { replicas: 10, weight: 100, surge: 1, unavailable: 0, stable: [10, 2], canary: [10, 8] }, 9, 2],
  ['Do not scale down canaryRS or stable when older RS count >= scaleDownCount',
    { replicas: 10, weight: 30, surge: 0, unavailable: 1, stable: [8, 6], canary: [4, 2],
      older: [3, 3] }, 4, 8],
  ['Do not round past maxSurge with uneven setWeight divisor',
    { replicas: 10, weight: 5, surge: 0, unavailable: 1, stable: [10, 10], canary: [0, 0] }, 0, 9],
  ['Do not round past maxSurge with uneven setWeight divisor (part 2)',
    { replicas: 10, weight: 5, surge: 0, unavailable: 1, stable: [9, 9], canary: [0, 0] }, 1, 9],
  // Argo writes maxSurge "0%", maxUnavailable "0%": written explicitly, that pair is invalid (Argo's
  // validation and ours reject it), so the row reaches "both resolve to 0" as a valid spec does.
  ['Use maxUnavailable of 1 when percentage of maxUnavailable and maxSurge result in 0 replicas',
    { replicas: 10, weight: 10, surge: '0%', unavailable: '5%', stable: [10, 10], canary: [0, 0] }, 0, 9],
  ['For canary replicas, use setCanaryScale.replicas when specified along with trafficRouting (and ignore setWeight)',
    { replicas: 1, weight: 100, stable: [1, 1], trafficRouted: true, canaryScale: { replicas: 9 } }, 9, 1],
  ['Use setCanaryScale.weight for canary replicas when specified with trafficRouting (and ignore setWeight)',
    { replicas: 4, weight: 100, stable: [4, 4], trafficRouted: true, canaryScale: { weight: 200 } }, 8, 4],
  ['Ignore setCanaryScale replicas/weight when matchTrafficWeight is true',
    { replicas: 10, weight: 20, surge: '20%', unavailable: 0, stable: [10, 10], canary: [0, 0],
      trafficRouted: true, canaryScale: { replicas: 9, weight: 100, matchTrafficWeight: true } }, 2, 10],
  ['Ignore setCanaryScale when trafficRouting is missing and use setWeight for replicas',
    { replicas: 10, weight: 20, surge: '20%', unavailable: 0, stable: [10, 10], canary: [0, 0],
      canaryScale: { replicas: 9, weight: 100 } }, 2, 10],
  ['honor maxSurge during scale up when stableRS unavailable',
    { replicas: 4, weight: 100, surge: 1, unavailable: 0, stable: [4, 1], canary: [0, 0] }, 1, 4],
  ['scale down to maxunavailable without exceeding maxSurge',
    { replicas: 3, weight: 99, surge: 0, unavailable: 2, stable: [3, 3], canary: [0, 0] }, 0, 1],
  ['scale down to maxunavailable without exceeding maxSurge (part 2)',
    { replicas: 3, weight: 99, surge: 0, unavailable: 2, stable: [1, 1], canary: [0, 0] }, 2, 1],
  ['honor maxUnavailable during scale down stableRS unavailable',
    { replicas: 4, weight: 100, surge: 1, unavailable: 0, stable: [4, 1], canary: [1, 1] }, 1, 3],
  ['honor maxUnavailable when aborting or reducing weight part 1',
    { replicas: 4, weight: 0, surge: 1, unavailable: 0, stable: [0, 0], canary: [4, 4] }, 4, 1],
  ['honor maxUnavailable when aborting or reducing weight part 2',
    { replicas: 4, weight: 0, surge: 1, unavailable: 0, stable: [1, 0], canary: [4, 4] }, 4, 1],
  ['honor maxUnavailable when aborting or reducing weight part 3',
    { replicas: 4, weight: 0, surge: 1, unavailable: 0, stable: [1, 1], canary: [4, 4] }, 3, 1],
  // promoteFull: the planner passes the maximum weight, whatever the step's setWeight (1 here).
  ['promote full does not consider weight',
    { replicas: 4, weight: 100, surge: 4, unavailable: 4, stable: [4, 4], canary: [0, 0] }, 4, 0],
  ['promote full still honors maxSurge/maxUnavailable',
    { replicas: 4, weight: 100, surge: 3, unavailable: 0, stable: [4, 4], canary: [0, 0] }, 3, 4],
  // On abort the planner passes weight 0, and keeps setCanaryScale only when the user set
  // abortScaleDownDelaySeconds: 0 (Argo's UseSetCanaryScale).
  ['aborted with abortScaleDownDelaySeconds:0 and setCanaryScale',
    { replicas: 1, weight: 0, stable: [1, 1], canary: [1, 1], trafficRouted: true,
      canaryScale: { replicas: 1 } }, 1, 1],
  ['aborted with abortScaleDownDelaySeconds>0 and setCanaryScale',
    { replicas: 1, weight: 0, stable: [1, 1], canary: [1, 1], trafficRouted: true }, 0, 1],
  // minPodsPerReplicaSet is not in scope; here Argo caps it at replicas (1), which changes nothing.
  // ("Honor MinPodsPerReplicaSet when using trafficRouting and starting canary" is not ported.)
  ['Cap MinPodsPerReplicaSet when it exceeds rollout replicas with trafficRouting',
    { replicas: 1, weight: 100, stable: [1, 1], canary: [0, 0], trafficRouted: true }, 1, 1],
  // Not in Argo's table; Argo's result on the local cluster (issue 6): replicas 4 → 6 → 4.
  ['Give back unready canary pods when replicas went down, within maxSurge',
    { replicas: 4, weight: 100, surge: 2, unavailable: 0, stable: [4, 4], canary: [4, 0] }, 2, 4],
  ['Keep available pods over maxSurge: only the availability budget moves those',
    { replicas: 4, weight: 100, surge: 1, unavailable: 0, stable: [4, 4], canary: [4, 4] }, 4, 0],
];

suite('canaryCounts: Argo TestCalculateReplicaCountsForCanary', () => {
  for (const [name, row, expCanary, expStable] of argoRows) {
    test(name, () => {
      const got = canaryCounts(input(row));
      assert.deepEqual([got.canary, got.stable], [expCanary, expStable]);
    });
  }
});

suite('canaryCounts: Argo single-case tests', () => {
  const base = { maxSurge: 0, maxUnavailable: 1, others: [], trafficRouted: false } as const;
  test('TestCalculateReplicaCountsForNewDeployment: canary is the stable → all replicas', () => {
    // Argo passes the same ReplicaSet as new and stable; we pass no stable.
    const got = canaryCounts({ ...base, replicas: 10, weight: 10, canary: rs([10, 0]) });
    assert.deepEqual(got, { canary: 10, stable: 0, others: [] });
  });
  test('TestCalculateReplicaCountsForCanaryStableRSdEdgeCases: no stable → all replicas', () => {
    const got = canaryCounts({ ...base, replicas: 10, weight: 10, canary: rs([9, 9]) });
    assert.deepEqual(got, { canary: 10, stable: 0, others: [] });
  });
  test('TestCalculateReplicaCountsForCanaryTrafficRouting', () => {
    const got = desiredCounts({ replicas: 10, weight: 10, maxSurge: 0, trafficRouted: true });
    assert.deepEqual(got, { canary: 1, stable: 10 });
  });
  test('TestTrafficWeightToReplicas', () => {
    const cases: ReadonlyArray<readonly [number, number, number, number]> = [
      [10, 0, 100, 0],
      [10, 20, 100, 2],
      [10, 25, 100, 3],
      [10, 33, 100, 4],
      [10, 99, 100, 10],
      [10, 100, 100, 10],
      [23, 100000000, 100000000, 23],
    ];
    for (const [replicas, weight, max, want] of cases) {
      assert.equal(weightToReplicas(replicas, weight, max), want, `${replicas} × ${weight}/${max}`);
    }
  });
  // The examples in the doc comment of Argo's CalculateReplicaCountsForBasicCanary. One of them
  // ("replicas 10 currentWeight 5 … surge 1 - should return newRS 1 stableRS 9") predates its
  // closest-weight rounding: Argo's current code, like ours, answers 1 and 10 (1 of 11 pods is
  // 9.1%, closer to 5% than 1 of 10), so it is not ported.
  const examples: ReadonlyArray<readonly [number, number, number, number, number, number]> = [
    // replicas, weight, maxUnavailable, maxSurge, canary, stable
    [10, 10, 1, 1, 1, 9],
    [10, 30, 0, 3, 3, 10],
    [10, 30, 5, 0, 0, 7],
    [1, 5, 0, 1, 1, 1],
    [1, 95, 0, 1, 1, 1],
  ];
  for (const [replicas, weight, maxUnavailable, maxSurge, canary, stable] of examples) {
    test(`doc example: replicas ${replicas} weight ${weight} unavailable ${maxUnavailable} surge ${maxSurge}`, () => {
      const got = canaryCounts({
        replicas,
        weight,
        maxSurge,
        maxUnavailable,
        trafficRouted: false,
        stable: rs([replicas, replicas]),
        canary: rs([0, 0]),
        others: [],
      });
      assert.deepEqual([got.canary, got.stable], [canary, stable]);
    });
  }
});

suite('desiredCounts: Argo TestCalculateReplicaCountsForCanaryTrafficRoutingDynamicScale', () => {
  // Argo's helper passes the row's "rolloutMaxReplicas" as setWeight. The weight below is what
  // the planner resolves: on abort with both ReplicaSets present, Argo's GetDesiredCanaryWeight
  // steps back through setWeight steps ([20, 60] here) to the first whose canary count is below
  // the canary still needed: 20; on abort without them, 0; otherwise the step's setWeight.
  // name, weight, abort, current traffic weights, expected canary, expected stable
  // prettier-ignore
  const rows: ReadonlyArray<readonly [string, number, boolean, TrafficWeights, number, number]> = [
    ['Should scale stable replica up depending on next expected canary downscale step, if abort is true',
      20, true, { canary: 60, stable: 40 }, 6, 8],
    ['Should scale stable replica up depending on available canary replicas, if actual number of canaries is less than expected and abort is true',
      20, true, { canary: 60, stable: 40 }, 6, 8],
    ['Should scale stable replica up depending on available stable replicas, if abort is true',
      20, true, { canary: 60, stable: 40 }, 6, 8],
    ['Should scale stable up as if canaries are scaled down to 0 if stable and canary replicas not passed, and abort is true',
      0, true, { canary: 60, stable: 40 }, 6, 10],
    ['Should scale down stable',
      10, false, { canary: 10, stable: 90 }, 1, 9],
    ['Should take max of desired canary (20) > actual (10)',
      20, false, { canary: 10, stable: 90 }, 2, 9],
    ['Should leave canary scaled up if there is still traffic to it on abort',
      0, true, { canary: 20, stable: 80 }, 2, 10],
    ['Should reduce canary when there is less traffic to it on abort',
      0, true, { canary: 10, stable: 90 }, 1, 10],
  ];
  for (const [name, weight, abort, trafficWeights, canary, stable] of rows) {
    test(name, () => {
      const i = deepFreeze({
        replicas: 10,
        weight,
        maxSurge: 0,
        trafficRouted: true,
        dynamicStableScale: true,
        abort,
        trafficWeights,
      });
      assert.deepEqual(desiredCounts(i), { canary, stable });
    });
  }
});

suite('approximateWeightedCounts: Argo TestApproximateWeightedNewStableReplicaCounts', () => {
  // replicas, weight, maxWeight, maxSurge, canary, stable
  const rows: ReadonlyArray<readonly [number, number, number, number, number, number]> = [
    [0, 0, 100, 0, 0, 0],
    [0, 50, 100, 0, 0, 0],
    [0, 100, 100, 0, 0, 0],
    [0, 0, 100, 1, 0, 0],
    [0, 50, 100, 1, 0, 0],
    [0, 100, 100, 1, 0, 0],
    [1, 0, 100, 0, 0, 1],
    [1, 1, 100, 0, 0, 1],
    [1, 49, 100, 0, 0, 1],
    [1, 50, 100, 0, 1, 0],
    [1, 99, 100, 0, 1, 0],
    [1, 100, 100, 0, 1, 0],
    [1, 0, 100, 1, 0, 1],
    [1, 1, 100, 1, 1, 1],
    [1, 49, 100, 1, 1, 1],
    [1, 50, 100, 1, 1, 1],
    [1, 99, 100, 1, 1, 1],
    [1, 100, 100, 1, 1, 0],
    [2, 0, 100, 0, 0, 2],
    [2, 1, 100, 0, 1, 1],
    [2, 50, 100, 0, 1, 1],
    [2, 99, 100, 0, 1, 1],
    [2, 100, 100, 0, 2, 0],
    [2, 0, 100, 1, 0, 2],
    [2, 1, 100, 1, 1, 2],
    [2, 50, 100, 1, 1, 1],
    [2, 99, 100, 1, 2, 1],
    [2, 100, 100, 1, 2, 0],
    [3, 10, 100, 0, 1, 2],
    [3, 25, 100, 0, 1, 2],
    [3, 33, 100, 0, 1, 2],
    [3, 34, 100, 0, 1, 2],
    [3, 49, 100, 0, 1, 2],
    [3, 50, 100, 0, 2, 1],
    [3, 10, 100, 1, 1, 3],
    [3, 25, 100, 1, 1, 3],
    [3, 33, 100, 1, 1, 2],
    [3, 34, 100, 1, 1, 2],
    [3, 49, 100, 1, 2, 2],
    [3, 50, 100, 1, 2, 2],
    [10, 0, 100, 1, 0, 10],
    [10, 1, 100, 0, 1, 9],
    [10, 14, 100, 0, 1, 9],
    [10, 15, 100, 0, 2, 8],
    [10, 16, 100, 0, 2, 8],
    [10, 99, 100, 0, 9, 1],
    [10, 100, 100, 1, 10, 0],
    [10, 0, 100, 1, 0, 10],
    [10, 1, 100, 1, 1, 10],
    [10, 18, 100, 1, 2, 9],
    [10, 19, 100, 1, 2, 9],
    [10, 20, 100, 1, 2, 8],
    [10, 23, 100, 1, 2, 8],
    [10, 24, 100, 1, 3, 8],
    [10, 25, 100, 1, 3, 8],
    [10, 99, 100, 1, 10, 1],
    [10, 100, 100, 1, 10, 0],
  ];
  for (const [replicas, weight, maxWeight, maxSurge, canary, stable] of rows) {
    test(`replicas ${replicas} weight ${weight}/${maxWeight} surge ${maxSurge} → ${canary}+${stable}`, () => {
      assert.deepEqual(approximateWeightedCounts(replicas, weight, maxWeight, maxSurge), {
        canary,
        stable,
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Properties over random states.

const intOrPercent = (maxInt: number, maxPercent: number): fc.Arbitrary<number | string> =>
  fc.oneof(
    fc.nat(maxInt),
    fc.nat(maxPercent).map((p) => `${p}%`),
  );

const pods: fc.Arbitrary<RsCounts> = fc
  .record({ spec: fc.nat(25), lag: fc.integer({ min: -2, max: 25 }) })
  .map(({ spec, lag }) => ({ spec, available: Math.max(0, spec - lag) }));

/** A basic-canary input with limits resolved the way a valid spec resolves them. */
function inputs(trafficRouted: fc.Arbitrary<boolean>): fc.Arbitrary<ReplicaInput> {
  return fc
    .record({
      replicas: fc.nat(20),
      weight: fc.nat(100),
      surge: intOrPercent(5, 200),
      unavailable: intOrPercent(5, 100),
      stable: fc.option(pods, { nil: undefined }),
      canary: fc.option(pods, { nil: undefined }),
      others: fc.array(pods, { maxLength: 3 }),
      trafficRouted,
      dynamicStableScale: fc.boolean(),
      canaryScale: fc.option(
        fc.oneof(
          fc.record({ replicas: fc.nat(20) }),
          fc.record({ weight: fc.nat(100) }),
          fc.constant({ matchTrafficWeight: true }),
        ),
        { nil: undefined },
      ),
    })
    .map(({ surge, unavailable, ...r }) => {
      const limits = resolveSurgeUnavailable(surge, unavailable, r.replicas);
      const { maxSurge, maxUnavailable } = limits.ok
        ? limits.value
        : { maxSurge: 1, maxUnavailable: 0 };
      return { ...r, maxSurge, maxUnavailable };
    });
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const specOf = (i: ReplicaInput): number =>
  (i.stable?.spec ?? 0) + (i.canary?.spec ?? 0) + sum(i.others.map((o) => o.spec));

/** Available pods after the counts are applied: a ReplicaSet scaled to n keeps at most n. */
function availableAfter(i: ReplicaInput, out: ReturnType<typeof canaryCounts>): number {
  const keep = (r: RsCounts | undefined, n: number): number => (r ? Math.min(r.available, n) : 0);
  return (
    keep(i.stable, out.stable) +
    keep(i.canary, out.canary) +
    sum(i.others.map((o, k) => keep(o, out.others[k] ?? o.spec)))
  );
}

suite('canaryCounts: properties', () => {
  test('counts are non-negative integers, one per older ReplicaSet', () => {
    fc.assert(
      fc.property(inputs(fc.boolean()), (i) => {
        const out = canaryCounts(i);
        for (const n of [out.canary, out.stable, ...out.others]) {
          assert.ok(Number.isSafeInteger(n) && n >= 0, `count ${n}`);
        }
        assert.equal(out.others.length, i.others.length);
      }),
    );
  });

  test('the input is never modified (deep-frozen input accepted, same result twice)', () => {
    fc.assert(
      fc.property(inputs(fc.boolean()), (i) => {
        const before = JSON.stringify(i);
        const a = canaryCounts(deepFreeze(i)); // a write to a frozen object throws (strict mode)
        assert.equal(JSON.stringify(i), before);
        assert.deepEqual(canaryCounts(i), a);
      }),
    );
  });

  test('basic canary: total spec never rises above replicas + maxSurge', () => {
    fc.assert(
      fc.property(inputs(fc.constant(false)), (i) => {
        const out = canaryCounts(i);
        const total = out.canary + out.stable + sum(out.others);
        assert.ok(
          total <= Math.max(specOf(i), i.replicas + i.maxSurge),
          `total ${total} > max(${specOf(i)}, ${i.replicas} + ${i.maxSurge})`,
        );
      }),
    );
  });

  test('basic canary: a scale-down never takes availability below replicas − maxUnavailable', () => {
    fc.assert(
      fc.property(inputs(fc.constant(false)), (i) => {
        const out = canaryCounts(i);
        const before = availableAfter(i, {
          canary: i.canary?.spec ?? 0,
          stable: i.stable?.spec ?? 0,
          others: i.others.map((o) => o.spec),
        });
        const after = availableAfter(i, out);
        const floor = i.replicas - i.maxUnavailable;
        assert.ok(
          after >= Math.min(before, floor),
          `available ${before} → ${after}, floor ${floor}`,
        );
      }),
    );
  });
});

/** Pods become available: all at once, or one more per ReplicaSet per pass. */
type Readiness = (available: number, spec: number) => number;
const allReady: Readiness = (_available, spec) => spec;
const oneAtATime: Readiness = (available, spec) => Math.min(spec, available + 1);

/** Applies canaryCounts until nothing changes; returns the passes taken and the final state. */
function settle(start: ReplicaInput, ready: Readiness, maxPasses: number) {
  const apply = (r: RsCounts | undefined, spec: number): RsCounts => {
    const kept = Math.min(r?.available ?? 0, spec); // scaling down removes pods
    return { spec, available: ready(kept, spec) };
  };
  let state = start;
  for (let pass = 1; pass <= maxPasses; pass++) {
    const out = canaryCounts(state);
    const next: ReplicaInput = {
      ...state,
      canary: apply(state.canary, out.canary),
      ...(state.stable ? { stable: apply(state.stable, out.stable) } : {}),
      others: state.others.map((o, k) => apply(o, out.others[k] ?? o.spec)),
    };
    if (JSON.stringify(next) === JSON.stringify(state)) return { passes: pass, state };
    state = next;
  }
  return { passes: Infinity, state };
}

suite('canaryCounts: convergence', () => {
  for (const [name, ready] of [
    ['pods ready at once', allReady],
    ['one pod ready per pass', oneAtATime],
  ] as const) {
    test(`reaches the desired counts, older ReplicaSets at 0, in bounded passes (${name})`, () => {
      fc.assert(
        fc.property(inputs(fc.boolean()), (i) => {
          const want = i.stable ? desiredCounts(i) : { canary: i.replicas, stable: 0 };
          // Measured: about one changing pass per pod involved; allow twice that.
          const bound = 2 * (i.replicas + want.canary + want.stable + specOf(i) + 1);
          const { passes, state } = settle(i, ready, bound);
          assert.ok(passes <= bound, `no fixed point within ${bound} passes`);
          assert.equal(state.canary?.spec, want.canary, 'canary');
          if (state.stable) assert.equal(state.stable.spec, want.stable, 'stable');
          for (const o of state.others) assert.equal(o.spec, 0, 'older ReplicaSet');
        }),
      );
    });
  }
});

suite('desiredCounts: properties', () => {
  const basic = fc.record({
    replicas: fc.nat(300),
    weight: fc.nat(100),
    maxSurge: fc.nat(3),
    trafficRouted: fc.constant(false),
  });

  test('basic canary: totals replicas, or replicas + 1 only when surge is allowed', () => {
    fc.assert(
      fc.property(basic, (i) => {
        const { canary, stable } = desiredCounts(i);
        const total = canary + stable;
        assert.ok(total === i.replicas || (total === i.replicas + 1 && i.maxSurge > 0));
      }),
    );
  });

  test('basic canary: both sides keep a pod while 0 < weight < 100 (2+ replicas, or surge)', () => {
    fc.assert(
      fc.property(basic, (i) => {
        fc.pre(
          i.weight > 0 &&
            i.weight < 100 &&
            (i.replicas >= 2 || (i.replicas === 1 && i.maxSurge > 0)),
        );
        const { canary, stable } = desiredCounts(i);
        assert.ok(canary >= 1 && stable >= 1, `${canary} + ${stable}`);
      }),
    );
  });

  test('basic canary: weight 0 is all stable, weight 100 all canary', () => {
    fc.assert(
      fc.property(basic, (i) => {
        assert.deepEqual(desiredCounts({ ...i, weight: 0 }), { canary: 0, stable: i.replicas });
        assert.deepEqual(desiredCounts({ ...i, weight: 100 }), { canary: i.replicas, stable: 0 });
      }),
    );
  });

  test('basic canary: more weight never means fewer canary or more stable pods', () => {
    fc.assert(
      fc.property(basic, (i) => {
        fc.pre(i.weight < 100);
        const a = desiredCounts(i);
        const b = desiredCounts({ ...i, weight: i.weight + 1 });
        assert.ok(
          b.canary >= a.canary && b.stable <= a.stable,
          `${i.weight}%: ${JSON.stringify([a, b])}`,
        );
      }),
    );
  });

  test('Argo deviation: a tie that rules out both roundings keeps the floor, not 0 canary pods', () => {
    // Argo answers 0 + 2, 0 + 5, 0 + 10 here (its "should not get here" fallback).
    assert.deepEqual(approximateWeightedCounts(2, 75, 100, 0), { canary: 1, stable: 1 });
    assert.deepEqual(approximateWeightedCounts(5, 90, 100, 0), { canary: 4, stable: 1 });
    assert.deepEqual(approximateWeightedCounts(10, 95, 100, 0), { canary: 9, stable: 1 });
  });

  test('traffic-routed: stable stays at replicas unless dynamicStableScale', () => {
    fc.assert(
      fc.property(
        basic,
        fc.option(fc.record({ replicas: fc.nat(20) }), { nil: undefined }),
        (b, s) => {
          const i = { ...b, trafficRouted: true, ...(s ? { canaryScale: s } : {}) };
          const { canary, stable } = desiredCounts(i);
          assert.equal(stable, i.replicas);
          assert.equal(canary, s ? s.replicas : Math.ceil((i.replicas * i.weight) / 100));
        },
      ),
    );
  });

  test('traffic-routed with dynamicStableScale: stable is the rest, unless traffic still needs it', () => {
    assert.deepEqual(
      desiredCounts({
        replicas: 10,
        weight: 30,
        maxSurge: 0,
        trafficRouted: true,
        dynamicStableScale: true,
      }),
      { canary: 3, stable: 7 },
    );
    assert.deepEqual(
      desiredCounts({
        replicas: 10,
        weight: 30,
        maxSurge: 0,
        trafficRouted: true,
        dynamicStableScale: true,
        trafficWeights: { canary: 0, stable: 100 },
      }),
      { canary: 3, stable: 10 },
    );
  });

  test('maxTrafficWeight scales weights', () => {
    assert.deepEqual(
      desiredCounts({
        replicas: 10,
        weight: 250,
        maxWeight: 1000,
        maxSurge: 0,
        trafficRouted: true,
      }),
      { canary: 3, stable: 10 },
    );
    assert.deepEqual(
      desiredCounts({
        replicas: 10,
        weight: 500,
        maxWeight: 1000,
        maxSurge: 0,
        trafficRouted: false,
      }),
      { canary: 5, stable: 5 },
    );
  });
});

suite('canaryCounts: older ReplicaSets', () => {
  const base = {
    replicas: 10,
    weight: 0,
    maxSurge: 2,
    maxUnavailable: 2,
    trafficRouted: false,
  } as const;
  test('unavailable pods of older ReplicaSets go first, whatever the budget', () => {
    const got = canaryCounts({
      ...base,
      stable: rs([10, 8]),
      canary: rs([0, 0]),
      others: [rs([3, 1])],
    });
    // 9 available, floor 8: budget 1 after dropping the 2 unavailable pods.
    assert.deepEqual(got, { canary: 0, stable: 10, others: [0] });
  });
  test('basic canary: newest first, by at most the availability budget', () => {
    const got = canaryCounts({
      ...base,
      stable: rs([10, 10]),
      canary: rs([0, 0]),
      others: [rs([2, 2]), rs([3, 3])],
    });
    // 15 available, floor 8: 7 may go; 2 from the newest, 3 from the next.
    assert.deepEqual(got.others, [0, 0]);
    const tight = canaryCounts({
      ...base,
      stable: rs([6, 6]),
      canary: rs([0, 0]),
      others: [rs([2, 2]), rs([3, 3])],
    });
    // 11 available, floor 8: 3 may go: all 2 of the newest, 1 of the next.
    assert.deepEqual(tight, { canary: 0, stable: 7, others: [0, 2] });
  });
  test('traffic-routed: scaled to 0 outright once there is any budget', () => {
    const got = canaryCounts({
      ...base,
      trafficRouted: true,
      stable: rs([10, 9]),
      canary: rs([0, 0]),
      others: [rs([4, 4])],
    });
    assert.deepEqual(got, { canary: 0, stable: 10, others: [0] });
  });
  test('no budget: older ReplicaSets keep their (available) pods', () => {
    const got = canaryCounts({
      ...base,
      stable: rs([10, 5]),
      canary: rs([0, 0]),
      others: [rs([3, 3])],
    });
    assert.deepEqual(got.others, [3]);
  });
  test('an older ReplicaSet above its spec counts only its spec towards the budget', () => {
    // Argo would count 2 available, see a budget of 1 and scale the older ReplicaSet to 0.
    const got = canaryCounts({
      replicas: 1,
      weight: 0,
      maxSurge: 1,
      maxUnavailable: 0,
      trafficRouted: false,
      others: [rs([1, 2])],
    });
    assert.deepEqual(got, { canary: 1, stable: 0, others: [1] });
  });
});
