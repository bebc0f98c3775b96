/**
 * Writes to a rollout's children, strategy-neutral: a ReplicaSet to its count and role metadata,
 * old ReplicaSets beyond revisionHistoryLimit deleted, the Rollout's Services (by role,
 * servicesOf) pinned to their hashes, running pods given their role's ephemeral metadata. Each
 * returns a Fragment (its writes by stage, each event after the write it describes); the strategy
 * decides the counts, the metadata of each role and the hash each Service role selects.
 */
import { POD_TEMPLATE_HASH_LABEL, Reason } from '../api/index.ts';
import type { PodMetadata, PodSpec, ReplicaSet, Rollout } from '../api/index.ts';
import { normal } from './events.ts';
import type { Fragment } from './order.ts';
import { podMetadataPatch } from './pod-metadata.ts';
import {
  replicaSetBody,
  replicaSetDiffers,
  rescaledBody,
  revisionOf,
  staleRoleKeys,
} from './replicasets.ts';
import type { Revision } from './revision.ts';
import { pinService, releaseService, servicesOf } from './services.ts';
import type { ServiceRole } from './services.ts';
import type { Observed, Write } from './types.ts';

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The writes that bring one ReplicaSet to a count (none when it is there already). */
interface ScaleWrite {
  readonly grows: boolean;
  readonly writes: readonly Write[];
}

/** The counts a pass aims at: the current template's ReplicaSet, the stable, and the movable
 *  older ones in order. */
export interface ChildCounts {
  readonly current: number;
  readonly stable: number;
  readonly others: readonly number[];
}

/** The pod metadata of each role: the template being rolled out (a canary, a preview) and the
 *  stable one. */
export interface RoleMetadata {
  readonly current?: PodMetadata;
  readonly stable?: PodMetadata;
}

/** What a strategy may add to the current template's ReplicaSet. */
export interface CurrentOptions {
  /** The pod spec it gets when created, instead of the template's (replicasets.ts). */
  readonly podSpec?: PodSpec;
  /** A scale-down deadline it keeps (RFC 3339); without one a rescale drops it. */
  readonly currentDeadline?: string;
}

/**
 * Every ReplicaSet to its count, the current one created if missing. Scale-ups go in stage
 * scaleUp, scale-downs in scaleDown (an abort grows the stable before it shrinks the canary);
 * within a stage the stable comes first. `scaled`: some ReplicaSet is written.
 */
export function scaleReplicaSets(
  rollout: Rollout,
  where: Revision,
  counts: ChildCounts,
  movable: readonly ReplicaSet[],
  roles: RoleMetadata,
  options: CurrentOptions = {},
): { readonly fragment: Fragment; readonly scaled: boolean } {
  const { podSpec } = options;
  const { steady, current, stable, hash, revision } = where;
  const currentRole = steady ? roles.stable : roles.current;
  const otherRole = steady ? roles.current : roles.stable;
  const scales: ScaleWrite[] = [];
  if (stable !== undefined) {
    scales.push(scaleTo(stable, counts.stable, roles.stable, roles.current));
  }
  if (current === undefined) {
    const body = replicaSetBody(rollout, {
      hash,
      replicas: counts.current,
      revision,
      roleMetadata: currentRole,
      ...(podSpec === undefined ? {} : { podSpec }),
    });
    const name = body.metadata?.name;
    const created = `Created ReplicaSet ${name} (revision ${revision}) with size ${counts.current}`;
    scales.push({
      grows: true,
      writes: [
        { kind: 'applyReplicaSet', body, reason: 'create' },
        normal(Reason.NewReplicaSetCreated, created),
      ],
    });
  } else {
    scales.push(scaleTo(current, counts.current, currentRole, otherRole, options.currentDeadline));
  }
  movable.forEach((rs, i) => scales.push(scaleTo(rs, counts.others[i] ?? 0, undefined, undefined)));
  const scaleUp = scales.filter((s) => s.grows).flatMap((s) => s.writes);
  const scaleDown = scales.filter((s) => !s.grows).flatMap((s) => s.writes);
  const scaled = [...scaleUp, ...scaleDown].some((w) => w.kind === 'applyReplicaSet');
  return { fragment: { writes: { scaleUp, scaleDown } }, scaled };
}

function scaleTo(
  rs: ReplicaSet,
  replicas: number,
  role: PodMetadata | undefined,
  drop: PodMetadata | undefined,
  scaleDownDeadline?: string,
): ScaleWrite {
  const body = rescaledBody(rs, {
    replicas,
    roleMetadata: role,
    dropMetadata: drop,
    ...(scaleDownDeadline === undefined ? {} : { scaleDownDeadline }),
  });
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
  others: readonly ReplicaSet[],
  held: readonly ReplicaSet[],
  limit = DEFAULT_REVISION_HISTORY_LIMIT,
): Fragment {
  const deleteOld = others.flatMap((rs, i): Write[] => {
    if (i < limit || held.includes(rs)) return [];
    if ((rs.spec?.replicas ?? 0) > 0 || (rs.status?.replicas ?? 0) > 0) return [];
    return [
      { kind: 'deleteReplicaSet', name: rs.metadata?.name ?? '' },
      normal(
        Reason.DeletedOldReplicaSet,
        `Deleted old ReplicaSet ${rs.metadata?.name} (revision ${revisionOf(rs)})`,
      ),
    ];
  });
  return { writes: { deleteOld } };
}

