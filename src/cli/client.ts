/**
 * The calls the plugin's commands make (and the in-cluster dashboard's, as each person), over
 * the connection connection.ts opens (-n is ours as well: kubectl does not parse global flags
 * for plugins). Plain JSON in and out, through sender.ts.
 */
import type { AnalysisRun } from '../api/analysis.ts';
import type { RolloutApproval } from '../api/approval.ts';
import { PLUGIN_FIELD_MANAGER, ROLLOUT_APPROVAL_PLURAL, ROLLOUT_PLURAL } from '../api/keys.ts';
import { ANALYSIS_RUN_PLURAL } from '../api/keys.ts';
import type { Rollout } from '../api/rollout.ts';
import { collectionPath, CONTENT_TYPE, objectPath, RESOURCES } from './api-paths.ts';
import { openConnection, type PluginConnection } from './connection.ts';
import { CliError } from './errors.ts';
import { migrateCalls, type MigrateCalls } from './migrate-client.ts';
import { checkName } from './names.ts';
import { listCalls, type ListCalls } from './list-client.ts';
import {
  objectList,
  sender,
  type ObjectList,
  type WatchHandler,
  type WatchStream,
} from './sender.ts';
import { workloadCalls, type WorkloadCalls } from './workload-client.ts';
import type { PodLike, ReplicaSetLike } from './render/objects.ts';

export type { ObjectList, WatchHandler, WatchStream } from './sender.ts';

export interface GlobalOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  /** impersonate this user (Impersonate-User), like kubectl --as */
  as?: string | undefined;
}

/** RFC 6902 operations, as `undo` and `set image` send them. */
export interface JsonPatchOp {
  readonly op: 'replace' | 'add' | 'test';
  readonly path: string;
  readonly value: unknown;
}

export type WatchResource =
  | 'rollouts'
  | 'replicasets'
  | 'pods'
  | 'analysisruns'
  | 'rolloutapprovals'
  | 'deployments'
  | 'podtemplates'
  | 'events';

export interface WatchQuery {
  fieldSelector?: string;
  labelSelector?: string;
  resourceVersion?: string;
}

export interface KubeClient extends MigrateCalls, WorkloadCalls, ListCalls {
  /** https://127.0.0.1:PORT */
  readonly server: string;
  /** -n, else the context's namespace, else `default` */
  readonly namespace: string;
  getRollout(namespace: string, name: string): Promise<Rollout>;
  /** namespace undefined: all namespaces */
  listRollouts(namespace: string | undefined, fieldSelector?: string): Promise<ObjectList<Rollout>>;
  listReplicaSets(namespace: string, labelSelector: string): Promise<ObjectList<ReplicaSetLike>>;
  listPods(namespace: string, labelSelector: string): Promise<ObjectList<PodLike>>;
  getAnalysisRun(namespace: string, name: string): Promise<AnalysisRun>;
  listAnalysisRuns(namespace: string): Promise<ObjectList<AnalysisRun>>;
  /** JSON merge patch on /status under the plugin's field manager. */
  patchRolloutStatus(namespace: string, name: string, patch: object): Promise<Rollout>;
  /**
   * A patch on the Rollout itself (spec) under the plugin's field manager: a JSON merge patch
   * (an object) or a JSON patch (a list of operations). Only restart, undo and set image.
   */
  patchRollout(
    namespace: string,
    name: string,
    patch: object | readonly JsonPatchOp[],
  ): Promise<Rollout>;
  /** Who the API server says we are (SelfSubjectReview: kubectl auth whoami). */
  whoAmI(): Promise<{ username: string; groups: string[] }>;
  createRolloutApproval(namespace: string, body: RolloutApproval): Promise<RolloutApproval>;
  /** namespace undefined: all namespaces. */
  watch(
    resource: WatchResource,
    namespace: string | undefined,
    query: WatchQuery,
    onEvent: WatchHandler,
  ): WatchStream;
}

