/**
 * The replica counts a blue-green pass aims at. The stable keeps all its pods until the new
 * version is stable; the new one runs previewReplicaCount until promoted, then all; an aborted
 * one keeps its pods for abortScaleDownDelaySeconds (0: until retried) once the active Service
 * is back on the stable; older ReplicaSets wait out their scale-down deadline (the newest
 * scaleDownDelayRevisionLimit of them; the rest go at once), and the one the active Service
 * still selects is never scaled down under it. Pure.
 */
import { SCALE_DOWN_DEADLINE_ANNOTATION } from '../../api/index.ts';
import type { BlueGreenStrategy, ReplicaSet } from '../../api/index.ts';
import type { ChildCounts } from '../child-writes.ts';
import type { Progress } from '../progress.ts';
import { hashOf } from '../replicasets.ts';
import type { Revision } from '../revision.ts';
import { available } from '../revision.ts';

const DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS = 30;

export interface BlueGreenTargets {
  readonly counts: ChildCounts;
  /** Old ReplicaSets left as they are this pass (their deadline, or the active Service's). */
  readonly held: readonly ReplicaSet[];
  /** The other old ReplicaSets, scaled with `counts.others` in the same order. */
  readonly movable: readonly ReplicaSet[];
  /** Deadlines that end a hold. */
  readonly requeueAt: readonly number[];
}

export interface TargetsInput {
  readonly bg: BlueGreenStrategy;
  readonly where: Revision;
  readonly progress: Progress;
  readonly replicas: number;
  /** The hash the active Service selects now (read from it). */
  readonly activeHash?: string;
  /** The new version may run all its pods (promoted, or the preview count is all). */
  readonly promoted: boolean;
  readonly now: number;
}

export function blueGreenTargets(i: TargetsInput): BlueGreenTargets {
  const { bg, where, now } = i;
  const requeueAt: number[] = [];
  const limit = bg.scaleDownDelayRevisionLimit ?? Number.POSITIVE_INFINITY;
  // Newest first (classify sorts others so): the newest `limit` keep their delay.
  const delayed = where.others.filter((rs) => scaleDownDeadline(rs) > now);
  const keptDelayed = delayed.slice(0, limit);
  const held = where.others.filter(
    (rs) => keptDelayed.includes(rs) || (i.activeHash !== undefined && hashOf(rs) === i.activeHash),
  );
  for (const rs of keptDelayed) requeueAt.push(scaleDownDeadline(rs));
  const movable = where.others.filter((rs) => !held.includes(rs));
  return {
    counts: {
      current: currentCount(i, requeueAt),
      stable: i.replicas,
      others: movable.map(() => 0),
    },
    held,
    movable,
    requeueAt,
  };
}

function currentCount(i: TargetsInput, requeueAt: number[]): number {
  const { bg, where, progress, replicas, now } = i;
  if (where.steady) return replicas;
  const spec = where.current?.spec?.replicas ?? 0;
  if (progress.abort) {
    // People look at the aborted version for a while, once the stable serves again.
    const delay = bg.abortScaleDownDelaySeconds ?? DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS;
    const backOnStable = i.activeHash !== where.hash;
    const stableFull = where.stable !== undefined && available(where.stable) >= replicas;
    if (delay === 0 || !backOnStable || !stableFull) return spec;
    const deadline = Date.parse(progress.abortedAt ?? new Date(now).toISOString()) + delay * 1000;
    if (now < deadline) {
      requeueAt.push(deadline);
      return spec;
    }
    return 0;
  }
  if (i.promoted || i.activeHash === where.hash) return replicas;
  return Math.min(bg.previewReplicaCount ?? replicas, replicas);
}

/** When a ReplicaSet's scale-down delay ends (epoch ms; 0 when it has none). */
export function scaleDownDeadline(rs: ReplicaSet): number {
  const at = rs.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION];
  const t = at === undefined ? NaN : Date.parse(at);
  return Number.isNaN(t) ? 0 : t;
}
