/**
 * Traffic with a router (`trafficRouting`): the canary's weight and the managed header and
 * mirror routes a pass wants, as Argo's reconcileTrafficRouting decides them, and the write
 * when the router's objects say otherwise. Pure.
 *
 * - A canary is never given more traffic before its pods are available: while the ReplicaSets
 *   are not at the current step's counts the weight stays at the previous setWeight (Argo's
 *   rule). Less traffic is always safe and is given at once, written before any scale-down.
 * - Abort, a settled rollout and a fully promoted one: weight 0 (everything to the stable
 *   Service, which after a promotion selects the new pods) and no managed routes.
 * - Past the last step the canary gets maxTrafficWeight until it becomes the stable.
 * - Header and mirror routes are those the steps walked so far set (a later step of the same
 *   name replaces, one without `match` removes), in managedRoutes order.
 */
import type {
  CanaryStep,
  CanaryStrategy,
  HeaderRoute,
  MirrorRoute,
  TrafficObservation,
  TrafficState,
} from '../../api/index.ts';
import { Reason } from '../../api/index.ts';
import { canonicalJson } from '../../api/canonical-json.ts';
import { normal } from '../events.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import type { Revision } from '../revision.ts';
import { available } from '../revision.ts';
import { setWeightAt } from './steps.ts';

const DEFAULT_MAX_TRAFFIC_WEIGHT = 100;

export function routed(canary: CanaryStrategy): boolean {
  return canary.trafficRouting !== undefined;
}

export function maxTrafficWeight(canary: CanaryStrategy): number {
  return canary.trafficRouting?.maxTrafficWeight ?? DEFAULT_MAX_TRAFFIC_WEIGHT;
}

export interface TrafficInput {
  readonly canary: CanaryStrategy;
  readonly where: Revision;
  readonly progress: Progress;
  /** The ReplicaSets stand at the counts of progress.stepIndex (and the index did not move on
   *  this pass to a step whose counts are still ahead). */
  readonly atStepCounts: boolean;
  readonly replicas: number;
}

const NO_ROUTES: TrafficState = { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] };

/** The traffic this pass wants (undefined without a router). */
export function desiredTraffic(i: TrafficInput): TrafficState | undefined {
  if (!routed(i.canary)) return undefined;
  const { where, progress, canary } = i;
  const steps = canary.steps ?? [];
  const max = maxTrafficWeight(canary);
  const promoted = where.steady || progress.stableHash === where.hash;
  if (promoted || progress.abort) return NO_ROUTES;
  const routes = managedRoutesAt(canary, steps, progress.stepIndex);
  const current = where.current;
  if (current === undefined || available(current) === 0) return { ...routes, canaryWeight: 0 };
  const done = progress.promoteFull || progress.stepIndex >= steps.length;
  if (done) {
    const full = available(current) >= i.replicas;
    return { ...routes, canaryWeight: full ? max : previousSetWeight(steps, steps.length) };
  }
  const stepWeight = setWeightAt(steps, progress.stepIndex);
  const before = previousSetWeight(steps, progress.stepIndex);
  const canaryWeight = i.atStepCounts ? stepWeight : Math.min(stepWeight, before);
  return { ...routes, canaryWeight: Math.min(canaryWeight, max) };
}

/**
 * The write that brings the router's objects to `desired`: none when they already say so.
 * A decrease of the canary's weight is stage trafficDown (before any pod is scaled down), an
 * increase, or a router whose state is unknown, trafficUp (after the scale-ups it needs).
 */
export function planTraffic(
  desired: TrafficState | undefined,
  observed: TrafficObservation | undefined,
  hashes: { readonly canary: string; readonly stable: string },
): Fragment {
  if (desired === undefined) return {};
  const state = observed?.state;
  if (state !== undefined && sameTraffic(state, desired)) return {};
  const write = {
    kind: 'setTraffic' as const,
    state: desired,
    canaryHash: hashes.canary,
    stableHash: hashes.stable,
  };
  const down = state !== undefined && desired.canaryWeight <= state.canaryWeight;
  return { writes: down ? { trafficDown: [write] } : { trafficUp: [write] } };
}

/**
 * Argo's TrafficWeightUpdated, with its message, when the canary's weight in status.canary.weights
 * changes. It travels with the status write that records the new weight, so it goes out once,
 * after the router write of the same pass. A Rollout's first weight of 0 changes nothing.
 */
export function weightUpdated(stored: number | undefined, next: number | undefined): Fragment {
  if (next === undefined || next === (stored ?? 0)) return {};
  const change = stored === undefined ? `to ${next}` : `from ${stored} to ${next}`;
  return { events: [normal(Reason.TrafficWeightUpdated, `Traffic weight updated ${change}`)] };
}

function sameTraffic(a: TrafficState, b: TrafficState): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The last setWeight strictly before `index` (the weight whose pods already stand), else 0;
 *  `index` at most steps.length, so index - 1 is a step and never "past the end". */
function previousSetWeight(steps: readonly CanaryStep[], index: number): number {
  return index <= 0 ? 0 : setWeightAt(steps, Math.min(index, steps.length) - 1);
}

/** Header and mirror routes set by the steps before `index`, in managedRoutes order. */
function managedRoutesAt(
  canary: CanaryStrategy,
  steps: readonly CanaryStep[],
  index: number,
): Omit<TrafficState, 'canaryWeight'> {
  const headers = new Map<string, HeaderRoute>();
  const mirrors = new Map<string, MirrorRoute>();
  for (const step of steps.slice(0, index)) {
    const h = step.setHeaderRoute;
    if (h !== undefined) {
      if (h.match === undefined || h.match.length === 0) headers.delete(h.name);
      else headers.set(h.name, { name: h.name, match: h.match });
    }
    const m = step.setMirrorRoute;
    if (m !== undefined) {
      if (m.match === undefined || m.match.length === 0) mirrors.delete(m.name);
      else mirrors.set(m.name, { name: m.name, match: m.match, percentage: m.percentage ?? 100 });
    }
  }
  const order = (canary.trafficRouting?.managedRoutes ?? []).map((r) => r.name);
  const rank = (name: string): number => {
    const at = order.indexOf(name);
    return at === -1 ? order.length : at;
  };
  const byRank = <T extends { name: string }>(xs: Iterable<T>): T[] =>
    [...xs].sort((a, b) => rank(a.name) - rank(b.name));
  return { headerRoutes: byRank(headers.values()), mirrorRoutes: byRank(mirrors.values()) };
}
