/**
 * spec.restartAt: evict every pod created before that time, at most maxUnavailable at a time
 * (eviction honours PodDisruptionBudgets), stable ReplicaSet first, then the current one, then
 * older ones; oldest pods first. Done when no such pod is left: status.restartedAt = restartAt.
 */
import type { Pod } from '../api/index.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';

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
