/**
 * The plugin's calls on the object a Rollout's workloadRef names (Deployment and ReplicaSet
 * through the generic object API, PodTemplate through the core API): read it, and patch its
 * template under the plugin's field manager (set image, undo).
 */
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { PLUGIN_FIELD_MANAGER } from '../api/keys.ts';
import type { WorkloadRef } from '../api/rollout.ts';
import type { JsonPatchOp, ObjectList } from './client.ts';
import type { RequestContext } from './errors.ts';
import type { WorkloadLike } from './render/objects.ts';

export interface WorkloadCallDeps {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  /** The request option that sends a JSON patch. */
  readonly jsonPatch: Parameters<CustomObjectsApi['patchNamespacedCustomObject']>[1];
  readonly call: <T>(ctx: Omit<RequestContext, 'server'>, fn: () => Promise<T>) => Promise<T>;
  readonly list: <T>(raw: unknown) => ObjectList<T>;
}

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

export function workloadCalls(d: WorkloadCallDeps): WorkloadCalls {
  const { custom, core, jsonPatch, call, list } = d;
  const at = (ref: WorkloadRef, namespace: string) => ({
    group: 'apps',
    version: 'v1',
    plural: workloadPlural(ref),
    namespace,
    name: ref.name,
  });
  return {
    getWorkload: (namespace, ref) =>
      call({ verb: 'get', resource: workloadPlural(ref), namespace, name: ref.name }, async () =>
        ref.kind === 'PodTemplate'
          ? ((await core.readNamespacedPodTemplate({ namespace, name: ref.name })) as WorkloadLike)
          : ((await custom.getNamespacedCustomObject(at(ref, namespace))) as WorkloadLike),
      ),
    listWorkload: (namespace, ref) => {
      const fieldSelector = `metadata.name=${ref.name}`;
      return call({ verb: 'list', resource: workloadPlural(ref), namespace }, async () =>
        list<WorkloadLike>(
          ref.kind === 'PodTemplate'
            ? await core.listNamespacedPodTemplate({ namespace, fieldSelector })
            : await custom.listNamespacedCustomObject({
                group: 'apps',
                version: 'v1',
                plural: workloadPlural(ref),
                namespace,
                fieldSelector,
              }),
        ),
      );
    },
    patchWorkload: (namespace, ref, patch) => {
      const body = patch as JsonPatchOp[];
      const fieldManager = PLUGIN_FIELD_MANAGER;
      return call(
        { verb: 'patch', resource: workloadPlural(ref), namespace, name: ref.name },
        async () =>
          ref.kind === 'PodTemplate'
            ? ((await core.patchNamespacedPodTemplate(
                { namespace, name: ref.name, body, fieldManager },
                jsonPatch,
              )) as WorkloadLike)
            : ((await custom.patchNamespacedCustomObject(
                { ...at(ref, namespace), body, fieldManager },
                jsonPatch,
              )) as WorkloadLike),
      );
    },
  };
}

/** `deployments`, `replicasets`, `podtemplates`: the plural a workloadRef's kind is served as. */
export function workloadPlural(ref: WorkloadRef): 'deployments' | 'replicasets' | 'podtemplates' {
  return `${ref.kind.toLowerCase()}s` as 'deployments' | 'replicasets' | 'podtemplates';
}
