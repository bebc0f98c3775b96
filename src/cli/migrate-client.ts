/**
 * The calls `migrate` makes (src/cli/migrate/): reading Argo's objects, applying the converted
 * ones, handing Argo's status over and orphaning Argo's ReplicaSets. Part of the plugin's
 * KubeClient (client.ts), kept apart so each file stays one concern.
 */
import type * as K8s from '@kubernetes/client-node';
import {
  ARGO_GROUP,
  FIELD_MANAGER,
  GROUP,
  PLUGIN_FIELD_MANAGER,
  ROLLOUT_PLURAL,
  VERSION,
} from '../api/keys.ts';
import type { Rollout } from '../api/rollout.ts';
import type { ObjectList } from './client.ts';
import type { RequestContext } from './errors.ts';

/** Argo Rollouts' kinds `migrate` reads (argoproj.io/v1alpha1). */
export type ArgoPlural = 'rollouts' | 'analysistemplates' | 'clusteranalysistemplates';

/** What `migrate --adopt` writes: a stepwise.dev object, as its manifest says. */
export interface StepwiseObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

export interface MigrateCalls {
  /** Argo's objects (`migrate`); namespace undefined for the cluster-scoped kind. */
  listArgo(plural: ArgoPlural, namespace: string | undefined): Promise<ObjectList<unknown>>;
  /** Deletes an Argo Rollout with propagationPolicy=Orphan (its ReplicaSets and pods stay),
   *  only if it is still the one with this uid. */
  orphanArgoRollout(namespace: string, name: string, uid: string): Promise<void>;
  /** Server-side apply of a stepwise.dev object under the plugin's field manager (`migrate
   *  --adopt`: what Git will hold). */
  applyStepwise(
    plural: string,
    namespace: string | undefined,
    body: StepwiseObject,
  ): Promise<unknown>;
  /** The status Argo hands over, applied to the Rollout's status as the controller's own
   *  (field manager stepwise-controller), so the controller's later applies own every field of
   *  it and can drop any. */
  applyHandover(namespace: string, name: string, status: object): Promise<Rollout>;
}

type Call = <T>(ctx: Omit<RequestContext, 'server'>, fn: () => Promise<T>) => Promise<T>;

const list = (raw: unknown): ObjectList<unknown> => {
  const l = raw as { items?: unknown[]; metadata?: { resourceVersion?: string } };
  return { items: l.items ?? [], resourceVersion: l.metadata?.resourceVersion ?? '' };
};

export function migrateCalls(
  k8s: typeof K8s,
  custom: K8s.CustomObjectsApi,
  call: Call,
): MigrateCalls {
  const ro = { group: GROUP, version: VERSION, plural: ROLLOUT_PLURAL };
  const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
  const argo = (plural: ArgoPlural) => ({ group: ARGO_GROUP, version: 'v1alpha1', plural });
  return {
    listArgo: (plural, namespace) =>
      call({ verb: 'list', resource: `${plural}.${ARGO_GROUP}`, namespace }, async () =>
        list(
          namespace === undefined
            ? await custom.listClusterCustomObject(argo(plural))
            : await custom.listNamespacedCustomObject({ ...argo(plural), namespace }),
        ),
      ),
    orphanArgoRollout: (namespace, name, uid) =>
      call({ verb: 'delete', resource: `rollouts.${ARGO_GROUP}`, namespace, name }, async () => {
        await custom.deleteNamespacedCustomObject({
          ...argo('rollouts'),
          namespace,
          name,
          propagationPolicy: 'Orphan',
          // In the body too: a body without it would make the API server delete in the background
          // (the ReplicaSets and their pods with it), whatever the query says.
          body: { propagationPolicy: 'Orphan', preconditions: { uid } },
        });
      }),
    applyStepwise: (plural, namespace, body) =>
      call({ verb: 'patch', resource: plural, namespace, name: body.metadata.name }, async () => {
        const target = { group: GROUP, version: VERSION, plural, name: body.metadata.name, body };
        const opts = { fieldManager: PLUGIN_FIELD_MANAGER, force: true };
        const written: unknown =
          namespace === undefined
            ? await custom.patchClusterCustomObject({ ...target, ...opts }, apply)
            : await custom.patchNamespacedCustomObject({ ...target, ...opts, namespace }, apply);
        return written;
      }),
    applyHandover: (namespace, name, status) =>
      call(
        { verb: 'patch', resource: `${ROLLOUT_PLURAL}/status`, namespace, name },
        async () =>
          (await custom.patchNamespacedCustomObjectStatus(
            {
              ...ro,
              namespace,
              name,
              body: {
                apiVersion: `${GROUP}/${VERSION}`,
                kind: 'Rollout',
                metadata: { name, namespace },
                status,
              },
              fieldManager: FIELD_MANAGER,
              force: true,
            },
            apply,
          )) as Rollout,
      ),
  };
}
