/**
 * The reconciler's read side over the informers' stores: the indexes it reads by, the slim forms
 * pods and Services are kept in, and the RolloutCache over them. Which change wakes which
 * Rollout is watches.ts.
 */
import {
  GROUP,
  MANAGED_BY_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  ROLLOUT_KIND,
} from '../api/index.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  ObjectMeta,
  Pod,
  ReplicaSet,
  Rollout,
  RolloutApproval,
  Service,
} from '../api/index.ts';
import { selectorMatches } from '../api/selector.ts';
import { ownerIndex, ownerKey } from '../kube/index.ts';
import type { Cache, GroupKind, IndexFunc } from '../kube/index.ts';
import { rolloutAnalyses } from '../api/rollout-rules.ts';
import { servicesOf } from '../rollout/index.ts';
import { trafficRefKeys } from '../traffic/index.ts';
import type { Key } from './reconciler.ts';
import type { RolloutCache } from './rollout-reconciler.ts';
import { workloadKey, workloadKindKey } from './workload-wiring.ts';

const BY_OWNER = 'byOwner';
export const BY_SERVICE = 'byService';
/** Services by `namespace/rollout` of the Rollout that marked them managed. */
export const BY_MANAGER = 'byManager';
/** Rollouts by the traffic objects their routing names (src/traffic refKey). */
export const BY_TRAFFIC_OBJECT = 'byTrafficObject';
const BY_HASH = 'byHash';
export const BY_TEMPLATE = 'byTemplate';
/** Rollouts by the workload their workloadRef names, and by its kind (workload-wiring.ts). */
export const BY_WORKLOAD = 'byWorkload';
const BY_NAMESPACE = 'byNamespace';
/** RolloutApprovals by the `namespace/name` of the Rollout they name. */
const BY_ROLLOUT = 'byRollout';
/** The index value prefix of a ClusterAnalysisTemplate reference (namespaces cannot contain ':'). */
const CLUSTER_SCOPE = 'cluster:';

export const ROLLOUT: GroupKind = { group: GROUP, kind: ROLLOUT_KIND };

/** ReplicaSets no Stepwise Rollout controls (Argo's, orphaned or not), by namespace. */
const UNCLAIMED = 'unclaimed';
/** Rollouts by namespace, for the ReplicaSets their selectors may adopt. */
export const BY_ROLLOUT_NAMESPACE = 'byRolloutNamespace';

/** ReplicaSets by the `namespace/name` of the Rollout that controls them. */
export const replicaSetIndexers: Readonly<Record<string, IndexFunc<ReplicaSet>>> = {
  [BY_OWNER]: ownerIndex(ROLLOUT),
  [UNCLAIMED]: (rs) =>
    ownerKey(rs, ROLLOUT) === undefined && rs.metadata?.namespace ? [rs.metadata.namespace] : [],
};

/** Unclaimed ReplicaSets of the Rollout's namespace whose labels its selector matches. */
export function unclaimedBy(replicaSets: Cache<ReplicaSet>, rollout: Rollout): ReplicaSet[] {
  return replicaSets.byIndex(UNCLAIMED, rollout.metadata.namespace ?? '').filter((rs) => {
    // A workloadRef Rollout without a selector of its own adopts nothing: its selector is the
    // referent's, which this index does not resolve.
    const selector = rollout.spec.selector;
    return selector !== undefined && selectorMatches(selector, rs.metadata?.labels ?? {});
  });
}

/** Pods by `namespace/hash`: a Rollout's pods are those of its ReplicaSets' hashes. */
export const podIndexers: Readonly<Record<string, IndexFunc<Pod>>> = {
  [BY_HASH]: (pod) => {
    const hash = pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
    return hash && pod.metadata?.namespace ? [`${pod.metadata.namespace}/${hash}`] : [];
  },
};

/** Rollouts by `namespace/service` they name, so a Service change wakes its Rollouts. */
export const rolloutIndexers: Readonly<Record<string, IndexFunc<Rollout>>> = {
  [BY_SERVICE]: (r) => servicesOf(r).map((s) => `${r.metadata?.namespace ?? ''}/${s.name}`),
  [BY_TEMPLATE]: (r) => templateRefs(r),
  [BY_TRAFFIC_OBJECT]: (r) => trafficRefKeys(r),
  [BY_ROLLOUT_NAMESPACE]: (r) => [r.metadata?.namespace ?? ''],
  [BY_WORKLOAD]: (r) => {
    const ref = r.spec?.workloadRef;
    if (ref === undefined) return [];
    const ns = r.metadata?.namespace ?? '';
    return [workloadKey(ref.kind, ns, ref.name), workloadKindKey(ref.kind)];
  },
};

/** `namespace/name` of each AnalysisTemplate a Rollout names, `cluster:name` of each cluster one. */
function templateRefs(r: Rollout): string[] {
  const ns = r.metadata?.namespace ?? '';
  const refs = rolloutAnalyses(r).flatMap(([, a]) => a.templates);
  return [
    ...new Set(
      refs.map((t) =>
        t.clusterScope === true ? `${CLUSTER_SCOPE}${t.templateName}` : `${ns}/${t.templateName}`,
      ),
    ),
  ];
}

/** Services a Rollout marked as its own, so one it no longer names is still found and released. */
export const serviceIndexers: Readonly<Record<string, IndexFunc<Service>>> = {
  [BY_MANAGER]: (s) => {
    const manager = s.metadata?.annotations?.[MANAGED_BY_ANNOTATION];
    return manager === undefined ? [] : [`${s.metadata?.namespace ?? ''}/${manager}`];
  },
};

