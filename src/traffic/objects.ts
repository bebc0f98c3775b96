/** Small helpers the routers share: metadata for the bodies they build, and claims. */
import {
  API_VERSION,
  GITOPS_TRACKING_KEYS,
  MANAGED_BY_ANNOTATION,
  MANAGED_ROUTING_ANNOTATION,
  managedMark,
  markedBy,
  ROLLOUT_KIND,
  routingRecord,
} from '../api/index.ts';
import type { Rollout } from '../api/index.ts';
import { controllerOwnerReference } from '../api/owner-reference.ts';
import type { KubeObject, ObjectMeta } from '../kube/objects.ts';

/** Metadata for an apply to a user's object: name, namespace, our mark and the routing that
 *  hands it back (every apply must carry them: one that leaves them out removes them). */
export function userObjectMeta(live: KubeObject, rollout: Rollout): ObjectMeta {
  return {
    name: live.metadata?.name,
    namespace: live.metadata?.namespace,
    annotations: {
      ...managedMark(rollout),
      [MANAGED_ROUTING_ANNOTATION]: routingRecord(rollout),
    },
  };
}

/** Metadata for an object we generate: owned by the Rollout (controller), labels and
 *  annotations copied without GitOps tracking keys. */
export function generatedMeta(
  rollout: Rollout,
  name: string,
  namespace: string,
  from?: ObjectMeta,
  annotations: Readonly<Record<string, string>> = {},
): ObjectMeta {
  const strip = (m: Readonly<Record<string, string>> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !GITOPS_TRACKING_KEYS.includes(k)));
  const labels = strip(from?.labels);
  return {
    name,
    namespace,
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    annotations: {
      ...strip(from?.annotations),
      ...annotations,
      [MANAGED_BY_ANNOTATION]: rollout.metadata.name ?? '',
    },
    ownerReferences: [
      controllerOwnerReference({
        apiVersion: API_VERSION,
        kind: ROLLOUT_KIND,
        metadata: rollout.metadata,
      }),
    ],
  };
}

/** A problem when another Rollout's managed-by annotation is on the object, else undefined. */
export function claimedByOther(
  obj: KubeObject,
  rollout: Rollout,
  what: string,
): string | undefined {
  const owner = obj.metadata?.annotations?.[MANAGED_BY_ANNOTATION];
  if (owner === undefined || owner === rollout.metadata.name) return undefined;
  return `${what} is managed by Rollout "${owner}"`;
}

/** `kind "namespace/name"` for messages. */
export function describe(kind: string, namespace: string, name: string): string {
  return `${kind} "${namespace}/${name}"`;
}

/** Deep equality with object keys in any order (the API server sorts them); undefined fields
 *  count as absent. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => sameJson(x, b[i]))
    );
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const fa = a as Record<string, unknown>;
    const fb = b as Record<string, unknown>;
    const ka = Object.keys(fa).filter((k) => fa[k] !== undefined);
    return (
      ka.length === Object.keys(fb).filter((k) => fb[k] !== undefined).length &&
      ka.every((k) => sameJson(fa[k], fb[k]))
    );
  }
  return a === b;
}

/** Whether the Rollout is the object's controller owner (an object we generated). */
export function controlledBy(obj: KubeObject, rollout: Rollout): boolean {
  const uid = rollout.metadata.uid;
  return (
    uid !== undefined &&
    (obj.metadata?.ownerReferences ?? []).some((o) => o.controller === true && o.uid === uid)
  );
}

/** Carries what userObjectMeta writes for the Rollout (claimedByOther has ruled out another
 *  Rollout's mark): else one apply brings it, and the same weights, up to date. */
export const marked = (o: KubeObject, rollout: Rollout): boolean =>
  markedBy(o, rollout) &&
  o.metadata?.annotations?.[MANAGED_ROUTING_ANNOTATION] === routingRecord(rollout);
