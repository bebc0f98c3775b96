/**
 * The imperative shell around the planner: read the Rollout and its children from the caches,
 * call plan(), make the writes in order (server-side apply under stepwise-controller), throw at
 * the first failure, return when to come back. No rollout logic lives here.
 */
import { API_VERSION, ROLLOUT_KIND } from '../api/index.ts';
import type { Pod, ReplicaSet, Rollout, RolloutStatus, Service } from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import type { KubeApi } from '../kube/kube-api.ts';
import type { Clock } from '../kube/clock.ts';
import type { Logger } from '../kube/log.ts';
import { Resources } from '../kube/resources.ts';
import { plan } from '../rollout/plan.ts';
import type { Write } from '../rollout/types.ts';
import type { Key, Reconciler, Result } from './reconciler.ts';

/** What the reconciler reads: the informers' caches, nothing else. */
export interface RolloutCache {
  rollout(key: Key): Rollout | undefined;
  replicaSetsOf(rollout: Rollout): ReplicaSet[];
  podsOf(replicaSets: readonly ReplicaSet[]): Pod[];
  service(namespace: string, name: string): Service | undefined;
}

export interface EventSink {
  event(rollout: Rollout, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface RolloutReconcilerDeps {
  readonly cache: RolloutCache;
  readonly api: KubeApi;
  readonly events: EventSink;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onPhase?: (rollout: Rollout) => void;
  readonly onDeleted?: (key: Key) => void;
}

/** A cache that has not yet seen our own last status write would plan the same step twice. */
const STALE_CACHE_REQUEUE_MS = 100;

export class RolloutReconciler implements Reconciler {
  readonly #deps: RolloutReconcilerDeps;
  /** key → resourceVersion we planned from, while the cache has not caught up with our write. */
  readonly #awaiting = new Map<Key, string>();
  /** ReplicaSet key → resourceVersion we planned from, until the cache shows our apply. */
  readonly #awaitingReplicaSets = new Map<string, string>();

  constructor(deps: RolloutReconcilerDeps) {
    this.#deps = deps;
  }

  async reconcile(key: Key): Promise<Result> {
    const { cache, clock } = this.#deps;
    const rollout = cache.rollout(key);
    if (rollout === undefined) {
      this.#awaiting.delete(key);
      for (const rsKey of this.#awaitingReplicaSets.keys()) {
        if (rsKey.startsWith(`${key}-`)) this.#awaitingReplicaSets.delete(rsKey);
      }
      this.#deps.onDeleted?.(key);
      return {};
    }
    const readVersion = rollout.metadata.resourceVersion ?? '';
    if (this.#awaiting.get(key) === readVersion) return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    this.#awaiting.delete(key);

    const replicaSets = cache.replicaSetsOf(rollout);
    // Same for ReplicaSets we scaled: a stale one would be scaled (and reported) twice.
    for (const rs of replicaSets) {
      const rsKey = `${rs.metadata?.namespace}/${rs.metadata?.name}`;
      const before = this.#awaitingReplicaSets.get(rsKey);
      if (before === undefined) continue;
      if (before === rs.metadata?.resourceVersion)
        return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
      this.#awaitingReplicaSets.delete(rsKey);
    }
    const canary = rollout.spec.strategy?.canary;
    const services = new Map<string, Service>();
    for (const name of [canary?.canaryService, canary?.stableService]) {
      const svc =
        name === undefined ? undefined : cache.service(rollout.metadata.namespace ?? '', name);
      if (name !== undefined && svc !== undefined) services.set(name, svc);
    }
    const result = plan({
      rollout,
      replicaSets,
      pods: cache.podsOf(replicaSets),
      services,
      now: clock.now(),
    });
    for (const write of result.writes) {
      const written = await this.#write(rollout, write);
      if (write.kind === 'applyReplicaSet')
        this.#noteReplicaSetWrite(replicaSets, write.body, written);
      if (write.kind === 'applyStatus' && written !== undefined && written !== readVersion) {
        this.#awaiting.set(key, readVersion);
      }
    }
    this.#deps.onPhase?.(rollout);
    return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
  }

  #noteReplicaSetWrite(observed: readonly ReplicaSet[], body: ReplicaSet, written?: string): void {
    const name = body.metadata?.name;
    const before = observed.find((rs) => rs.metadata?.name === name)?.metadata?.resourceVersion;
    if (before !== undefined && written !== undefined && written !== before) {
      this.#awaitingReplicaSets.set(`${body.metadata?.namespace}/${name}`, before);
    }
  }

  /** Makes one write; returns the new resourceVersion for a status or ReplicaSet write. */
  async #write(rollout: Rollout, w: Write): Promise<string | undefined> {
    const { api } = this.#deps;
    const namespace = rollout.metadata.namespace ?? '';
    const name = rollout.metadata.name ?? '';
    switch (w.kind) {
      case 'applyReplicaSet': {
        const written = await api.apply(w.body as ReplicaSet & { metadata: object });
        return written.metadata?.resourceVersion;
      }
      case 'deleteReplicaSet':
        await api.delete(Resources.ReplicaSet, namespace, w.name);
        return undefined;
      case 'applyService':
        await api.apply(w.body as Service & { metadata: object });
        return undefined;
      case 'evictPod':
        await api.evict(namespace, w.name);
        return undefined;
      case 'patchPodMetadata':
        await api.patchMerge(Resources.Pod, namespace, w.name, { metadata: w.patch });
        return undefined;
      case 'applyStatus': {
        const body: KubeObject & { status: RolloutStatus } = {
          apiVersion: API_VERSION,
          kind: ROLLOUT_KIND,
          // Optimistic concurrency: if anyone (the plugin's promote or abort, say) changed the
          // Rollout since we read it, the apply fails with a Conflict and we plan again, instead
          // of forcing an answer to a question that has changed.
          metadata: { name, namespace, resourceVersion: rollout.metadata.resourceVersion },
          status: w.status,
        };
        const written = await api.applyStatus(body);
        return written.metadata?.resourceVersion;
      }
      case 'event':
        this.#deps.events.event(rollout, w.type, w.reason, w.message);
        return undefined;
    }
  }
}
