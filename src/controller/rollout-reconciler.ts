/**
 * The imperative shell around the planner: read the Rollout and its children from the caches,
 * call plan(), make the writes in order (server-side apply under stepwise-controller), throw at
 * the first failure, return when to come back. No rollout logic lives here.
 */
import { Reason } from '../api/index.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Person,
  Pod,
  ReplicaSet,
  Rollout,
  RolloutApproval,
  RolloutStatus,
  Service,
} from '../api/index.ts';
import type { Clock, Logger } from '../kube/index.ts';
import { plan, resolveWorkload, servicesOf } from '../rollout/index.ts';
import type {
  ArgoControllerLease,
  Observed,
  ObservedWorkload,
  Plan,
  Write,
} from '../rollout/index.ts';
import { Expectations } from './expectations.ts';
import type { Key, Reconciler, Result } from './reconciler.ts';
import { passFields } from './pass-log.ts';
import { RefusedWriteError, refusalOf } from './refusal.ts';
import type { Refusal } from '../rollout/progressing.ts';
import { observeTraffic } from './traffic-shell.ts';
import type { TrafficObjectCache, TrafficView } from './traffic-shell.ts';
import { stormMessage, WriteStormGuard, type WriteStormMetrics } from './write-storm.ts';
import { RolloutReleases } from './deletion.ts';
import { restoreWorkload } from './workload-restore.ts';
import type { WorkloadReading } from './workload-wiring.ts';
import { makeWrite } from './rollout-writes.ts';
import type { EventSink, PlannedEvent, WriteTarget } from './rollout-writes.ts';

/** What the reconciler reads: the informers' caches, nothing else. */
export interface RolloutCache {
  rollout(key: Key): Rollout | undefined;
  replicaSetsOf(rollout: Rollout): ReplicaSet[];
  /** ReplicaSets the Rollout's selector matches that no Stepwise Rollout controls (absent: not
   *  indexed; adoption is then never planned). */
  unclaimedReplicaSetsOf?(rollout: Rollout): ReplicaSet[];
  podsOf(replicaSets: readonly ReplicaSet[]): Pod[];
  service(namespace: string, name: string): Service | undefined;
  /** Services marked as managed by the Rollout of this key, existing or not (absent: not
   *  indexed). */
  servicesManagedBy?(key: Key): Service[];
  /** Every Service carrying a Rollout's mark (the sweep for Rollouts deleted unseen). */
  markedServices?(): Service[];
  /** AnalysisRuns whose controller owner is the Rollout (absent: analysis is not watched). */
  analysisRunsOf?(rollout: Rollout): AnalysisRun[];
  analysisTemplates?(namespace: string): ReadonlyMap<string, AnalysisTemplate>;
  clusterAnalysisTemplates?(): ReadonlyMap<string, AnalysisTemplate>;
  /** RolloutApprovals naming the Rollout (absent: approvals are not watched). */
  approvalsOf?(rollout: Rollout): RolloutApproval[];
  /** The traffic routers' objects (absent: traffic routing is not watched). */
  readonly traffic?: TrafficObjectCache;
  /** What the Rollout's workloadRef names (undefined: it has none; absent: not watched). */
  workloadOf?(rollout: Rollout): WorkloadReading | undefined;
}

export type { EventSink, PlannedEvent };

/** Beside the caches and clock: where the writes go (api, events, onEvent; rollout-writes.ts). */
export interface RolloutReconcilerDeps extends WriteTarget {
  readonly cache: RolloutCache;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onPhase?: (rollout: Rollout) => void;
  readonly onDeleted?: (key: Key) => void;
  /** The planner; tests swap in a faulty one. Default: the real `plan`. */
  readonly planner?: (o: Observed) => Plan;
  readonly stormMetrics?: WriteStormMetrics;
  /** Keeps from the planner the RolloutApprovals nothing vouches for (identity-policy.ts) and
   *  answers them. Absent: all are judged. */
  readonly screenApprovals?: (
    requests: readonly RolloutApproval[],
    now: number,
  ) => { readonly admitted: readonly RolloutApproval[]; readonly writes: readonly Write[] };
  /** The cluster-wide mapping of people to identities (--approval-people). */
  readonly approvalPeople?: readonly Person[];
  /** --instance-id: whose marks a start-up sweep may release. */
  readonly instanceId?: string;
  /** --api-group=argoproj.io: Argo's Rollouts served in place (Observed.inPlaceArgo). */
  readonly inPlaceArgo?: boolean;
  /** With inPlaceArgo: Argo's own controller's Lease as last seen (Observed.argoController). */
  readonly argoController?: () => ArgoControllerLease | undefined;
}

