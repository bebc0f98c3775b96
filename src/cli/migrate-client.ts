/**
 * The calls `migrate` makes (src/cli/migrate/): reading Argo's objects, applying the converted
 * ones, handing Argo's status over and orphaning Argo's ReplicaSets. Part of the plugin's
 * KubeClient (client.ts), kept apart so each file stays one concern.
 */
import {
  ARGO_GROUP,
  FIELD_MANAGER,
  GROUP,
  PLUGIN_FIELD_MANAGER,
  ROLLOUT_PLURAL,
  VERSION,
} from '../api/keys.ts';
import type { Rollout } from '../api/rollout.ts';
import type { HttpRequest } from '../kube/rest.ts';
import {
  collectionPath,
  CONTENT_TYPE,
  objectPath,
  RESOURCES,
  type ApiResource,
} from './api-paths.ts';
import { objectList, type ObjectList, type Send } from './sender.ts';

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

const argo = (plural: ArgoPlural): ApiResource => ({
  group: ARGO_GROUP,
  version: 'v1alpha1',
  plural,
});

/** Server-side apply, forced: what `migrate` writes is meant to be the manager's own. */
const applyRequest = (path: string, fieldManager: string, body: unknown): HttpRequest => ({
  method: 'PATCH',
  path,
  query: { fieldManager, force: true },
  headers: { 'Content-Type': CONTENT_TYPE.apply },
  body: JSON.stringify(body),
});

export function migrateCalls(send: Send): MigrateCalls {
  return {
    listArgo: async (plural, namespace) =>
      objectList<unknown>(
        await send(
          { verb: 'list', resource: `${plural}.${ARGO_GROUP}`, namespace },
          { method: 'GET', path: collectionPath(argo(plural), namespace) },
        ),
      ),
    orphanArgoRollout: async (namespace, name, uid) => {
      await send(
        { verb: 'delete', resource: `rollouts.${ARGO_GROUP}`, namespace, name },
        {
          method: 'DELETE',
          path: objectPath(argo('rollouts'), namespace, name),
          query: { propagationPolicy: 'Orphan' },
          headers: { 'Content-Type': CONTENT_TYPE.json },
          // In the body too: a body without it would make the API server delete in the
          // background (the ReplicaSets and their pods with it), whatever the query says.
          body: JSON.stringify({ propagationPolicy: 'Orphan', preconditions: { uid } }),
        },
      );
    },
    applyStepwise: (plural, namespace, body) =>
      send<unknown>(
        { verb: 'patch', resource: plural, namespace, name: body.metadata.name },
        applyRequest(
          objectPath({ group: GROUP, version: VERSION, plural }, namespace, body.metadata.name),
          PLUGIN_FIELD_MANAGER,
          body,
        ),
      ),
    applyHandover: (namespace, name, status) =>
      send<Rollout>(
        { verb: 'patch', resource: `${ROLLOUT_PLURAL}/status`, namespace, name },
        applyRequest(objectPath(RESOURCES.rollouts, namespace, name, 'status'), FIELD_MANAGER, {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Rollout',
          metadata: { name, namespace },
          status,
        }),
      ),
  };
}
