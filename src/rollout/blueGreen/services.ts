/**
 * Where a blue-green pass points its two Services. The active Service moves to the new version
 * only once it is promoted and every pod is available, and back to the stable (an abort, a
 * return to it) once the stable serves all its pods, or at least more than what the active
 * Service selects now; a Service that selects no version of ours (a GitOps sync reset it) goes to
 * the stable. The preview Service moves to the new version once its preview pods are available
 * (Argo moves it before any exists: a preview outage), keeps what it selects while that keeps
 * running, and stays on an aborted version so people can look at it. Pure.
 */
import type { ReplicaSet } from '../../api/index.ts';
import type { Progress } from '../progress.ts';
import { available } from '../revision.ts';
import type { Revision } from '../revision.ts';

export interface ServiceTargetsInput {
  readonly where: Revision;
  readonly progress: Progress;
  readonly replicas: number;
  /** The hashes the Services select now, and the ReplicaSet the active one selects. */
  readonly activeHash?: string;
  readonly previewHash?: string;
  readonly activeRs?: ReplicaSet;
  /** Every gate before the switch is behind, and nothing holds the update (spec.paused, a
   *  person's pause, an Inconclusive run), and no ReplicaSet is being written this pass. */
  readonly mayCutOver: boolean;
  readonly previewReady: boolean;
}

export interface ServiceTargets {
  readonly active?: string;
  readonly preview?: string;
}

/** The ReplicaSet runs all its pods, every one available. */
export function fullyAvailable(rs: ReplicaSet | undefined, replicas: number): boolean {
  return rs !== undefined && (rs.spec?.replicas ?? 0) >= replicas && available(rs) >= replicas;
}

export function serviceTargets(i: ServiceTargetsInput): ServiceTargets {
  const { where, progress, replicas, activeRs } = i;
  const { current, hash } = where;
  const full = (rs: ReplicaSet | undefined): boolean => fullyAvailable(rs, replicas);
  let active: string | undefined;
  if (!where.steady && !progress.abort) {
    if (i.mayCutOver && full(current)) active = hash;
    else if (activeRs === undefined && full(where.stable)) active = progress.stableHash;
  } else {
    const stable = where.steady ? current : where.stable;
    const better =
      stable !== undefined &&
      activeRs !== undefined &&
      activeRs !== stable &&
      available(stable) > available(activeRs);
    if (i.activeHash !== progress.stableHash && (full(stable) || better)) {
      active = progress.stableHash;
    }
  }
  let preview: string | undefined;
  if (where.steady) preview = full(current) ? hash : undefined;
  else if (!progress.abort) {
    const keeps =
      i.previewHash !== undefined &&
      [hash, progress.stableHash, i.activeHash].includes(i.previewHash);
    if (i.previewReady) preview = hash;
    else if (!keeps) preview = activeRs !== undefined ? i.activeHash : progress.stableHash;
  }
  return {
    ...(active === undefined ? {} : { active }),
    ...(preview === undefined ? {} : { preview }),
  };
}