/** What one pass read, for its writes. */
interface ShellPass {
  readonly rollout: Rollout;
  readonly key: Key;
  readonly replicaSets: readonly ReplicaSet[];
  /** The Services the pass observed, by name. */
  readonly services: ReadonlyMap<string, Service>;
  readonly traffic: TrafficView | undefined;
  readonly now: number;
  readonly workload: ObservedWorkload | undefined;
}

/** A cache that has not yet seen our own last status write would plan the same step twice. */
const STALE_CACHE_REQUEUE_MS = 100;
/** How soon a Rollout whose workloadRef kind is still being listed looks again. */
const WORKLOAD_SYNC_REQUEUE_MS = 1000;

export class RolloutReconciler implements Reconciler {
  readonly #deps: RolloutReconcilerDeps;
  /** Our status writes, until the cache shows them (the version written is kept). */
  readonly #statusWrites: Expectations<string>;
  /** Our ReplicaSet applies, by ReplicaSet key, until the cache shows them. */
  readonly #replicaSetWrites: Expectations<string>;
  /** Services we pinned: a pass on a cache that has not seen the write would pin them again. */
  readonly #serviceWrites: Expectations<string>;
  /** Deleted Rollouts whose marked objects are still to be given back. */
  readonly #releases: RolloutReleases;
  /** workloadRef Deployments we scaled, likewise (the scale-down and its event, twice). */
  readonly #workloadWrites: Expectations<string>;
  /** Backs off a Rollout whose status is rewritten without progress (a planner bug). */
  readonly #storms = new WriteStormGuard();

