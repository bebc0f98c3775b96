/**
 * What wakes what: for each controller, every informer it watches, which of its events count (a
 * named predicate, src/controller/watch.ts) and which keys such an event wakes. This file is the
 * whole answer to "why did this Rollout (or AnalysisRun) get a pass?". The informers themselves
 * (selectors, slim transforms, indexes) are declared in informers.ts and caches.ts.
 */
import { ANALYSIS_RUN_KIND, GROUP } from '../api/index.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Rollout,
  RolloutApproval,
  Service,
} from '../api/index.ts';
import { selectorMatches } from '../api/selector.ts';
import { namespacedKey, ownerKey } from '../kube/index.ts';
import type { Cache, GroupKind, KubeObject } from '../kube/index.ts';
import {
  BY_ROLLOUT_NAMESPACE,
  BY_SERVICE,
  BY_TEMPLATE,
  BY_TRAFFIC_OBJECT,
  BY_WORKLOAD,
  ROLLOUT,
  rolloutOfApproval,
  templateRef,
} from './caches.ts';
import type { Stores } from './caches.ts';
import type { Key } from './reconciler.ts';
import type { TrafficInformers } from './traffic-wiring.ts';
import type { WorkloadInformers } from './workload-wiring.ts';
import {
  added,
  anyChange,
  generationChanged,
  mapping,
  phaseChanged,
  watch,
  watchChanges,
} from './watch.ts';
import type { EventSource, KeyMapping, Watch } from './watch.ts';

const ANALYSIS_RUN: GroupKind = { group: GROUP, kind: ANALYSIS_RUN_KIND };
const REPLICA_SET: GroupKind = { group: 'apps', kind: 'ReplicaSet' };

type Watched<T extends KubeObject> = Cache<T> & EventSource<T>;

/** The informers the tables watch (ControllerInformers in production; stores in tests). */
export interface WatchedInformers {
  readonly rollouts: Watched<Rollout>;
  readonly replicaSets: Watched<ReplicaSet>;
  readonly pods: Watched<Pod>;
  readonly services: Watched<Service>;
  readonly analysisRuns: Watched<AnalysisRun>;
  readonly analysisTemplates: Watched<AnalysisTemplate>;
  readonly clusterAnalysisTemplates: Watched<AnalysisTemplate>;
  readonly approvals: Watched<RolloutApproval>;
  readonly jobs: Watched<KubeObject>;
}

/** The Rollout controller's table. `workloads`: the lazily started workloadRef informers
 *  (absent: workloadRefs are not watched). */
export function rolloutWatches(
  s: WatchedInformers,
  traffic: Pick<TrafficInformers, 'onChange'>,
  workloads?: Pick<WorkloadInformers, 'onChange'>,
  argo?: ArgoLeaseSource,
): readonly Watch[] {
  const onTrafficChange = (wake: (objectKey: string) => void): void => traffic.onChange(wake);
  const workloadRows =
    workloads === undefined
      ? []
      : [
          watchChanges(
            'workloadRef referent',
            (wake: (key: string) => void) => workloads.onChange(wake),
            referencingWorkload(s),
          ),
        ];
  return [
    watch('Rollout', s.rollouts, anyChange, itself),
    watch('ReplicaSet', s.replicaSets, anyChange, ownerRollout),
    watch('ReplicaSet', s.replicaSets, anyChange, adoptingRollouts(s)),
    watch('Pod', s.pods, anyChange, podsRollout(s)),
    watch('Service', s.services, anyChange, namingService(s)),
    watchChanges('traffic object', onTrafficChange, routingThrough(s)),
    ...workloadRows,
    watch('AnalysisTemplate', s.analysisTemplates, anyChange, namingTemplate(s)),
    watch('ClusterAnalysisTemplate', s.clusterAnalysisTemplates, anyChange, namingTemplate(s)),
    watch('AnalysisRun', s.analysisRuns, phaseChanged, ownerRollout),
    watch('RolloutApproval', s.approvals, added, approvedRollout),
    ...argoLeaseRows(argo, s.rollouts, 'every Rollout'),
  ];
}

/** The AnalysisRun controller's table. */
export function analysisRunWatches(s: WatchedInformers, argo?: ArgoLeaseSource): readonly Watch[] {
  return [
    ...argoLeaseRows(argo, s.analysisRuns, 'every AnalysisRun'),
    // Our own status writes need no pass (the next one is already scheduled); a terminate does.
    watch('AnalysisRun', s.analysisRuns, generationChanged, itself),
    watch('Job', s.jobs, anyChange, ownerRun),
  ];
}

