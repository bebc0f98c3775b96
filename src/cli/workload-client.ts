/**
 * The plugin's calls on the object a Rollout's workloadRef names (a Deployment, ReplicaSet or
 * PodTemplate): read it, and patch its template under the plugin's field manager (set image,
 * undo).
 */
import { PLUGIN_FIELD_MANAGER } from '../api/keys.ts';
import type { WorkloadRef } from '../api/rollout.ts';
import { collectionPath, CONTENT_TYPE, objectPath, RESOURCES } from './api-paths.ts';
import type { JsonPatchOp } from './client.ts';
import type { WorkloadLike } from './render/objects.ts';
import { objectList, type ObjectList, type Send } from './sender.ts';

export interface WorkloadCalls {
  /** The object a workloadRef names (a Deployment, ReplicaSet or PodTemplate). */
  getWorkload(namespace: string, ref: WorkloadRef): Promise<WorkloadLike>;
  /** It as a list of at most one (by field selector): what a watch on it continues from. */
  listWorkload(namespace: string, ref: WorkloadRef): Promise<ObjectList<WorkloadLike>>;
  /** A JSON patch on it under the plugin's field manager (set image and undo edit its
   *  template: the Rollout has none of its own). */
  patchWorkload(
    namespace: string,
    ref: WorkloadRef,
    patch: readonly JsonPatchOp[],
  ): Promise<WorkloadLike>;
}

export function workloadCalls(send: Send): WorkloadCalls {
  const at = (ref: WorkloadRef, namespace: string) => ({
    verb: 'get' as const,
    resource: workloadPlural(ref),
    namespace,
    name: ref.name,
  });
  return {
    getWorkload: (namespace, ref) =>
      send<WorkloadLike>(at(ref, namespace), {
        method: 'GET',
        path: objectPath(RESOURCES[workloadPlural(ref)], namespace, ref.name),
      }),
    listWorkload: async (namespace, ref) =>
      objectList<WorkloadLike>(
        await send(
          { verb: 'list', resource: workloadPlural(ref), namespace },
          {
            method: 'GET',
            path: collectionPath(RESOURCES[workloadPlural(ref)], namespace),
            query: { fieldSelector: `metadata.name=${ref.name}` },
          },
        ),
      ),
    patchWorkload: (namespace, ref, patch) =>
      send<WorkloadLike>(
        { ...at(ref, namespace), verb: 'patch' },
        {
          method: 'PATCH',
          path: objectPath(RESOURCES[workloadPlural(ref)], namespace, ref.name),
          query: { fieldManager: PLUGIN_FIELD_MANAGER },
          headers: { 'Content-Type': CONTENT_TYPE.jsonPatch },
          body: JSON.stringify(patch),
        },
      ),
  };
}

/** `deployments`, `replicasets`, `podtemplates`: the plural a workloadRef's kind is served as. */
export function workloadPlural(ref: WorkloadRef): 'deployments' | 'replicasets' | 'podtemplates' {
  return `${ref.kind.toLowerCase()}s` as 'deployments' | 'replicasets' | 'podtemplates';
}
