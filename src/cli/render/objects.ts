/**
 * The shapes the renderers read: the few fields of ReplicaSets and Pods they need. Objects from
 * the client's typed lists (timestamps as Date) and from raw watch events (timestamps as
 * strings) both fit.
 */
export type Timestamp = Date | string;

export interface OwnerReferenceLike {
  uid: string;
  kind?: string;
  name?: string;
  controller?: boolean;
}

export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Timestamp;
  deletionTimestamp?: Timestamp;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReferenceLike[];
}

export interface ContainerLike {
  name: string;
  image?: string;
}

export interface ReplicaSetLike {
  metadata?: ObjectMetaLike;
  spec?: { replicas?: number; template?: { spec?: { containers?: ContainerLike[] } } };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

/** The object a Rollout's workloadRef names (Deployment, ReplicaSet, PodTemplate): its template
 *  (`spec.template`, or `template` for a PodTemplate) and, for a Deployment, its replicas. */
export interface WorkloadLike {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaLike;
  spec?: { replicas?: number; template?: PodTemplateLike };
  template?: PodTemplateLike;
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
}

export interface PodTemplateLike {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { containers?: ContainerLike[]; [k: string]: unknown };
}

export interface ContainerStatusLike {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string };
    running?: object;
    terminated?: { reason?: string; exitCode?: number; signal?: number };
  };
}

export interface PodLike {
  metadata?: ObjectMetaLike;
  spec?: { containers?: ContainerLike[] };
  status?: {
    phase?: string;
    reason?: string;
    containerStatuses?: ContainerStatusLike[];
    initContainerStatuses?: ContainerStatusLike[];
  };
}

export const toTime = (t: Timestamp | undefined): number | undefined => {
  if (t === undefined) return undefined;
  const ms = (t instanceof Date ? t : new Date(t)).getTime();
  return Number.isNaN(ms) ? undefined : ms;
};
