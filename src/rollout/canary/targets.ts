/**
 * The replica counts a canary pass aims at: the weight of the step (100 once settled or
 * promoted, 0 on abort), spread within maxSurge/maxUnavailable (a basic canary) or straight to
 * Argo's traffic-routed counts (with a router: the stable stays full unless dynamicStableScale),
 * old ReplicaSets held by their scale-down deadline left alone, and, with a router, an aborted
 * canary kept for abortScaleDownDelaySeconds so people can look at it (the router has already
 * moved its traffic back; a basic canary scales down at once, as in Argo). Pure.
 */
import { SCALE_DOWN_DEADLINE_ANNOTATION } from '../../api/index.ts';
import type { CanaryStrategy, ReplicaSet } from '../../api/index.ts';
import type { Progress } from '../progress.ts';
import type { Revision } from '../revision.ts';
import type { Observed } from '../types.ts';
import { canaryCounts } from './replicas.ts';
import type { CanaryScale, ReplicaCounts, RsCounts } from './replicas.ts';
import { canaryScaleAt, setWeightAt } from './steps.ts';
import { maxTrafficWeight, routed } from './traffic.ts';

const DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS = 30;

export interface Budget {
  readonly replicas: number;
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

export interface Targets {
  readonly counts: ReplicaCounts;
  /** Every step is behind (or skipped by a full promote). */
  readonly done: boolean;
  /** Old ReplicaSets waiting out their scale-down deadline: not touched this pass. */
  readonly held: readonly ReplicaSet[];
  /** The other old ReplicaSets, scaled with `counts.others` in the same order. */
  readonly movable: readonly ReplicaSet[];
  /** When a held ReplicaSet's deadline or the aborted canary's delay runs out. */
  readonly requeueAt: readonly number[];
}

export function targets(
  o: Observed,
  canary: CanaryStrategy,
  where: Revision,
  progress: Progress,
  b: Budget,
): Targets {
  const steps = canary.steps ?? [];
  const { steady, current, stable, others } = where;
  const done = progress.promoteFull || progress.stepIndex >= steps.length;
  const trafficRouted = routed(canary);
  // setWeight counts in units of maxTrafficWeight (default 100) with a router, percent without.
  const max = trafficRouted ? maxTrafficWeight(canary) : 100;
  const weight =
    steady || (done && !progress.abort)
      ? max
      : progress.abort
        ? 0
        : setWeightAt(steps, progress.stepIndex);
  const scale =
    steady || progress.abort || done ? undefined : canaryScaleAt(steps, progress.stepIndex);
  const held = others.filter((rs) => heldUntil(rs) > o.now);
  const requeueAt = held.map(heldUntil);
  const movable = others.filter((rs) => !held.includes(rs));
  const observed = o.traffic?.state?.canaryWeight;
  let counts = canaryCounts({
    replicas: b.replicas,
    // A basic canary honours setCanaryScale as its pod split (Argo rejects it there).
    weight: scale && !trafficRouted ? scaleAsWeight(scale, b.replicas) : weight,
    ...(trafficRouted && scale ? { canaryScale: scale } : {}),
    maxWeight: max,
    maxSurge: b.maxSurge,
    maxUnavailable: b.maxUnavailable,
    trafficRouted,
    dynamicStableScale: canary.dynamicStableScale === true,
    ...(observed === undefined
      ? {}
      : { trafficWeights: { canary: observed, stable: max - observed } }),
    abort: progress.abort,
    stable: countsOf(stable),
    canary: countsOf(current),
    others: movable.map((rs) => countsOf(rs) ?? { spec: 0, available: 0 }),
  });
  if (progress.abort && !steady && current && trafficRouted) {
    // The router sends everything to the stable this pass: keep the canary's pods for
    // abortScaleDownDelaySeconds (0: until retried) so people can look at them.
    const delay = canary.abortScaleDownDelaySeconds ?? DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS;
    const abortedAt = progress.abortedAt ?? new Date(o.now).toISOString();
    const deadline = Date.parse(abortedAt) + delay * 1000;
    if (delay === 0 || o.now < deadline) {
      counts = { ...counts, canary: current.spec?.replicas ?? 0, stable: b.replicas };
      if (delay > 0) requeueAt.push(deadline);
    }
  }
  return { counts, done, held, movable, requeueAt };
}

function countsOf(rs: ReplicaSet | undefined): RsCounts | undefined {
  if (rs === undefined) return undefined;
  return { spec: rs.spec?.replicas ?? 0, available: rs.status?.availableReplicas ?? 0 };
}

function scaleAsWeight(scale: CanaryScale, replicas: number): number {
  if (scale.weight !== undefined) return scale.weight;
  if (scale.replicas === undefined || replicas === 0) return 0;
  return Math.min(100, (scale.replicas * 100) / replicas);
}

function heldUntil(rs: ReplicaSet): number {
  const at = rs.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION];
  const t = at === undefined ? NaN : Date.parse(at);
  return Number.isNaN(t) ? 0 : t;
}
