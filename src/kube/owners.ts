/**
 * Owner mapping (controller-runtime's `EnqueueRequestForOwner`): the key of the object that
 * controls a child, matched on group and kind, never version (a ReplicaSet owned through
 * `stepwise.dev/v1alpha1` still maps after a move to v1beta1). Pure.
 */
import type { KubeObject, NamespacedKey, OwnerReference } from './objects.ts';
import { parseApiVersion } from './resources.ts';
import type { IndexFunc } from './store.ts';

export interface GroupKind {
  /** '' for the core group. */
  readonly group: string;
  readonly kind: string;
}

/** The reference with `controller: true` matching `owner`, if any. */
function controllerRef(obj: KubeObject, owner: GroupKind): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find(
    (r) =>
      r.controller === true &&
      r.kind === owner.kind &&
      parseApiVersion(r.apiVersion).group === owner.group,
  );
}

/**
 * `namespace/name` of the object's controller of type `owner`, or undefined. Owners live in the
 * child's namespace (cross-namespace owner references are not allowed), so a cluster-scoped
 * child maps to nothing.
 */
export function ownerKey(obj: KubeObject, owner: GroupKind): NamespacedKey | undefined {
  const ns = obj.metadata?.namespace;
  if (!ns) return undefined;
  const ref = controllerRef(obj, owner);
  return ref ? `${ns}/${ref.name}` : undefined;
}

/** An informer index of children by their controller's key (use with `byIndex`). */
export function ownerIndex(owner: GroupKind): IndexFunc<KubeObject> {
  return (obj) => {
    const key = ownerKey(obj, owner);
    return key ? [key] : [];
  };
}

/**
 * Keys to enqueue for a child's change: its controller before and after (an update can move a
 * child from one owner to another, and both must look again), without duplicates.
 */
export function ownerKeysForUpdate(
  oldObj: KubeObject | undefined,
  newObj: KubeObject | undefined,
  owner: GroupKind,
): NamespacedKey[] {
  const keys = new Set<NamespacedKey>();
  for (const o of [oldObj, newObj]) {
    const k = o && ownerKey(o, owner);
    if (k) keys.add(k);
  }
  return [...keys];
}
