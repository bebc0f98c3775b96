/**
 * Who holds the ReplicaSets a Rollout's selector matches but no Stepwise Rollout controls: no
 * one (orphaned: ours to adopt), an Argo Rollout (its controller may still be running: two
 * controllers would claim them), an Argo Experiment (a feature Stepwise lacks), or some other
 * controller (not ours to touch, as Kubernetes' ControllerRefManager leaves them). Pure.
 */
import { ARGO_GROUP } from '../../api/index.ts';
import type { ReplicaSet } from '../../api/index.ts';

export interface HeldBy {
  readonly replicaSet: ReplicaSet;
  /** `Rollout`, `Experiment`… of argoproj.io. */
  readonly kind: string;
  readonly name: string;
}

export interface Claims {
  readonly orphans: readonly ReplicaSet[];
  readonly heldByArgoRollouts: readonly HeldBy[];
  /** Held by an Argo kind Stepwise has no counterpart for (Experiment). */
  readonly heldByArgoOthers: readonly HeldBy[];
}

const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

/** Sorted by name, so what a refusal says does not change with the cache's order. */
export function sortClaims(unclaimed: readonly ReplicaSet[]): Claims {
  const orphans: ReplicaSet[] = [];
  const heldByArgoRollouts: HeldBy[] = [];
  const heldByArgoOthers: HeldBy[] = [];
  const byName = [...unclaimed].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  for (const rs of byName) {
    if (rs.metadata?.deletionTimestamp) continue;
    const owner = rs.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (owner === undefined) {
      orphans.push(rs);
      continue;
    }
    if (groupOf(owner.apiVersion) !== ARGO_GROUP) continue;
    const held = { replicaSet: rs, kind: owner.kind, name: owner.name };
    if (owner.kind === 'Rollout') heldByArgoRollouts.push(held);
    else heldByArgoOthers.push(held);
  }
  return { orphans, heldByArgoRollouts, heldByArgoOthers };
}
