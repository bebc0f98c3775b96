/**
 * Blue-green Rollouts for the fault, GitOps and pod tests (test/e2e/bluegreen-*.test.ts): the
 * Rollout and its two Services, and the recorded history of what the active Service selected,
 * replayed against the ReplicaSets' availability in the order the API server wrote them.
 */
import type {
  BlueGreenStrategy,
  ReplicaSet,
  Rollout,
  RolloutSpec,
  Service,
} from '../../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';
import type { Recorded } from './history.ts';
import { WatchHistory } from './history.ts';
import { blueGreenRollout, hashOfRs } from './bluegreen-numbers.ts';
import { http, replicaSets } from './rollouts.ts';

/** A blue-green Rollout `name` of two pods (Services `<name>-active` and `<name>-preview`). */
export function blueGreenBody(
  name: string,
  blueGreen: Partial<BlueGreenStrategy> = {},
  spec: Partial<RolloutSpec> = {},
): Rollout {
  return blueGreenRollout(name, blueGreen, { replicas: 2, ...spec });
}

/** The pod-template hash a Service selects, if its selector has one. */
export const selectedHash = (svc: Service | undefined): string | undefined =>
  svc?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];

export function watchService(namespace: string, name: string): Promise<WatchHistory<Service>> {
  return WatchHistory.start<Service>(
    `/api/v1/namespaces/${namespace}/services?fieldSelector=metadata.name%3D${name}`,
  );
}

export async function getServiceObject(namespace: string, name: string): Promise<Service> {
  return http.json<Service>('GET', `/api/v1/namespaces/${namespace}/services/${name}`);
}

/** The hashes a Service selected, in order, repeats folded (`-` for none): for messages. */
export function selectorTrace(history: readonly Recorded<Service>[]): string[] {
  const steps: string[] = [];
  for (const e of history) {
    const hash = selectedHash(e.object) ?? '-';
    if (steps.at(-1) !== hash) steps.push(hash);
  }
  return steps;
}

/**
 * The events of two watches in the order the API server wrote them. A resourceVersion is opaque
 * to clients in general; on this cluster (one etcd) it is etcd's global revision, the only order
 * there is between a Service write and a ReplicaSet write.
 */
function byWriteOrder(
  services: readonly Recorded<Service>[],
  replicaSets: readonly Recorded<ReplicaSet>[],
) {
  const revision = (o: { metadata?: { resourceVersion?: string } }) =>
    Number(o.metadata?.resourceVersion ?? 0);
  return [
    ...services.map((e) => ({ service: e, rs: undefined, at: revision(e.object) })),
    ...replicaSets.map((e) => ({ service: undefined, rs: e, at: revision(e.object) })),
  ].sort((a, b) => a.at - b.at);
}

/** One moment at which the active Service selected a ReplicaSet with no available pod. */
export interface Outage {
  readonly hash: string;
  readonly resourceVersion: number;
  readonly replicas: number;
}

/**
 * Replays the active Service's and the ReplicaSets' histories in write order and returns every
 * state in which the Service selected a hash whose ReplicaSet had no available pod (or did not
 * exist). Checking starts once the Service and the ReplicaSet it selects have both been seen:
 * the two watches list what exists in their own order, and the tests start them on a Healthy
 * Rollout, whose active ReplicaSet is available.
 */
export function activeOutages(
  active: readonly Recorded<Service>[],
  replicaSets: readonly Recorded<ReplicaSet>[],
): Outage[] {
  const sets = new Map<string, ReplicaSet>();
  let selected: string | undefined;
  let started = false;
  const outages: Outage[] = [];
  for (const { service, rs, at } of byWriteOrder(active, replicaSets)) {
    if (service) {
      selected = selectedHash(service.object);
    } else if (rs) {
      const hash = hashOfRs(rs.object) ?? '';
      if (rs.type === 'DELETED') sets.delete(hash);
      else sets.set(hash, rs.object);
    }
    if (selected === undefined) continue;
    const current = sets.get(selected);
    started ||= current !== undefined;
    if (!started) continue;
    if ((current?.status?.availableReplicas ?? 0) === 0) {
      outages.push({ hash: selected, resourceVersion: at, replicas: current?.spec?.replicas ?? 0 });
    }
  }
  return outages;
}

/** spec.replicas of the ReplicaSet with `hash`, now. */
export async function replicasOf(
  ns: string,
  app: string,
  hash: string | undefined,
): Promise<number> {
  const rs = (await replicaSets(ns, app)).find((r) => hashOfRs(r) === hash);
  return rs?.spec?.replicas ?? 0;
}

/** Writes that changed a ReplicaSet's spec, labels or annotations (not the ReplicaSet
 *  controller's status updates, which follow pods). */
export function replicaSetWrites(events: readonly Recorded<ReplicaSet>[]): string[] {
  const last = new Map<string, string>();
  const writes: string[] = [];
  for (const e of events) {
    const name = e.object.metadata?.name ?? '';
    const { labels, annotations } = e.object.metadata ?? {};
    const shape = JSON.stringify([e.object.spec, labels, annotations]);
    if (e.type === 'MODIFIED' && last.has(name) && last.get(name) !== shape) writes.push(name);
    last.set(name, shape);
  }
  return writes;
}
