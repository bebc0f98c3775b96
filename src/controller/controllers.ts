/**
 * The controllers this binary runs, each declared once: its queue, its reconciler, how many
 * workers, what wakes it (watches.ts), every key it owns, and what its passes report.
 * AnalysisRuns have their own queue and workers: a slow provider never delays a Rollout.
 */
import { ARGO_GROUP } from '../api/index.ts';
import type { AnalysisRun, Person, Rollout } from '../api/index.ts';
import { namespacedKey, RateLimitingQueue, splitKey } from '../kube/index.ts';
import type { Clock, EventHandler, KubeApi, KubeEventRecorder, Logger } from '../kube/index.ts';
import { argoControllerRunning } from '../rollout/index.ts';
import type { ArgoControllerLease } from '../rollout/index.ts';
import { analysisProviders, conditionEvaluator } from './analysis-wiring.ts';
import { CachedSecretSource } from './analysis-sources.ts';
import { AnalysisRunReconciler } from './analysisrun-reconciler.ts';
import { rolloutCache } from './caches.ts';
import type { ControllerConfig } from './config.ts';
import type { ControllerInformers } from './informers.ts';
import type { Controller } from './manager.ts';
import { screenApprovals } from './identity-policy.ts';
import type { IdentityPolicyCheck } from './identity-policy.ts';
import type { ControllerMetrics } from './metrics.ts';
import type { Key } from './reconciler.ts';
import { RolloutReconciler } from './rollout-reconciler.ts';
import type { PlannedEvent } from './rollout-reconciler.ts';
import type { TrafficInformers } from './traffic-wiring.ts';
import type { WorkloadInformers } from './workload-wiring.ts';
import { analysisRunWatches, rolloutWatches } from './watches.ts';
import type { ArgoLeaseSource } from './watches.ts';

export interface ControllerDeps {
  readonly config: ControllerConfig;
  readonly api: KubeApi;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: ControllerMetrics;
  readonly informers: ControllerInformers;
  readonly traffic: TrafficInformers;
  /** The workloadRef informers, started as Rollouts reference their kinds (absent: not
   *  watched). */
  readonly workloads?: WorkloadInformers;
  readonly events: KubeEventRecorder;
  /** Whether RolloutApprovals can be trusted (absent: they are, as in unit tests). */
  readonly identityPolicy?: IdentityPolicyCheck;
  /** --approval-people: approvals count people. */
  readonly approvalPeople?: readonly Person[];
  /** Serving argoproj.io in place: Argo's own controller's Lease (absent: not watched). */
  readonly argoPresence?: ArgoPresence;
}

/** What the controllers read of argo-presence.ts. */
export interface ArgoPresence extends ArgoLeaseSource {
  sighting(): ArgoControllerLease | undefined;
}

export function rolloutController(
  d: ControllerDeps,
  onEvent: (rollout: Rollout, e: PlannedEvent) => void,
): Controller {
  const { informers: s, metrics } = d;
  const reconciler = new RolloutReconciler({
    cache: {
      ...rolloutCache(s),
      traffic: d.traffic.cache,
      ...(d.workloads === undefined ? {} : { workloadOf: (r: Rollout) => d.workloads?.observe(r) }),
    },
    api: d.api,
    events: d.events,
    clock: d.clock,
    log: d.log,
    // The cached Rollout: the status this pass's writes left, once the cache has seen them.
    onPhase: (r) => metrics.setRollout(s.rollouts.get(namespacedKey(r)) ?? r),
    onDeleted: (key) => {
      const { namespace = '', name } = splitKey(key);
      metrics.forgetRollout(namespace, name);
    },
    stormMetrics: {
      stormStarted: () => metrics.statusWriteStorms.inc(),
      writeSuppressed: () => metrics.statusWritesSuppressed.inc(),
    },
    onEvent,
    ...(d.identityPolicy === undefined
      ? {}
      : {
          screenApprovals: (requests, now) =>
            screenApprovals(requests, d.identityPolicy?.state() ?? { kind: 'unknown' }, now),
        }),
    ...(d.approvalPeople !== undefined ? { approvalPeople: d.approvalPeople } : {}),
    ...(d.config.instanceId !== undefined ? { instanceId: d.config.instanceId } : {}),
    ...(d.config.apiGroup === ARGO_GROUP ? { inPlaceArgo: true } : {}),
    ...(d.argoPresence === undefined ? {} : { argoController: () => d.argoPresence?.sighting() }),
  });
  // Registered before the watches: the pass the deletion wakes knows it was one.
  s.rollouts.addEventHandler({
    onDelete: (r) => reconciler.rolloutDeleted(namespacedKey(r), r),
  });
  return {
    name: 'rollout',
    queue: new RateLimitingQueue<Key>({ clock: d.clock, metrics: metrics.queue('rollout') }),
    reconciler,
    workers: d.config.workers,
    watches: rolloutWatches(s, d.traffic, d.workloads, d.argoPresence),
    // With the Rollouts that went while this replica was not acting, to give back what they marked.
    keys: () => [...(s.rollouts.keys() as Key[]), ...reconciler.goneRolloutKeys()],
    observe: (seconds, result) => {
      metrics.reconcile.observe({ result }, seconds);
      metrics.controllerReconcile.observe({ controller: 'rollout', result }, seconds);
      if (result === 'error') metrics.reconcileErrors.inc();
    },
  };
}

export function analysisRunController(d: ControllerDeps): Controller {
  const { informers: s, metrics } = d;
  const queue = new RateLimitingQueue<Key>({
    clock: d.clock,
    metrics: metrics.queue('analysisrun'),
  });
  return {
    name: 'analysisrun',
    queue,
    reconciler: new AnalysisRunReconciler({
      cache: { analysisRun: (key) => s.analysisRuns.get(key) },
      api: d.api,
      events: d.events,
      clock: d.clock,
      log: d.log,
      providers: analysisProviders(d.api, d.config.analysisHosts),
      secrets: new CachedSecretSource(d.api, d.clock),
      evaluate: conditionEvaluator(),
      onMeasurement: (provider, phase) => metrics.analysisMeasurements.inc({ provider, phase }),
      wake: (key) => queue.add(key),
      ...(d.argoPresence === undefined
        ? {}
        : { standAside: (now) => argoControllerRunning(d.argoPresence?.sighting(), now) }),
    }),
    workers: d.config.analysisWorkers,
    watches: analysisRunWatches(s, d.argoPresence),
    keys: () => s.analysisRuns.keys() as Key[],
    observe: (seconds, result) => {
      metrics.controllerReconcile.observe({ controller: 'analysisrun', result }, seconds);
    },
  };
}

/**
 * Argo's analysis_run_* series follow the AnalysisRun cache, every run as it is, from the moment
 * this replica leads (registering replays the cache). Only the leader serves them, as it alone
 * serves rollout_info (set by its passes): a standby's copy would count each run twice in a sum
 * over both replicas.
 */
export function followAnalysisRunMetrics(
  runs: { addEventHandler(h: EventHandler<AnalysisRun>): unknown },
  metrics: ControllerMetrics,
): void {
  runs.addEventHandler({
    onAdd: (run) => metrics.setAnalysisRun(run),
    onUpdate: (_, run) => metrics.setAnalysisRun(run),
    onDelete: (run) =>
      metrics.forgetAnalysisRun(run.metadata.namespace ?? '', run.metadata.name ?? ''),
  });
}
