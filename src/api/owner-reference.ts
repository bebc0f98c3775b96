/**
 * The one builder of the ownerReference we put on every object we create (ReplicaSets,
 * AnalysisRuns, generated traffic objects, analysis Jobs): the owner is its controller, and the
 * garbage collector deletes the object with it (`blockOwnerDeletion`, as Deployments do for
 * their ReplicaSets). Key order is fixed, so a body compares equal to the one it replaces.
 */

/** What an owner must say about itself: its kind, and the name and uid of this instance. */
export interface Owner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly uid?: string };
}

export interface ControllerOwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: true;
  readonly blockOwnerDeletion: true;
}

/** A missing name or uid is written empty: the API server refuses it, loudly, at the write. */
export function controllerOwnerReference(owner: Owner): ControllerOwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
