/**
 * Lists of any resource the plugin watches, in one namespace or all of them (the dashboard's
 * shared watches start from these): custom resources and apps/v1 through the generic object
 * API, core kinds through the core API. Plain JSON out: client-node's typed models (Dates,
 * class instances) are turned back into what a watch delivers, so a cache holds one form.
 */
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import {
  ANALYSIS_RUN_PLURAL,
  GROUP,
  ROLLOUT_APPROVAL_PLURAL,
  ROLLOUT_PLURAL,
  VERSION,
} from '../api/keys.ts';
import type { ObjectList, WatchQuery, WatchResource } from './client.ts';
import type { RequestContext } from './errors.ts';

export interface ListCallDeps {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  readonly call: <T>(ctx: Omit<RequestContext, 'server'>, fn: () => Promise<T>) => Promise<T>;
  readonly list: <T>(raw: unknown) => ObjectList<T>;
}

export interface ListCalls {
  /** Any watchable resource as plain JSON; namespace undefined: all namespaces. */
  listObjects(
    resource: WatchResource,
    namespace: string | undefined,
    query: WatchQuery,
  ): Promise<ObjectList<unknown>>;
}

const plain = (raw: unknown): unknown => JSON.parse(JSON.stringify(raw)) as unknown;

type Lister = (namespace: string | undefined, q: WatchQuery) => Promise<unknown>;

export function listCalls(d: ListCallDeps): ListCalls {
  const { custom, core, call, list } = d;
  const grouped =
    (group: string, version: string, plural: string): Lister =>
    (namespace, q) =>
      namespace === undefined
        ? custom.listCustomObjectForAllNamespaces({ group, version, resourcePlural: plural, ...q })
        : custom.listNamespacedCustomObject({ group, version, plural, namespace, ...q });
  const LISTERS: Record<WatchResource, Lister> = {
    rollouts: grouped(GROUP, VERSION, ROLLOUT_PLURAL),
    analysisruns: grouped(GROUP, VERSION, ANALYSIS_RUN_PLURAL),
    rolloutapprovals: grouped(GROUP, VERSION, ROLLOUT_APPROVAL_PLURAL),
    replicasets: grouped('apps', 'v1', 'replicasets'),
    deployments: grouped('apps', 'v1', 'deployments'),
    pods: (namespace, q) =>
      namespace === undefined
        ? core.listPodForAllNamespaces(q)
        : core.listNamespacedPod({ namespace, ...q }),
    events: (namespace, q) =>
      namespace === undefined
        ? core.listEventForAllNamespaces(q)
        : core.listNamespacedEvent({ namespace, ...q }),
    podtemplates: (namespace, q) =>
      namespace === undefined
        ? core.listPodTemplateForAllNamespaces(q)
        : core.listNamespacedPodTemplate({ namespace, ...q }),
  };
  return {
    listObjects: (resource, namespace, query) =>
      call({ verb: 'list', resource, namespace }, async () =>
        list<unknown>(plain(await LISTERS[resource](namespace, query))),
      ),
  };
}
