/**
 * The few object fields src/kube reads. Structural and minimal, so raw JSON from the API server
 * and client-node's typed models (`V1ReplicaSet`, …) both fit.
 */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly managedFields?: readonly unknown[];
}

export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's key). */
export type ObjectKey = string;
export type NamespacedKey = `${string}/${string}`;

export function objectKey(obj: KubeObject): ObjectKey {
  const m = obj.metadata;
  const name = m?.name ?? '';
  return m?.namespace ? `${m.namespace}/${name}` : name;
}

/** The key of an object of a namespaced kind (a Rollout, an AnalysisRun), typed as such. */
export function namespacedKey(obj: KubeObject): NamespacedKey {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** Splits a key from `objectKey` back into namespace (undefined if cluster-scoped) and name. */
export function splitKey(key: ObjectKey): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  return i < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * A copy without `metadata.managedFields`: the informer's default transform. Managed fields are
 * often a third of an object's size and nothing in the controller reads them from the cache.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
