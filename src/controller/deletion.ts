/**
 * What a deleted Rollout gives back (issue 22): the user's objects it marked are handed back as
 * they were before it. Its routes go back to the stable Service at the full weight, with no
 * managed routes and no hash on DestinationRule subsets (src/traffic/release.ts), then its
 * Services lose our hash (src/rollout releaseService); our marks leave both. Objects it
 * generated go with it through their ownerReference (the garbage collector).
 *
 * Two ways a deletion reaches here. The Rollout informer saw it (`deleted`, with the last state,
 * which names the routing of objects marked before the routing was recorded on them). Or the
 * controller was down or not leading then: `goneKeys` (run with every full re-queue: start-up,
 * leadership, after an outage) finds marks of this controller instance naming a Rollout its cache
 * does not hold, and that Rollout is released once the API server confirms it is gone. A key
 * another instance owns is never taken for a deletion: its marks carry that instance.
 */
import { managedRouting, markedByKey, markOf, readRoutingRecord } from '../api/index.ts';
import type { Rollout, Service } from '../api/index.ts';
import { Resources, splitKey } from '../kube/index.ts';
import type { KubeApi, KubeObject, Logger } from '../kube/index.ts';
import { releaseService } from '../rollout/index.ts';
import { releaseBody } from '../traffic/release.ts';
import type { Key } from './reconciler.ts';
import type { MarkedTrafficObject, TrafficObjectCache } from './traffic-shell.ts';

export interface ReleaseCache {
  rollout(key: Key): Rollout | undefined;
  /** Services marked by the Rollout of this key, existing or not. */
  servicesManagedBy?(key: Key): Service[];
  /** Every Service carrying a Rollout's mark. */
  markedServices?(): Service[];
  readonly traffic?: TrafficObjectCache;
}

interface Pending {
  /** The Rollout as last seen; absent for one found by the sweep. */
  readonly last?: Rollout;
  /** Found by the sweep: released only once the API server says it is gone. */
  readonly confirm: boolean;
}

export class RolloutReleases {
  readonly #cache: ReleaseCache;
  readonly #api: KubeApi;
  readonly #log: Logger;
  readonly #instanceId: string | undefined;
  readonly #pending = new Map<Key, Pending>();

  constructor(deps: {
    readonly cache: ReleaseCache;
    readonly api: KubeApi;
    readonly log: Logger;
    /** --instance-id: the sweep takes only marks of Rollouts of this instance. */
    readonly instanceId?: string;
  }) {
    this.#cache = deps.cache;
    this.#api = deps.api;
    this.#log = deps.log;
    this.#instanceId = deps.instanceId;
  }

  /** The Rollout informer saw the Rollout deleted (`last`: its final state). */
  deleted(key: Key, last?: Rollout): void {
    this.#pending.set(key, { ...(last === undefined ? {} : { last }), confirm: false });
  }

  /** Keys of Rollouts this instance marked objects for and no longer caches: each is noted for
   *  a release that first asks the API server whether it is gone. */
  goneKeys(): Key[] {
    const objects = [
      ...(this.#cache.markedServices?.() ?? []),
      ...(this.#cache.traffic?.marked?.() ?? []).map((m) => m.object),
    ];
    const keys = new Set<Key>();
    for (const o of objects) {
      const mark = markOf(o);
      const key = markedByKey(o);
      if (mark === undefined || key === undefined || mark.instance !== this.#instanceId) continue;
      if (this.#cache.rollout(key) !== undefined || this.#pending.has(key)) continue;
      keys.add(key);
      this.#pending.set(key, { confirm: true });
    }
    return [...keys];
  }

  /** Releases what the Rollout of `key` marked, if it was seen or found deleted; it stays noted
   *  until every write succeeded (a failure throws and the pass is retried). */
  async release(key: Key): Promise<void> {
    const pending = this.#pending.get(key);
    if (pending === undefined) return;
    const { namespace = '', name } = splitKey(key);
    if (pending.confirm && (await this.#api.get(Resources.Rollout, namespace, name))) {
      this.#pending.delete(key); // there after all: another instance's, or just created
      return;
    }
    // Traffic first: no request goes on to a canary whose Service is about to select every pod.
    for (const marked of this.#cache.traffic?.managedBy?.(key) ?? []) {
      await this.#releaseTraffic(key, marked, pending.last);
    }
    for (const svc of this.#cache.servicesManagedBy?.(key) ?? []) {
      const change = releaseService(svc, name);
      if (change === undefined) continue;
      await this.#api.apply(change.body as Service & { metadata: object });
      this.#log.info('released the Service of a deleted Rollout', {
        rollout: key,
        service: svc.metadata?.name,
        from: change.from,
      });
    }
    this.#pending.delete(key);
  }

  async #releaseTraffic(key: Key, marked: MarkedTrafficObject, last?: Rollout): Promise<void> {
    const { name } = splitKey(key);
    const { type, object } = marked;
    const what = `${type.kind} ${object.metadata?.namespace}/${object.metadata?.name}`;
    const routing = readRoutingRecord(object) ?? (last && managedRouting(last));
    if (routing === undefined) {
      // Marked before routings were recorded, and the Rollout was not seen going: guessing
      // which backend is the stable one could send everything to the canary's pods.
      this.#log.warn('cannot release a traffic object of a deleted Rollout: no routing recorded', {
        rollout: key,
        object: what,
      });
      return;
    }
    const body = releaseBody({ name, routing }, type, object);
    if (body === undefined) return; // ours alone (generated): the garbage collector's
    await this.#api.apply(body as KubeObject & { metadata: object });
    this.#log.info('released the traffic object of a deleted Rollout', {
      rollout: key,
      object: what,
    });
  }
}
