// Replica counts for a canary rollout: how many pods the canary, the stable and any older
// ReplicaSets should have after this pass. Pure: counts in, counts out; no I/O, no clock, and
// the input is never modified.
//
// The behaviour is Argo Rollouts' (utils/replicaset/canary.go: `DesiredReplicaCountsForCanary`,
// `approximateWeightedCanaryStableReplicaCounts`, `CalculateReplicaCountsForBasicCanary`,
// `CalculateReplicaCountsForTrafficRoutedCanary`; rollout/canary.go and rollout/replicaset.go
// for older ReplicaSets). Its rules, which the tests in test/unit/rollout/replicas.test.ts pin:
//
// Desired counts (the end state for a weight, ignoring how fast we may get there)
// - Basic canary (no traffic router: pods are the traffic split): the canary count is the one
//   whose share of the pods is closest to the weight, stable gets the rest. Both are at least 1
//   while 0 < weight < max and replicas > 1 (and also for 1 replica when surge is allowed), and
//   the two may add up to replicas + 1 when maxSurge > 0 and that comes closer to the weight
//   (10 replicas at 25%: 3 canary + 8 stable = 27.3%, closer than 2 + 8 or 3 + 7).
// - Traffic-routed canary: canary = ceil(replicas × weight / maxWeight); stable stays at
//   `replicas` (the router, not the pod ratio, splits traffic) unless dynamicStableScale, where
//   stable = ceil(replicas × (maxWeight − weight) / maxWeight), but never below what the stable's
//   current traffic weight needs; on abort the canary likewise keeps what its current traffic
//   weight needs, until the router has moved traffic back to stable.
// - setCanaryScale is honoured only with a traffic router (as in Argo: with a basic canary the
//   pod ratio *is* the traffic split, so a canary count apart from the weight makes no sense):
//   `{replicas: N}` → canary N; `{weight: P}` → ceil(replicas × P / maxWeight);
//   `{matchTrafficWeight: true}` → the weight again.
// - No stable ReplicaSet (first rollout, or the canary has become the stable after a full
//   promotion): canary = replicas, stable = 0.
//
// Counts this pass (basic canary only; a traffic-routed canary goes straight to its desired
// counts, because the router keeps traffic off pods until weights move)
// - Scale up within the surge budget: the sum of all spec replicas stays ≤ replicas + maxSurge.
//   The stable is scaled up before the canary.
// - Older ReplicaSets (neither canary nor stable) are scaled down first; while any has pods,
//   neither canary nor stable is scaled down.
// - Scale down within the availability budget: available pods stay ≥ replicas − maxUnavailable.
//   Only the side above its desired count shrinks. That side is counted by spec (its unavailable
//   pods are expendable), the other by availability; a side whose availability exceeds its
//   spec counts by spec (the extra pods are going away anyway).
// - When nothing may move, the current counts come back unchanged.

export interface RsCounts {
  readonly spec: number;
  readonly available: number;
}

/** setCanaryScale of the step in force (the planner finds it; see `UseSetCanaryScale`). */
export interface CanaryScale {
  readonly replicas?: number;
  readonly weight?: number;
  readonly matchTrafficWeight?: boolean;
}

/** The traffic router's current weights, from status.canary.weights. */
export interface TrafficWeights {
  readonly canary: number;
  readonly stable: number;
}

export interface DesiredInput {
  /** spec.replicas. */
  readonly replicas: number;
  /** The canary's desired weight, 0..maxWeight: the step's setWeight, 0 on abort, maxWeight
   * when fully promoted. Choosing it from steps and status is the planner's job. */
  readonly weight: number;
  /** trafficRouting.maxTrafficWeight; default 100. */
  readonly maxWeight?: number;
  readonly canaryScale?: CanaryScale;
  /** Resolved count (see intorpercent.ts). A basic canary may total replicas + 1 only if > 0. */
  readonly maxSurge: number;
  readonly trafficRouted: boolean;
  readonly dynamicStableScale?: boolean;
  /** Current router weights; only read with dynamicStableScale. */
  readonly trafficWeights?: TrafficWeights;
  /** status.abort; only read with dynamicStableScale and trafficWeights. */
  readonly abort?: boolean;
}

