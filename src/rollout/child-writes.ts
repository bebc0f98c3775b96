/**
 * Writes to a rollout's children: a ReplicaSet to its count and role metadata, old ReplicaSets
 * beyond revisionHistoryLimit deleted, the canary and stable Services pinned to their hashes,
 * running pods given their role's ephemeral metadata.
 */
import { Reason } from '../api/index.ts';
import type { CanaryStrategy, ReplicaSet } from '../api/index.ts';
import { normal, type Pass } from './pass.ts';
import { podMetadataPatch } from './pod-metadata.ts';
import type { Progress } from './progress.ts';
import { replicaSetBody, replicaSetDiffers, rescaledBody, revisionOf } from './replicasets.ts';
import type { ReplicaCounts } from './replicas.ts';
import type { Revision } from './revision.ts';
import { pinService } from './services.ts';
import type { Write } from './types.ts';

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The writes that bring one ReplicaSet to a count (none when it is there already). */
export interface ScaleWrite {
  readonly grows: boolean;
  readonly writes: readonly Write[];
}

/**
 * Every ReplicaSet to its count, the canary created if missing. Every scale-up is written before
 * any scale-down, so capacity never dips between two writes (an abort grows the stable before it
 * shrinks the canary); the stable grows first. Returns whether any ReplicaSet is written.
 */
export function scaleReplicaSets(
  pass: Pass,
  where: Revision,
  counts: ReplicaCounts,
  movable: readonly ReplicaSet[],
): boolean {
  const { canary } = pass;
  const { steady, current, stable, hash, revision } = where;
  const canaryRole = steady ? canary.stableMetadata : canary.canaryMetadata;
  const otherRole = steady ? canary.canaryMetadata : canary.stableMetadata;
  const scales: ScaleWrite[] = [];
  if (stable !== undefined) {
    scales.push(scaleTo(stable, counts.stable, canary.stableMetadata, canary.canaryMetadata));
  }
  if (current === undefined) {
    const body = replicaSetBody(pass.o.rollout, {
      hash,
      replicas: counts.canary,
      revision,
      roleMetadata: canaryRole,
    });
    const name = body.metadata?.name;
    const created = `Created ReplicaSet ${name} (revision ${revision}) with size ${counts.canary}`;
    scales.push({
      grows: true,
      writes: [
        { kind: 'applyReplicaSet', body, reason: 'create' },
        normal(Reason.NewReplicaSetCreated, created),
      ],
    });
  } else {
    scales.push(scaleTo(current, counts.canary, canaryRole, otherRole));
  }
  movable.forEach((rs, i) => scales.push(scaleTo(rs, counts.others[i] ?? 0, undefined, undefined)));
  let scaled = false;
  for (const grows of [true, false]) {
    for (const s of scales) {
      if (s.grows !== grows) continue;
      pass.writes.push(...s.writes);
      scaled ||= s.writes.some((w) => w.kind === 'applyReplicaSet');
    }
  }
  return scaled;
}

export function scaleTo(
  rs: ReplicaSet,
  replicas: number,
  role: CanaryStrategy['canaryMetadata'],
  drop: CanaryStrategy['canaryMetadata'],
): ScaleWrite {
  const body = rescaledBody(rs, { replicas, roleMetadata: role, dropMetadata: drop });
  const from = rs.spec?.replicas ?? 0;
  if (!replicaSetDiffers(rs, body)) return { grows: true, writes: [] };
  const writes: Write[] = [{ kind: 'applyReplicaSet', body, reason: 'scale' }];
  if (from !== replicas) {
    writes.push(
      normal(
        Reason.ScalingReplicaSet,
        `Scaled ${replicas > from ? 'up' : 'down'} ` +
          `ReplicaSet ${rs.metadata?.name} (revision ${revisionOf(rs)}) from ${from} to ${replicas}`,
      ),
    );
  }
  return { grows: replicas >= from, writes };
}

/** Scaled-down ReplicaSets beyond revisionHistoryLimit, oldest first. */
export function deleteOldReplicaSets(
  pass: Pass,
  others: readonly ReplicaSet[],
  held: readonly ReplicaSet[],
  limit = DEFAULT_REVISION_HISTORY_LIMIT,
): void {
  others.forEach((rs, i) => {
    if (i < limit || held.includes(rs)) return;
    if ((rs.spec?.replicas ?? 0) > 0 || (rs.status?.replicas ?? 0) > 0) return;
    pass.writes.push(
      { kind: 'deleteReplicaSet', name: rs.metadata?.name ?? '' },
      normal(
        Reason.DeletedOldReplicaSet,
        `Deleted old ReplicaSet ${rs.metadata?.name} (revision ${revisionOf(rs)})`,
      ),
    );
  });
}

export function pinServices(
  pass: Pass,
  p: Progress,
  hash: string,
  steady: boolean,
  current: ReplicaSet | undefined,
): void {
  const { o, canary } = pass;
  const name = o.rollout.metadata.name ?? '';
  const canaryLive =
    !steady && !p.abort && current !== undefined && (current.status?.availableReplicas ?? 0) > 0;
  const targets: [string | undefined, string][] = [
    [canary.canaryService, canaryLive ? hash : p.stableHash],
    [canary.stableService, p.stableHash],
  ];
  for (const [serviceName, target] of targets) {
    const service = serviceName === undefined ? undefined : o.services.get(serviceName);
    if (service === undefined) continue;
    const change = pinService(service, target, name);
    if (change === undefined) continue;
    pass.writes.push(
      { kind: 'applyService', body: change.body },
      normal(
        Reason.SwitchService,
        `Switched selector for service '${serviceName}' from '${change.from ?? ''}' to '${change.to}'`,
      ),
    );
  }
}

export function patchPodRoles(pass: Pass, stableHash: string, hash: string): void {
  const { o, canary } = pass;
  if (canary.canaryMetadata === undefined && canary.stableMetadata === undefined) return;
  for (const pod of o.pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const podHash = pod.metadata?.labels?.['rollouts-pod-template-hash'];
    const role = podHash === stableHash ? 'stable' : podHash === hash ? 'canary' : undefined;
    if (role === undefined) continue;
    const patch =
      role === 'stable'
        ? podMetadataPatch(pod, canary.stableMetadata, canary.canaryMetadata)
        : podMetadataPatch(pod, canary.canaryMetadata, canary.stableMetadata);
    if (patch)
      pass.writes.push({ kind: 'patchPodMetadata', name: pod.metadata?.name ?? '', patch });
  }
}