/** Each Service the Rollout names pinned to the hash its role selects (a role without a hash
 *  is left alone); in servicesOf order. */
export function pinServices(
  o: Observed,
  hashByRole: Partial<Readonly<Record<ServiceRole, string>>>,
): Fragment {
  const rolloutName = o.rollout.metadata.name ?? '';
  const moves = servicesOf(o.rollout).flatMap(({ role, name }) => {
    const target = hashByRole[role];
    const service = o.services.get(name);
    if (target === undefined || service === undefined) return [];
    const change = pinService(service, target, rolloutName);
    return change === undefined ? [] : [{ role, name, change }];
  });
  // Argo's order (preview before active), except when both move to the same version in one
  // pass: then the Service users reach goes first, so their cut-over costs one write, not two.
  const userFacing = (role: ServiceRole): boolean => role === 'active' || role === 'stable';
  const sharedTarget = (to: string): boolean => moves.filter((m) => m.change.to === to).length > 1;
  const ordered = [
    ...moves.filter((m) => userFacing(m.role) && sharedTarget(m.change.to)),
    ...moves.filter((m) => !(userFacing(m.role) && sharedTarget(m.change.to))),
  ];
  const services = ordered.flatMap(({ name, change }): Write[] => [
    { kind: 'applyService', body: change.body },
    normal(
      Reason.SwitchService,
      `Switched selector for service '${name}' from '${change.from ?? ''}' to '${change.to}'`,
    ),
  ]);
  return { writes: { services } };
}

/** Services the Rollout marked but no longer names (its strategy changed, say): their selector
 *  loses our hash, so no Service is left pinned to a version nothing keeps. */
export function releaseServices(o: Observed): Fragment {
  const named = new Set(servicesOf(o.rollout).map((s) => s.name));
  const rolloutName = o.rollout.metadata.name ?? '';
  const services = [...o.services].flatMap(([name, service]): Write[] => {
    if (named.has(name)) return [];
    const change = releaseService(service, rolloutName);
    if (change === undefined) return [];
    return [
      { kind: 'applyService', body: change.body },
      normal(
        Reason.SwitchService,
        `Released service '${name}' (no longer named by the Rollout): selector no longer pinned to '${change.from ?? ''}'`,
      ),
    ];
  });
  return { writes: { services } };
}

/** Running pods of the stable and current hashes patched to their role's metadata. */
export function patchPodRoles(
  o: Observed,
  roles: RoleMetadata,
  stableHash: string,
  hash: string,
): Fragment {
  if (roles.current === undefined && roles.stable === undefined) return {};
  const podMetadata = o.pods.flatMap((pod): Write[] => {
    if (pod.metadata?.deletionTimestamp) return [];
    const podHash = pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
    const role = podHash === stableHash ? 'stable' : podHash === hash ? 'current' : undefined;
    if (role === undefined) return [];
    const [want, other] =
      role === 'stable' ? [roles.stable, roles.current] : [roles.current, roles.stable];
    // Keys its ReplicaSet recorded from an earlier version of the role go too.
    const stale = staleRoleKeys(
      o.replicaSets.find((rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === podHash),
      want ?? {},
    );
    const patch = podMetadataPatch(pod, want, {
      labels: { ...other?.labels, ...stale.labels },
      annotations: { ...other?.annotations, ...stale.annotations },
    });
    return patch ? [{ kind: 'patchPodMetadata', name: pod.metadata?.name ?? '', patch }] : [];
  });
  return { writes: { podMetadata } };
}

/** On promotion the old stable keeps its pods until its scale-down deadline (the Service has
 *  just left it; clients drain), then goes to 0: the write that records the deadline (stage
 *  holdOldStable) and the wake-up. Nothing when it has no pods or the delay is 0. */
export function holdOldStable(
  old: ReplicaSet | undefined,
  delaySeconds: number,
  now: number,
): Fragment {
  const left = old?.spec?.replicas ?? 0;
  if (old === undefined || left === 0 || delaySeconds === 0) return {};
  const deadline = now + delaySeconds * 1000;
  return {
    writes: {
      holdOldStable: [
        {
          kind: 'applyReplicaSet',
          reason: 'scale-down-delay',
          body: rescaledBody(old, {
            replicas: left,
            scaleDownDeadline: new Date(deadline).toISOString(),
          }),
        },
      ],
    },
    requeueAt: [deadline],
  };
}

/** Argo's default scaleDownDelaySeconds. */
export const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;
