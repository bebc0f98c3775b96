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
import { namespacedKey, ownerKey } from '../kube/index.ts';
import type { Cache, GroupKind, KubeObject } from '../kube/index.ts';
import {
  BY_SERVICE,
  BY_TEMPLATE,
  BY_TRAFFIC_OBJECT,
  ROLLOUT,
  rolloutOfApproval,
  templateRef,
} from './caches.ts';
import type { Stores } from './caches.ts';
import type { Key } from './reconciler.ts';
import type { TrafficInformers } from './traffic-wiring.ts';
import { added, anyChange, generationChanged, phaseChanged, watch, watchChanges } from './watch.ts';
import type { EventSource, Watch } from './watch.ts';

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

/** The Rollout controller's table. */
export function rolloutWatches(
  s: WatchedInformers,
  traffic: Pick<TrafficInformers, 'onChange'>,
): readonly Watch[] {
  return [
    watch('Rollout', s.rollouts, anyChange, (r) => [namespacedKey(r)], 'itself'),
    watch('ReplicaSet', s.replicaSets, anyChange, ownerRollout, 'its owner Rollout'),
    watch('Pod', s.pods, anyChange, (p) => rolloutOfPod(s, p), 'its ReplicaSet’s Rollout'),
    watch('Service', s.services, anyChange, (v) => rolloutsOfService(s, v), 'Rollouts naming it'),
    watchChanges(
      'traffic object',
      (onChange) => traffic.onChange(onChange),
      (objectKey) => rolloutsOfTrafficObject(s, objectKey),
      'Rollouts routing through it',
    ),
    watch(
      'AnalysisTemplate',
      s.analysisTemplates,
      anyChange,
      (t) => rolloutsOfTemplate(s, t, false),
      'Rollouts naming it',
    ),
    watch(
      'ClusterAnalysisTemplate',
      s.clusterAnalysisTemplates,
      anyChange,
      (t) => rolloutsOfTemplate(s, t, true),
      'Rollouts naming it',
    ),
    watch('AnalysisRun', s.analysisRuns, phaseChanged, ownerRollout, 'its owner Rollout'),
    watch(
      'RolloutApproval',
      s.approvals,
      added,
      (a) => [rolloutOfApproval(a)],
      'the Rollout it names',
    ),
  ];
}

/** The AnalysisRun controller's table. */
export function analysisRunWatches(s: WatchedInformers): readonly Watch[] {
  return [
    // Our own status writes need no pass (the next one is already scheduled); a terminate does.
    watch('AnalysisRun', s.analysisRuns, generationChanged, (r) => [namespacedKey(r)], 'itself'),
    watch('Job', s.jobs, anyChange, (j) => [ownerKey(j, ANALYSIS_RUN)], 'its owner AnalysisRun'),
  ];
}

/** The `namespace/name` of the Rollout that controls `obj` (group and kind, any version). */
export function ownerRollout(obj: KubeObject): (Key | undefined)[] {
  return [ownerKey(obj, ROLLOUT)];
}

/** A pod's Rollout: the owner of the ReplicaSet that controls it. */
export function rolloutOfPod(stores: Stores, pod: Pod): Key[] {
  const rsKey = ownerKey(pod, REPLICA_SET);
  const rs = rsKey === undefined ? undefined : stores.replicaSets.get(rsKey);
  const key = rs === undefined ? undefined : ownerKey(rs, ROLLOUT);
  return key === undefined ? [] : [key];
}

/** The Rollouts that name a Service in any role. */
export function rolloutsOfService(stores: Stores, svc: Service): Key[] {
  return rolloutsBy(stores, BY_SERVICE, `${svc.metadata?.namespace}/${svc.metadata?.name}`);
}

/** The Rollouts whose routing names a changed traffic object (its src/traffic refKey). */
function rolloutsOfTrafficObject(stores: Stores, objectKey: string): Key[] {
  return rolloutsBy(stores, BY_TRAFFIC_OBJECT, objectKey);
}

/** The Rollouts that name a changed template: one that was missing may now let them start. */
export function rolloutsOfTemplate(
  stores: Stores,
  template: AnalysisTemplate,
  clusterScoped: boolean,
): Key[] {
  return rolloutsBy(stores, BY_TEMPLATE, templateRef(template, clusterScoped));
}

function rolloutsBy(stores: Stores, index: string, value: string): Key[] {
  return stores.rollouts
    .byIndex(index, value)
    .map((r) => `${r.metadata.namespace}/${r.metadata.name}` as Key);
}
