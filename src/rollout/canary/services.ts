/**
 * Where a canary's Services point. The canary Service follows the new version once it has an
 * available pod; the stable Service follows `status.stableRS`, with one exception that Argo
 * lacks (argo-rollouts#1760): in a basic canary (no router), the stable ReplicaSet drains to 0
 * at full weight before `stableRS` moves, and a Service still selecting it would be left with no
 * endpoints. So while the stable is to keep no pods this pass, or has none available (an abort
 * scaling it back up), the stable Service selects the new version instead, if that has available
 * pods; that move is written before the scale-down that empties the stable ('servicesAhead'), so
 * the Service never selects a ReplicaSet with nothing to serve. Pure.
 */
import type { CanaryStrategy } from '../../api/index.ts';
import { pinServices } from '../child-writes.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import { available } from '../revision.ts';
import type { Revision } from '../revision.ts';
import type { Observed } from '../types.ts';
import { routed } from './traffic.ts';

export function canaryServices(
  o: Observed,
  canary: CanaryStrategy,
  where: Revision,
  progress: Progress,
  stableCount: number,
): Fragment[] {
  const newAvailable = where.current !== undefined && available(where.current) > 0;
  const canaryLive = !where.steady && !progress.abort && newAvailable;
  const canaryTarget = canaryLive ? where.hash : progress.stableHash;
  // Planned empty this pass, or empty as observed: scaled to 0 (its status may still count pods
  // on their way out), or no pod available yet.
  const stableEmpty =
    stableCount === 0 ||
    where.stable === undefined ||
    (where.stable.spec?.replicas ?? 0) === 0 ||
    available(where.stable) === 0;
  const stableOnNew = !where.steady && !routed(canary) && newAvailable && stableEmpty;
  if (!stableOnNew) {
    return [pinServices(o, { canary: canaryTarget, stable: progress.stableHash })];
  }
  const ahead = pinServices(o, { stable: where.hash }).writes?.services ?? [];
  return [{ writes: { servicesAhead: ahead } }, pinServices(o, { canary: canaryTarget })];
}
