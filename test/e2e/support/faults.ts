/**
 * Shared pieces of the fault-path tests (test/e2e/faults-*.test.ts): broken templates, replica
 * counts by pod template hash, and the events a user would read with `kubectl describe`.
 */
import type { ReplicaSet, Rollout } from '../../../src/api/index.ts';
import { CHAOS_FAILED_LABEL, FAULT_LABEL, NEVER_READY } from '../../cluster/kwok-stages.ts';
import { waitForList, waitForRollout } from './rollouts.ts';

const HASH = 'rollouts-pod-template-hash';

/**
 * How long a Rollout must stay unwritten to count as quiet. The storm this guards against wrote
 * every ~10 ms; a planner that is not a fixed point writes again within milliseconds of seeing
 * its own write, and the shell's write-storm guard lets a probe write through after 1 s, then
 * 2 s: 5 s sees several of those cycles. The controller has no periodic resync, so a settled
 * Rollout has no reason to be written at all.
 */
export const QUIET_WINDOW_MS = 5_000;

/** A merge patch giving the template the local cluster's never-ready pod label. */
export const neverReadyTemplate = (app: string): object => ({
  template: { metadata: { labels: { app, [FAULT_LABEL]: NEVER_READY } } },
});

/** kwok's chaos stage matches this value (pod/chaos/pod-container-running-failed.yaml). */
export const failingTemplate = (app: string): object => ({
  template: { metadata: { labels: { app, [CHAOS_FAILED_LABEL]: 'true' } } },
});

export const hashOf = (rs: ReplicaSet): string | undefined => rs.metadata?.labels?.[HASH];

/** A Rollout that has seen its latest spec and has a canary ReplicaSet distinct from stable. */
export function waitForCanary(namespace: string, name: string): Promise<Rollout> {
  return waitForRollout(
    namespace,
    name,
    'a canary ReplicaSet for the latest spec',
    (r) =>
      r.status?.observedGeneration === String(r.metadata.generation) &&
      r.status.currentPodHash !== undefined &&
      r.status.stableRS !== undefined &&
      r.status.currentPodHash !== r.status.stableRS,
  );
}

/** Waits until the canary and stable ReplicaSets ask for `canary`/`stable` pods. */
export async function waitForSplit(
  namespace: string,
  rollout: Rollout,
  canary: number,
  stable: number,
  timeoutMs = 60_000,
): Promise<void> {
  const { currentPodHash, stableRS } = rollout.status ?? {};
  const replicas = (items: ReplicaSet[], hash: string | undefined) =>
    items.find((rs) => hashOf(rs) === hash)?.spec?.replicas ?? 0;
  await waitForList(
    `canary/stable ${canary}/${stable}`,
    `/apis/apps/v1/namespaces/${namespace}/replicasets`,
    (items: ReplicaSet[]) =>
      replicas(items, currentPodHash) === canary && replicas(items, stableRS) === stable,
    timeoutMs,
  );
}

export interface KubeEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly involvedObject?: { kind?: string; name?: string };
}

/** Waits for a Warning event with each of `reasons` about Rollout `name`; returns them all. */
export function waitForWarnings(
  namespace: string,
  name: string,
  reasons: readonly string[],
  timeoutMs = 30_000,
): Promise<KubeEvent[]> {
  const about = (e: KubeEvent) =>
    e.type === 'Warning' && e.involvedObject?.kind === 'Rollout' && e.involvedObject.name === name;
  return waitForList(
    `Warning events ${reasons.join(', ')} on ${name}`,
    `/api/v1/namespaces/${namespace}/events`,
    (items: KubeEvent[]) => reasons.every((r) => items.some((e) => about(e) && e.reason === r)),
    timeoutMs,
  ).then((items) => items.filter(about));
}