export interface ReplicaInput extends DesiredInput {
  /** Resolved count (see intorpercent.ts). */
  readonly maxUnavailable: number;
  /** Absent: no stable ReplicaSet other than the canary. */
  readonly stable?: RsCounts;
  /** Absent: not created yet; its count is computed as if it existed with 0 pods. */
  readonly canary?: RsCounts;
  /** Older ReplicaSets, newest revision first, that may be scaled down now (the planner leaves
   * out any held by a scale-down delay or still referenced by a Service). */
  readonly others: readonly RsCounts[];
}

export interface DesiredCounts {
  readonly canary: number;
  readonly stable: number;
}

export interface ReplicaCounts {
  readonly canary: number;
  readonly stable: number;
  /** One count per `others` entry, same order. */
  readonly others: readonly number[];
}

const NONE: RsCounts = { spec: 0, available: 0 };

function nonNeg(n: number): number {
  return n > 0 ? n : 0;
}

/** ceil(replicas × weight / maxWeight), Argo's `trafficWeightToReplicas`. */
export function weightToReplicas(replicas: number, weight: number, maxWeight = 100): number {
  return nonNeg(Math.ceil((replicas * weight) / maxWeight));
}

/**
 * Basic canary: the (canary, stable) pair whose canary share is closest to weight/maxWeight.
 * Candidates are ceil and floor of replicas × weight / maxWeight over a total of `replicas`, and,
 * when surge is allowed, the same two counts over replicas + 1. A floor of 0 is not a candidate
 * unless zero is allowed (weight 0 or max, or a single replica without surge), nor is a ceil
 * that would leave no stable; when ceil and floor are equally close (a fraction of exactly .5)
 * only ceil is a candidate, unless ceil is ruled out. The first of equally close candidates
 * wins. Exact integer arithmetic, where Argo uses float64 (same answers: checked for up to 300
 * replicas and every weight).
 */
export function approximateWeightedCounts(
  replicas: number,
  weight: number,
  maxWeight: number,
  maxSurge: number,
): DesiredCounts {
  if (replicas <= 0) return { canary: 0, stable: 0 };
  const product = replicas * weight;
  const ceil = Math.ceil(product / maxWeight);
  const floor = Math.floor(product / maxWeight);
  // n × weight / maxWeight has a fraction of exactly one half.
  const tied = (n: number): boolean => 2 * ((n * weight) % maxWeight) === maxWeight;
  const zeroAllowed = weight === maxWeight || weight === 0 || (replicas === 1 && maxSurge === 0);
  const floorAllowed = floor !== 0 || zeroAllowed;

  const options: Array<{ readonly canary: number; readonly total: number }> = [];
  const ceilAllowed = ceil < replicas || zeroAllowed;
  if (ceilAllowed) options.push({ canary: ceil, total: replicas });
  // Deviation: Argo drops floor on a tie even when ceil was dropped too, and then (no surge) has
  // no candidate and falls back to 0 canary pods: 2 replicas at 75% → 0 + 2, 10 at 95% → 0 + 10.
  // We keep floor in that case: 1 + 1, 9 + 1.
  if ((!tied(replicas) || !ceilAllowed) && floorAllowed) {
    options.push({ canary: floor, total: replicas });
  }
  if (maxSurge > 0) {
    options.push({ canary: ceil, total: replicas + 1 });
    if (!tied(replicas + 1) && floorAllowed) options.push({ canary: floor, total: replicas + 1 });
  }
  let best = options[0];
  if (best === undefined) return { canary: 0, stable: replicas }; // unreachable: replicas ≥ 1
  // |canary/total − weight/maxWeight| compared exactly: |canary·maxWeight − weight·total| / total.
  const miss = (o: { canary: number; total: number }): number =>
    Math.abs(o.canary * maxWeight - weight * o.total);
  for (const o of options.slice(1)) {
    if (miss(o) * best.total < miss(best) * o.total) best = o;
  }
  return { canary: best.canary, stable: best.total - best.canary };
}