  constructor(deps: RolloutReconcilerDeps) {
    this.#deps = deps;
    this.#statusWrites = new Expectations(deps.clock);
    this.#replicaSetWrites = new Expectations(deps.clock);
    this.#serviceWrites = new Expectations(deps.clock);
    this.#workloadWrites = new Expectations(deps.clock);
    this.#releases = new RolloutReleases({
      cache: deps.cache,
      api: deps.api,
      log: deps.log,
      ...(deps.instanceId === undefined ? {} : { instanceId: deps.instanceId }),
    });
  }

  /** The Rollout informer saw this Rollout deleted (`last`: its final state): its next pass
   *  gives back what it marked (deletion.ts). */
  rolloutDeleted(key: Key, last?: Rollout): void {
    this.#releases.deleted(key, last);
  }

  /** Rollouts that are gone but left this instance's marks behind (deletion.ts): for a full
   *  re-queue, beside the cached Rollouts' keys. */
  goneRolloutKeys(): Key[] {
    return this.#releases.goneKeys();
  }

  async reconcile(key: Key): Promise<Result> {
    const { cache, clock } = this.#deps;
    const rollout = cache.rollout(key);
    if (rollout === undefined) {
      this.#statusWrites.forget(key);
      this.#storms.forget(key);
      this.#replicaSetWrites.forgetWhere((rsKey) => rsKey.startsWith(`${key}-`));
      this.#deps.onDeleted?.(key);
      // Only one this controller saw deleted (or found gone with its own marks): a key it merely
      // does not cache may be another controller instance's Rollout (--instance-id).
      await this.#releases.release(key);
      return {};
    }
    // A deletion our finalizer holds, or the finalizer itself: nothing else this pass.
    const restore = await restoreWorkload(rollout, this.#deps);
    if (restore.stop) {
      return restore.requeueAfterMs === undefined ? {} : { requeueAfterMs: restore.requeueAfterMs };
    }
    if (this.#statusWrites.stale(key, rollout.metadata.resourceVersion)) {
      return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    }
    const replicaSets = cache.replicaSetsOf(rollout);
    const unclaimed = cache.unclaimedReplicaSetsOf?.(rollout) ?? [];
    // Same for ReplicaSets we scaled or adopted: a stale one would be written twice.
    for (const rs of [...replicaSets, ...unclaimed]) {
      const rsKey = `${rs.metadata?.namespace}/${rs.metadata?.name}`;
      if (this.#replicaSetWrites.stale(rsKey, rs.metadata?.resourceVersion)) {
        return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
      }
    }
    const services = new Map<string, Service>();
    for (const { name } of servicesOf(rollout)) {
      const svc = cache.service(rollout.metadata.namespace ?? '', name);
      if (svc !== undefined) services.set(name, svc);
    }
    // Ones it marked but no longer names (a strategy switched, a Service renamed): released.
    for (const svc of cache.servicesManagedBy?.(key) ?? []) {
      const name = svc.metadata?.name ?? '';
      if (!services.has(name)) services.set(name, svc);
    }
    for (const svc of services.values()) {
      const svcKey = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      if (this.#serviceWrites.stale(svcKey, svc.metadata?.resourceVersion)) {
        return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
      }
    }
    const workload = cache.workloadOf?.(rollout);
    // Its kind's cache is still filling (not found is not unread): the sync wakes this Rollout;
    // the look a moment later finds the cache failing to fill, if it does.
    if (workload === 'syncing') return { requeueAfterMs: WORKLOAD_SYNC_REQUEUE_MS };
    const referent = workload?.object?.metadata;
    if (
      this.#workloadWrites.stale(
        `${referent?.namespace}/${referent?.name}`,
        referent?.resourceVersion,
      )
    ) {
      return { requeueAfterMs: STALE_CACHE_REQUEUE_MS };
    }
    const now = clock.now();
    const planner = this.#deps.planner ?? plan;
    // The routers read the Rollout its referent makes (the template's hash); none if unresolved.
    const resolved = resolveWorkload(rollout, workload);
    const traffic =
      cache.traffic === undefined || !resolved.ok
        ? undefined
        : observeTraffic(resolved.rollout, cache.traffic, replicaSets);
    const requests = cache.approvalsOf?.(rollout) ?? [];
    const screened = this.#deps.screenApprovals?.(requests, now) ?? {
      admitted: requests,
      writes: [],
    };
    const argoController = this.#deps.argoController?.();
    const observed: Observed = {
      rollout,
      replicaSets,
      ...(unclaimed.length === 0 ? {} : { unclaimedReplicaSets: unclaimed }),
      pods: cache.podsOf(replicaSets),
      services,
      analysisRuns: cache.analysisRunsOf?.(rollout) ?? [],
      analysisTemplates: cache.analysisTemplates?.(rollout.metadata.namespace ?? ''),
      clusterAnalysisTemplates: cache.clusterAnalysisTemplates?.(),
      approvals: screened.admitted,
      approvalPeople: this.#deps.approvalPeople ?? [],
      ...(traffic === undefined ? {} : { traffic: traffic.observation }),
      ...(workload === undefined ? {} : { workload }),
      ...(this.#deps.inPlaceArgo === true ? { inPlaceArgo: true } : {}),
      ...(argoController === undefined ? {} : { argoController }),
      now,
    };
    const result = planner(observed);
    const planned = [...result.writes, ...screened.writes];
    this.#deps.log.debug('pass planned', passFields(key, planned, result.requeueAfterMs));
    const pass = {
      rollout,
      key,
      replicaSets: [...replicaSets, ...unclaimed],
      services,
      traffic,
      now,
      workload,
    };
    const applied = await this.#applyPlan(pass, planned);
    if (applied.refusal !== undefined) {
      // Plan again knowing the refusal: the Rollout says why it cannot move; then back off.
      await this.#applyPlan(pass, planner({ ...observed, refusal: applied.refusal }).writes);
      // Refused passes never end well: the metrics must still see the Rollout say so.
      this.#deps.onPhase?.(rollout);
      throw new RefusedWriteError(applied.refusal);
    }
    this.#deps.onPhase?.(rollout);
    if (applied.backedOffMs !== undefined) return { requeueAfterMs: applied.backedOffMs };
    return result.requeueAfterMs === undefined ? {} : { requeueAfterMs: result.requeueAfterMs };
  }

  /** Makes the writes in order; stops at a refused ReplicaSet write or a held-back status. */
  async #applyPlan(
    pass: ShellPass,
    writes: readonly Write[],
  ): Promise<{ readonly backedOffMs?: number; readonly refusal?: Refusal }> {
    const { rollout, key, replicaSets, now } = pass;
    const readVersion = rollout.metadata.resourceVersion ?? '';
    for (const write of writes) {
      if (write.kind === 'applyStatus') {
        const backedOffMs = this.#stormCheck(rollout, key, write.status, now);
        // The events planned after a status write describe it: they are held back with it.
        if (backedOffMs !== undefined) return { backedOffMs };
      }
      let written: string | undefined;
      try {
        written = await makeWrite(this.#deps, rollout, write, pass.traffic);
      } catch (err) {
        const refusal = refusalOf(write, err);
        if (refusal === undefined) throw err;
        return { refusal };
      }
      if (write.kind === 'applyReplicaSet' || write.kind === 'adoptReplicaSet')
        this.#noteReplicaSetWrite(replicaSets, write.body, written);
      if (write.kind === 'applyService') this.#noteServiceWrite(pass.services, write.body, written);
      if (write.kind === 'scaleWorkload') this.#noteWorkloadWrite(pass.workload, written);
      if (write.kind === 'applyStatus') this.#storms.written(key, write.status, now);
      if (write.kind === 'applyStatus' && written !== undefined && written !== readVersion) {
        this.#statusWrites.expect(key, [readVersion], written);
      }
    }
    return {};
  }

  /** Undefined: write the status; else the write-storm guard holds it back for that long. */
  #stormCheck(rollout: Rollout, key: Key, status: RolloutStatus, now: number): number | undefined {
    const decision = this.#storms.decide(key, status, now);
    if (decision.kind === 'write') return undefined;
    this.#deps.stormMetrics?.writeSuppressed();
    if (decision.started !== undefined) {
      const message = stormMessage(decision.started);
      this.#deps.stormMetrics?.stormStarted();
      this.#deps.log.warn('status write storm: backing off', { rollout: key, message });
      this.#deps.events.event(rollout, 'Warning', Reason.StatusWriteStorm, message);
    }
    return decision.retryAfterMs;
  }

  #noteServiceWrite(observed: ReadonlyMap<string, Service>, body: Service, written?: string): void {
    const name = body.metadata?.name ?? '';
    const before = observed.get(name)?.metadata?.resourceVersion;
    if (before !== undefined && written !== undefined && written !== before) {
      this.#serviceWrites.expect(`${body.metadata?.namespace}/${name}`, [before], written);
    }
  }

  #noteWorkloadWrite(observed: ObservedWorkload | undefined, written?: string): void {
    const meta = observed?.object?.metadata;
    const before = meta?.resourceVersion;
    if (before !== undefined && written !== undefined && written !== before) {
      this.#workloadWrites.expect(`${meta?.namespace}/${meta?.name}`, [before], written);
    }
  }

  #noteReplicaSetWrite(observed: readonly ReplicaSet[], body: ReplicaSet, written?: string): void {
    const name = body.metadata?.name;
    const before = observed.find((rs) => rs.metadata?.name === name)?.metadata?.resourceVersion;
    if (before !== undefined && written !== undefined && written !== before) {
      this.#replicaSetWrites.expect(`${body.metadata?.namespace}/${name}`, [before], written);
    }
  }
}