/** Serving argoproj.io in place: Argo's controller's Lease (argo-presence.ts). */
export interface ArgoLeaseSource {
  onHolderChange(listener: () => void): void;
}

/** Argo's controller starting or stopping changes whether anything is served: all look again. */
function argoLeaseRows(
  argo: ArgoLeaseSource | undefined,
  all: Cache<KubeObject>,
  to: string,
): Watch[] {
  if (argo === undefined) return [];
  const subscribe = (wake: (changed: string) => void): void => argo.onHolderChange(() => wake(''));
  return [
    watchChanges(
      "Argo Rollouts' controller Lease holder",
      subscribe,
      mapping(to, () => all.keys() as Key[]),
    ),
  ];
}

export const itself = mapping('itself', (o: KubeObject) => [namespacedKey(o)]);

/** The Rollout that controls the object (group and kind, any version). */
export const ownerRollout = mapping('its owner Rollout', (o: KubeObject) => [ownerKey(o, ROLLOUT)]);

/** The AnalysisRun that controls the object (a provider's Job). */
export const ownerRun = mapping('its owner AnalysisRun', (o: KubeObject) => [
  ownerKey(o, ANALYSIS_RUN),
]);

/** The Rollout a RolloutApproval names. */
export const approvedRollout = mapping('the Rollout it names', (a: RolloutApproval) => [
  rolloutOfApproval(a),
]);

/** A pod's Rollout: the owner of the ReplicaSet that controls it. */
export function podsRollout(stores: Stores): KeyMapping<Pod> {
  return mapping('its ReplicaSet’s Rollout', (pod) => {
    const rsKey = ownerKey(pod, REPLICA_SET);
    const rs = rsKey === undefined ? undefined : stores.replicaSets.get(rsKey);
    return [rs === undefined ? undefined : ownerKey(rs, ROLLOUT)];
  });
}

/** An unclaimed ReplicaSet's Rollouts: those of its namespace whose selector matches it, so an
 *  orphan (Argo's, let go) is adopted as soon as it appears. */
export function adoptingRollouts(stores: Stores): KeyMapping<ReplicaSet> {
  return mapping('Rollouts that may adopt it', (rs) => {
    if (ownerKey(rs, ROLLOUT) !== undefined) return [];
    const labels = rs.metadata?.labels ?? {};
    return stores.rollouts
      .byIndex(BY_ROLLOUT_NAMESPACE, rs.metadata?.namespace ?? '')
      .filter((r) => r.spec.selector !== undefined && selectorMatches(r.spec.selector, labels))
      .map((r) => `${r.metadata.namespace}/${r.metadata.name}` as Key);
  });
}

/** The Rollouts that name a Service in any role. */
export function namingService(stores: Stores): KeyMapping<Service> {
  return mapping('Rollouts naming it', (svc) =>
    rolloutsBy(stores, BY_SERVICE, `${svc.metadata?.namespace}/${svc.metadata?.name}`),
  );
}

/** The Rollouts whose workloadRef names a changed workload (or, once its kind's cache has
 *  synced, every Rollout referencing that kind). */
function referencingWorkload(stores: Stores): KeyMapping<string> {
  return mapping('Rollouts referencing it', (indexValue) =>
    rolloutsBy(stores, BY_WORKLOAD, indexValue),
  );
}

/** The Rollouts whose routing names a changed traffic object (its src/traffic refKey). */
function routingThrough(stores: Stores): KeyMapping<string> {
  return mapping('Rollouts routing through it', (objectKey) =>
    rolloutsBy(stores, BY_TRAFFIC_OBJECT, objectKey),
  );
}

/**
 * The Rollouts that name a changed template: one that was missing may now let them start. A
 * template without a namespace is a ClusterAnalysisTemplate.
 */
export function namingTemplate(stores: Stores): KeyMapping<AnalysisTemplate> {
  return mapping('Rollouts naming it', (t) =>
    rolloutsBy(stores, BY_TEMPLATE, templateRef(t, t.metadata?.namespace === undefined)),
  );
}

function rolloutsBy(stores: Stores, index: string, value: string): Key[] {
  return stores.rollouts
    .byIndex(index, value)
    .map((r) => `${r.metadata.namespace}/${r.metadata.name}` as Key);
}