/** (Cluster)AnalysisTemplates by namespace ('' for cluster-scoped ones). */
export const templateIndexers: Readonly<Record<string, IndexFunc<AnalysisTemplate>>> = {
  [BY_NAMESPACE]: (t) => [t.metadata?.namespace ?? ''],
};

/** A template's value in the BY_TEMPLATE index. */
export function templateRef(template: AnalysisTemplate, clusterScoped: boolean): string {
  const name = template.metadata?.name ?? '';
  return clusterScoped ? `${CLUSTER_SCOPE}${name}` : `${template.metadata?.namespace}/${name}`;
}

/** AnalysisRuns by the `namespace/name` of the Rollout that controls them. */
export const analysisRunIndexers: Readonly<Record<string, IndexFunc<AnalysisRun>>> = {
  [BY_OWNER]: ownerIndex(ROLLOUT),
};

export const approvalIndexers: Readonly<Record<string, IndexFunc<RolloutApproval>>> = {
  [BY_ROLLOUT]: (a) => [rolloutOfApproval(a)],
};

/** The Rollout a RolloutApproval names. */
export function rolloutOfApproval(a: RolloutApproval): Key {
  return `${a.metadata?.namespace ?? ''}/${a.spec?.rolloutName ?? ''}`;
}

export interface Stores {
  readonly rollouts: Cache<Rollout>;
  readonly replicaSets: Cache<ReplicaSet>;
  readonly pods: Cache<Pod>;
  readonly services: Cache<Service>;
  /** Absent: analysis is not watched. */
  readonly analysisRuns?: Cache<AnalysisRun>;
  readonly analysisTemplates?: Cache<AnalysisTemplate>;
  readonly clusterAnalysisTemplates?: Cache<AnalysisTemplate>;
  readonly approvals?: Cache<RolloutApproval>;
}

export function rolloutCache(stores: Stores): RolloutCache {
  return {
    rollout: (key) => stores.rollouts.get(key),
    replicaSetsOf: (rollout) =>
      stores.replicaSets.byIndex(
        BY_OWNER,
        `${rollout.metadata.namespace}/${rollout.metadata.name}`,
      ),
    unclaimedReplicaSetsOf: (rollout) => unclaimedBy(stores.replicaSets, rollout),
    podsOf: (replicaSets) =>
      replicaSets.flatMap((rs) => {
        const hash = rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
        return hash ? stores.pods.byIndex(BY_HASH, `${rs.metadata?.namespace}/${hash}`) : [];
      }),
    service: (namespace, name) => stores.services.get(`${namespace}/${name}`),
    servicesManagedBy: (key) => stores.services.byIndex(BY_MANAGER, key),
    markedServices: () =>
      stores.services.list().filter((s) => s.metadata?.annotations?.[MANAGED_BY_ANNOTATION]),
    ...(stores.analysisRuns === undefined
      ? {}
      : { analysisRunsOf: analysisRunsOf(stores.analysisRuns) }),
    ...(stores.analysisTemplates === undefined
      ? {}
      : { analysisTemplates: templatesIn(stores.analysisTemplates) }),
    ...(stores.clusterAnalysisTemplates === undefined
      ? {}
      : { clusterAnalysisTemplates: () => byName(stores.clusterAnalysisTemplates?.list() ?? []) }),
    ...(stores.approvals === undefined
      ? {}
      : {
          approvalsOf: (rollout: Rollout) =>
            stores.approvals?.byIndex(
              BY_ROLLOUT,
              `${rollout.metadata.namespace}/${rollout.metadata.name}`,
            ) ?? [],
        }),
  };
}

function templatesIn(
  templates: Cache<AnalysisTemplate>,
): (namespace: string) => ReadonlyMap<string, AnalysisTemplate> {
  return (namespace) => byName(templates.byIndex(BY_NAMESPACE, namespace));
}

function byName(templates: readonly AnalysisTemplate[]): ReadonlyMap<string, AnalysisTemplate> {
  return new Map(templates.map((t) => [t.metadata?.name ?? '', t]));
}

function analysisRunsOf(runs: Cache<AnalysisRun>): (rollout: Rollout) => AnalysisRun[] {
  return (rollout) =>
    runs.byIndex(BY_OWNER, `${rollout.metadata.namespace}/${rollout.metadata.name}`);
}

/** The metadata every slimmed object keeps. */
function slimMeta(m: ObjectMeta): ObjectMeta {
  return {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    labels: m.labels,
    annotations: m.annotations,
    ownerReferences: m.ownerReferences,
    creationTimestamp: m.creationTimestamp,
    deletionTimestamp: m.deletionTimestamp,
  };
}

/**
 * What the controller keeps of a pod: identity, labels, annotations, owners and timestamps (for
 * restartAt and role metadata). Spec and status are most of a pod's size and nothing reads them.
 */
export function slimPod(pod: Pod): Pod {
  return { apiVersion: pod.apiVersion, kind: pod.kind, metadata: slimMeta(pod.metadata ?? {}) };
}

/** What the controller keeps of a Service: identity, annotations and the selector it pins. */
export function slimService(svc: Service): Service {
  return {
    apiVersion: svc.apiVersion,
    kind: svc.kind,
    metadata: slimMeta(svc.metadata ?? {}),
    spec: { selector: svc.spec?.selector },
  };
}