/** Loads the kubeconfig and returns a client; nothing is sent to the server yet. */
export async function connect(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KubeClient> {
  return clientOf(await openConnection(g, env), g.namespace);
}

/**
 * A client over a connection: what `connect` returns, and what the in-cluster dashboard builds
 * per person (their token, or impersonating them).
 */
export function clientOf(conn: PluginConnection, namespaceFlag?: string): KubeClient {
  const { server } = conn;
  // -n is checked as it is parsed; the context's namespace is checked here, before any request.
  const namespace = checkName('namespace', namespaceFlag || conn.contextNamespace || 'default');
  const { send, watch } = sender(conn.transport, server);
  const { rollouts, analysisruns } = RESOURCES;
  const patch = (path: string, contentType: string, body: unknown) => ({
    method: 'PATCH' as const,
    path,
    query: { fieldManager: PLUGIN_FIELD_MANAGER },
    headers: { 'Content-Type': contentType },
    body: JSON.stringify(body),
  });
  const get = (path: string, query?: Record<string, string | undefined>) => ({
    method: 'GET' as const,
    path,
    ...(query ? { query } : {}),
  });

  return {
    server,
    namespace,
    getRollout: (namespace, name) =>
      send<Rollout>(
        { verb: 'get', resource: ROLLOUT_PLURAL, namespace, name },
        get(objectPath(rollouts, namespace, name)),
      ),
    listRollouts: async (namespace, fieldSelector) =>
      objectList<Rollout>(
        await send(
          { verb: 'list', resource: ROLLOUT_PLURAL, namespace },
          get(collectionPath(rollouts, namespace), { fieldSelector }),
        ),
      ),
    listReplicaSets: async (namespace, labelSelector) =>
      objectList<ReplicaSetLike>(
        await send(
          { verb: 'list', resource: 'replicasets', namespace },
          get(collectionPath(RESOURCES.replicasets, namespace), { labelSelector }),
        ),
      ),
    listPods: async (namespace, labelSelector) =>
      objectList<PodLike>(
        await send(
          { verb: 'list', resource: 'pods', namespace },
          get(collectionPath(RESOURCES.pods, namespace), { labelSelector }),
        ),
      ),
    getAnalysisRun: (namespace, name) =>
      send<AnalysisRun>(
        { verb: 'get', resource: ANALYSIS_RUN_PLURAL, namespace, name },
        get(objectPath(analysisruns, namespace, name)),
      ),
    listAnalysisRuns: async (namespace) =>
      objectList<AnalysisRun>(
        await send(
          { verb: 'list', resource: ANALYSIS_RUN_PLURAL, namespace },
          get(collectionPath(analysisruns, namespace)),
        ),
      ),
    patchRolloutStatus: (namespace, name, body) =>
      send<Rollout>(
        { verb: 'patch', resource: `${ROLLOUT_PLURAL}/status`, namespace, name },
        patch(objectPath(rollouts, namespace, name, 'status'), CONTENT_TYPE.mergePatch, body),
      ),
    patchRollout: (namespace, name, body) =>
      send<Rollout>(
        { verb: 'patch', resource: ROLLOUT_PLURAL, namespace, name },
        patch(
          objectPath(rollouts, namespace, name),
          Array.isArray(body) ? CONTENT_TYPE.jsonPatch : CONTENT_TYPE.mergePatch,
          body,
        ),
      ),
    ...migrateCalls(send),
    ...workloadCalls(send),
    ...listCalls(send),
    whoAmI: async () => {
      const review = await send<{
        status?: { userInfo?: { username?: string; groups?: string[] } };
      }>(
        { verb: 'create', resource: 'selfsubjectreviews' },
        {
          method: 'POST',
          path: collectionPath(RESOURCES.selfsubjectreviews),
          headers: { 'Content-Type': CONTENT_TYPE.json },
          body: JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'SelfSubjectReview',
          }),
        },
      );
      const user = review.status?.userInfo;
      if (!user?.username) throw new CliError('the API server did not say who you are');
      return { username: user.username, groups: user.groups ?? [] };
    },
    createRolloutApproval: (namespace, body) =>
      send<RolloutApproval>(
        { verb: 'create', resource: ROLLOUT_APPROVAL_PLURAL, namespace },
        {
          method: 'POST',
          path: collectionPath(RESOURCES.rolloutapprovals, namespace),
          query: { fieldManager: PLUGIN_FIELD_MANAGER },
          headers: { 'Content-Type': CONTENT_TYPE.json },
          body: JSON.stringify(body),
        },
      ),
    watch: (resource, namespace, query, onEvent) =>
      watch(
        { verb: 'watch', resource, namespace },
        {
          method: 'GET',
          path: collectionPath(RESOURCES[resource], namespace),
          query: { ...query },
        },
        onEvent,
      ),
  };
}