function clampWeight(weight: number, maxWeight: number): number {
  return Math.min(Math.max(weight, 0), maxWeight);
}

/** The end-state counts for `i.weight` (assuming a stable ReplicaSet exists). */
export function desiredCounts(i: DesiredInput): DesiredCounts {
  const maxWeight = i.maxWeight ?? 100;
  const { replicas } = i;
  if (!i.trafficRouted) {
    // setCanaryScale is ignored without a traffic router (Argo's UseSetCanaryScale).
    const weight = clampWeight(i.weight, maxWeight);
    return approximateWeightedCounts(replicas, weight, maxWeight, i.maxSurge);
  }
  const scale = i.canaryScale?.matchTrafficWeight === true ? undefined : i.canaryScale;
  // setCanaryScale.replicas wins over .weight; with .replicas the weight counts as 0 for the
  // dynamic stable count below (Argo's GetCanaryReplicasOrWeight returns weight 0 with it).
  const weight = scale?.replicas !== undefined ? 0 : (scale?.weight ?? i.weight);
  let canary = scale?.replicas ?? weightToReplicas(replicas, nonNeg(weight), maxWeight);
  if (i.dynamicStableScale !== true) return { canary: nonNeg(canary), stable: replicas };

  let stable = weightToReplicas(replicas, maxWeight - clampWeight(weight, maxWeight), maxWeight);
  const current = i.trafficWeights;
  if (current !== undefined) {
    // Stable keeps enough pods for the traffic it still receives; on abort the canary does too.
    stable = Math.max(stable, weightToReplicas(replicas, current.stable, maxWeight));
    if (i.abort === true) {
      canary = Math.max(canary, weightToReplicas(replicas, current.canary, maxWeight));
    }
  }
  return { canary: nonNeg(canary), stable };
}

/** Argo's `GetReplicasForScaleDown`: pods of `rs` that count towards availability. */
function countedForScaleDown(rs: RsCounts | undefined, ignoreAvailability: boolean): number {
  if (rs === undefined) return 0;
  if (rs.spec < rs.available || ignoreAvailability) return rs.spec;
  return rs.available;
}

/** The shrinking side: towards `desired`, by at most `budget` pods. */
function drain(rs: RsCounts, desired: number, budget: number, current: number): number {
  return rs.spec > desired ? Math.max(desired, rs.spec - budget) : current;
}

/**
 * Argo's `adjustReplicaWithinLimits`: after the draining side shrank, give the other side back
 * any pods the surge limit took from it that availability still needs, then take the remaining
 * excess over the surge limit from the draining side. Deviation: Argo can return a negative
 * count here when one side alone is above the surge limit (say, scaled up by hand); we stop at 0.
 */
function withinLimits(
  drainRs: RsCounts,
  otherRs: RsCounts | undefined,
  drainCount: number,
  otherCount: number,
  maxTotal: number,
  minAvailable: number,
): readonly [number, number] {
  if (otherRs === undefined) return [drainCount, otherCount];
  let available = Math.min(drainRs.available, drainCount);
  let other = nonNeg(otherCount - nonNeg(otherCount + drainCount - maxTotal));
  available += Math.min(otherRs.available, other);
  const lostAvailable = nonNeg(otherRs.available - other);
  other += Math.min(lostAvailable, nonNeg(minAvailable - available));
  return [nonNeg(drainCount - nonNeg(other + drainCount - maxTotal)), other];
}

/**
 * Older ReplicaSets: first every one drops its unavailable pods (they serve nothing), then,
 * newest first, they shrink by what the availability budget allows: all of it with a traffic
 * router (no traffic reaches them), at most the budget without one (their pods serve traffic).
 */
function olderCounts(i: ReplicaInput, minAvailable: number): readonly number[] {
  const healthy = i.others.map((o) => (o.spec > 0 && o.available < o.spec ? o.available : o.spec));
  // Argo counts every ReplicaSet's available pods here; we count at most its spec, as Argo's own
  // GetReplicasForScaleDown does, since pods above spec are on their way out (the difference
  // shows only while a ReplicaSet's status lags a scale-down).
  const counted = (r: RsCounts | undefined): number => (r ? Math.min(r.spec, r.available) : 0);
  let budget =
    counted(i.stable) +
    counted(i.canary) +
    i.others.reduce((sum, o) => sum + counted(o), 0) -
    minAvailable;
  return healthy.map((spec) => {
    if (budget <= 0 || spec === 0) return spec;
    const next = i.trafficRouted ? 0 : nonNeg(spec - budget);
    budget -= spec - next;
    return next;
  });
}

