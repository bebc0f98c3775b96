/**
 * spec.restartAt: evict every pod created before that time, at most maxUnavailable at a time
 * (eviction honours PodDisruptionBudgets), stable ReplicaSet first, then the current one, then
 * older ones; oldest pods first. Done when no such pod is left: status.restartedAt = restartAt.
 */
import type { Pod, ReplicaSet } from '../api/index.ts';
import { POD_TEMPLATE_HASH_LABEL, Reason } from '../api/index.ts';
import { normal } from './events.ts';
import type { Fragment } from './order.ts';
import { hashOf } from './replicasets.ts';
import type { Revision } from './revision.ts';
import { available } from './revision.ts';
import type { Observed } from './types.ts';

export interface RestartInput {
  readonly restartAt?: string;
  readonly restartedAt?: string;
  readonly now: number;
  readonly pods: readonly Pod[];
  /** Pod-template hashes in eviction order: stable, current, then older. */
  readonly hashOrder: readonly string[];
  readonly maxUnavailable: number;
  /** Pods the ReplicaSets want minus pods available now. */
  readonly unavailable: number;
}

export interface RestartDecision {
  /** Pod names to evict this pass. */
  readonly evict: readonly string[];
  /** The restartedAt to record (unchanged unless the restart completed). */
  readonly restartedAt?: string;
  readonly pending: boolean;
  readonly requeueAt?: number;
}

export function decideRestart(i: RestartInput): RestartDecision {
  const unchanged = { evict: [], restartedAt: i.restartedAt, pending: false };
  if (i.restartAt === undefined || i.restartAt === i.restartedAt) return unchanged;
  const at = Date.parse(i.restartAt);
  if (Number.isNaN(at)) return unchanged;
  if (at > i.now) return { ...unchanged, requeueAt: at };
  const stale = i.pods
    .filter((p) => !p.metadata?.deletionTimestamp && created(p) < at)
    .sort((a, b) => rank(a, i.hashOrder) - rank(b, i.hashOrder) || created(a) - created(b));
  if (stale.length === 0) return { evict: [], restartedAt: i.restartAt, pending: false };
  const budget = Math.max(i.maxUnavailable, 1) - Math.max(i.unavailable, 0);
  const evict = budget > 0 ? stale.slice(0, budget).map((p) => p.metadata?.name ?? '') : [];
  return { evict, restartedAt: i.restartedAt, pending: true };
}

function created(pod: Pod): number {
  const t = pod.metadata?.creationTimestamp;
  return t === undefined ? 0 : new Date(t).getTime();
}

function rank(pod: Pod, order: readonly string[]): number {
  const index = order.indexOf(pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] ?? '');
  return index < 0 ? order.length : index;
}

/**
 * restartAt for a pass: the evictions (stage evictions; none while a ReplicaSet is being scaled),
 * the event when the restart completes, and when to look again.
 */
export function planRestart(
  o: Observed,
  where: Revision,
  stableHash: string,
  maxUnavailable: number,
  scaled: boolean,
): { readonly decision: RestartDecision; readonly fragment: Fragment } {
  const { rollout, now, pods, replicaSets } = o;
  const restartedAt = rollout.status?.restartedAt;
  const decision = decideRestart({
    restartAt: rollout.spec.restartAt,
    restartedAt,
    now,
    pods,
    hashOrder: [stableHash, where.hash, ...where.others.map((rs) => hashOf(rs) ?? '')],
    maxUnavailable,
    unavailable: unavailableCount(replicaSets),
  });
  const restarted =
    decision.restartedAt !== undefined && decision.restartedAt !== restartedAt
      ? [
          normal(
            Reason.RolloutRestarted,
            `Restarted all pods created before ${decision.restartedAt}`,
          ),
        ]
      : [];
  const evictions = scaled
    ? []
    : decision.evict.map((name) => ({ kind: 'evictPod' as const, name }));
  return {
    decision,
    fragment: {
      writes: { evictions },
      events: restarted,
      requeueAt: decision.requeueAt === undefined ? [] : [decision.requeueAt],
    },
  };
}

function unavailableCount(rss: readonly ReplicaSet[]): number {
  return Math.max(
    0,
    rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0) - available(rs), 0),
  );
}