/** The counts to set this pass. */
export function canaryCounts(i: ReplicaInput): ReplicaCounts {
  const counts = countsWithinBudgets(i);
  if (i.trafficRouted) return counts;
  return withinSurge(counts, i);
}

function countsWithinBudgets(i: ReplicaInput): ReplicaCounts {
  const { replicas, stable } = i;
  const minAvailable = replicas - i.maxUnavailable;
  const others = olderCounts(i, minAvailable);
  const desired = stable === undefined ? { canary: replicas, stable: 0 } : desiredCounts(i);
  if (i.trafficRouted) return { ...desired, others };

  const canary = i.canary ?? NONE;
  let canaryCount = canary.spec;
  let stableCount = stable?.spec ?? 0;
  const othersSpec = i.others.reduce((sum, o) => sum + o.spec, 0);

  // Scale up, stable first, within replicas + maxSurge pods in all.
  const maxTotal = replicas + i.maxSurge;
  let up = maxTotal - (othersSpec + canaryCount + stableCount);
  if (stable !== undefined && stableCount < desired.stable && up > 0) {
    const step = Math.min(up, desired.stable - stableCount);
    stableCount += step;
    up -= step;
  }
  if (canaryCount < desired.canary && up > 0) {
    canaryCount = Math.min(desired.canary, canaryCount + up);
  }
  if (othersSpec > 0) return { canary: canaryCount, stable: stableCount, others };

  // Scale down, keeping replicas − maxUnavailable pods available. When the canary is growing,
  // the stable's unavailable pods are expendable; when it is shrinking (weight lowered, abort),
  // the canary's are.
  const increasing = desired.canary >= canary.spec;
  const counted =
    countedForScaleDown(canary, !increasing) + countedForScaleDown(stable, increasing);
  if (counted <= minAvailable) return { canary: canaryCount, stable: stableCount, others };
  const budget = counted - minAvailable;
  if (!increasing) {
    canaryCount = drain(canary, desired.canary, budget, canaryCount);
    [canaryCount, stableCount] = withinLimits(
      canary,
      stable,
      canaryCount,
      stableCount,
      maxTotal,
      minAvailable,
    );
  } else if (stable !== undefined) {
    stableCount = drain(stable, desired.stable, budget, stableCount);
    [stableCount, canaryCount] = withinLimits(
      stable,
      canary,
      stableCount,
      canaryCount,
      maxTotal,
      minAvailable,
    );
  }
  return { canary: canaryCount, stable: stableCount, others };
}

/**
 * More pods than replicas + maxSurge (spec.replicas was lowered mid-rollout): give back pods that
 * serve nothing, the canary's unready ones first, then the stable's. Available pods are left to
 * the availability budget above, so this never lowers availability. Not Argo's code, but the
 * result Argo gives on the local cluster (4 replicas, maxSurge 2: 4/4 after 6 → 4 becomes 2/4).
 */
function withinSurge(c: ReplicaCounts, i: ReplicaInput): ReplicaCounts {
  // Older ReplicaSets go first (Argo's rule): neither side shrinks while one has pods.
  if (i.others.some((o) => o.spec > 0)) return c;
  let excess =
    c.canary + c.stable + c.others.reduce((sum, n) => sum + n, 0) - (i.replicas + i.maxSurge);
  if (excess <= 0) return c;
  const unready = (count: number, rs: RsCounts | undefined): number =>
    nonNeg(count - (rs?.available ?? 0));
  const canaryCut = Math.min(excess, unready(c.canary, i.canary));
  excess -= canaryCut;
  const stableCut = Math.min(excess, unready(c.stable, i.stable));
  return { ...c, canary: c.canary - canaryCut, stable: c.stable - stableCut };
}
