/**
 * Cluster access for the plugin: kubeconfig loading (kubectl does not parse global flags for
 * plugins, so --kubeconfig, --context, -n and --as are ours), and the handful of calls the
 * commands make. @kubernetes/client-node is imported lazily: `version` and `--help` stay fast.
 */
import type * as K8s from '@kubernetes/client-node';
import type { AnalysisRun } from '../api/analysis.ts';
import type { RolloutApproval } from '../api/approval.ts';
import {
  ANALYSIS_RUN_PLURAL,
  GROUP,
  PLUGIN_FIELD_MANAGER,
  ROLLOUT_APPROVAL_PLURAL,
  ROLLOUT_PLURAL,
  VERSION,
} from '../api/keys.ts';
import type { Rollout } from '../api/rollout.ts';
import { CliError, toCliError, type RequestContext } from './errors.ts';
import { loadKubeConfig } from './kubeconfig.ts';
import { migrateCalls, type MigrateCalls } from './migrate-client.ts';
import { checkName } from './names.ts';
import { isAbort, MAX_THROTTLE_RETRIES, throttleDelayMs } from './throttle.ts';
import { listCalls, type ListCalls } from './list-client.ts';
import { workloadCalls, type WorkloadCalls } from './workload-client.ts';
import type { PodLike, ReplicaSetLike } from './render/objects.ts';

export interface GlobalOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  /** impersonate this user (Impersonate-User), like kubectl --as */
  as?: string | undefined;
}

export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
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

export interface WatchStream {
  stop(): void;
  /** Settles when the stream ends: null for a clean close, else the error. */
  readonly done: Promise<unknown>;
}

export type WatchHandler = (type: string, object: unknown) => void;

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

/** The names a request carries, checked as the API server would (src/cli/names.ts). */
function checkRequestNames(ctx: Omit<RequestContext, 'server'>): void {
  if (ctx.namespace !== undefined) checkName('namespace', ctx.namespace);
  if (ctx.name !== undefined) {
    checkName(ctx.resource.startsWith(ANALYSIS_RUN_PLURAL) ? 'AnalysisRun' : 'rollout', ctx.name);
  }
}

/** Loads the kubeconfig and returns a client; nothing is sent to the server yet. */
export async function connect(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KubeClient> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  loadKubeConfig(k8s, kc, g, env);
  return clientOf(k8s, kc, g.namespace);
}

/**
 * A client for a loaded KubeConfig (its current context and user): what `connect` returns, and
 * what the in-cluster dashboard builds per person (their token, or impersonating them).
 */
export function clientOf(k8s: typeof K8s, kc: K8s.KubeConfig, namespaceFlag?: string): KubeClient {
  const server = kc.getCurrentCluster()!.server;
  // -n is checked as it is parsed; the context's namespace is checked here, before any request.
  const namespace = checkName(
    'namespace',
    namespaceFlag || kc.getContextObject(kc.getCurrentContext())?.namespace || 'default',
  );
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
  const watcher = new k8s.Watch(kc);
  const ro = { group: GROUP, version: VERSION, plural: ROLLOUT_PLURAL };

  const call = async <T>(ctx: Omit<RequestContext, 'server'>, fn: () => Promise<T>): Promise<T> => {
    // Every request passes here: no name reaches a URL unchecked, whichever command sent it.
    checkRequestNames(ctx);
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const wait = throttleDelayMs(err);
        if (wait === undefined || attempt >= MAX_THROTTLE_RETRIES) {
          throw toCliError(err, { server, ...ctx });
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  const list = <T>(raw: unknown): ObjectList<T> => {
    const l = raw as { items?: T[]; metadata?: { resourceVersion?: string } };
    return { items: l.items ?? [], resourceVersion: l.metadata?.resourceVersion ?? '' };
  };
  // Raw paths (client-node's generated calls encode their own segments; the watch does not).
  const group = `/apis/${GROUP}/${VERSION}/namespaces`;
  const paths: Record<WatchResource, string> = {
    rollouts: `${group}/{ns}/${ROLLOUT_PLURAL}`,
    replicasets: '/apis/apps/v1/namespaces/{ns}/replicasets',
    deployments: '/apis/apps/v1/namespaces/{ns}/deployments',
    podtemplates: '/api/v1/namespaces/{ns}/podtemplates',
    pods: '/api/v1/namespaces/{ns}/pods',
    analysisruns: `${group}/{ns}/${ANALYSIS_RUN_PLURAL}`,
    rolloutapprovals: `${group}/{ns}/${ROLLOUT_APPROVAL_PLURAL}`,
    events: '/api/v1/namespaces/{ns}/events',
  };
  const watchPath = (resource: WatchResource, ns: string | undefined): string =>
    ns === undefined
      ? paths[resource].replace('/namespaces/{ns}', '')
      : paths[resource].replace('{ns}', encodeURIComponent(ns));
  const auth = kc.makeApiClient(k8s.AuthenticationV1Api);
  const ar = { group: GROUP, version: VERSION, plural: ANALYSIS_RUN_PLURAL };

  return {
    server,
    namespace,
    getRollout: (namespace, name) =>
      call(
        { verb: 'get', resource: ROLLOUT_PLURAL, namespace, name },
        async () => (await custom.getNamespacedCustomObject({ ...ro, namespace, name })) as Rollout,
      ),
    listRollouts: (namespace, fieldSelector) =>
      call({ verb: 'list', resource: ROLLOUT_PLURAL, namespace }, async () =>
        list<Rollout>(
          namespace === undefined
            ? await custom.listCustomObjectForAllNamespaces({
                group: GROUP,
                version: VERSION,
                resourcePlural: ROLLOUT_PLURAL,
                fieldSelector,
              })
            : await custom.listNamespacedCustomObject({ ...ro, namespace, fieldSelector }),
        ),
      ),
    listReplicaSets: (namespace, labelSelector) =>
      call({ verb: 'list', resource: 'replicasets', namespace }, async () =>
        list<ReplicaSetLike>(
          await custom.listNamespacedCustomObject({
            group: 'apps',
            version: 'v1',
            plural: 'replicasets',
            namespace,
            labelSelector,
          }),
        ),
      ),
    listPods: (namespace, labelSelector) =>
      call({ verb: 'list', resource: 'pods', namespace }, async () =>
        list<PodLike>(await core.listNamespacedPod({ namespace, labelSelector })),
      ),
    getAnalysisRun: (namespace, name) =>
      call(
        { verb: 'get', resource: ANALYSIS_RUN_PLURAL, namespace, name },
        async () =>
          (await custom.getNamespacedCustomObject({ ...ar, namespace, name })) as AnalysisRun,
      ),
    listAnalysisRuns: (namespace) =>
      call({ verb: 'list', resource: ANALYSIS_RUN_PLURAL, namespace }, async () =>
        list<AnalysisRun>(await custom.listNamespacedCustomObject({ ...ar, namespace })),
      ),
    patchRolloutStatus: (namespace, name, body) =>
      call(
        { verb: 'patch', resource: `${ROLLOUT_PLURAL}/status`, namespace, name },
        async () =>
          (await custom.patchNamespacedCustomObjectStatus(
            { ...ro, namespace, name, body, fieldManager: PLUGIN_FIELD_MANAGER },
            mergePatch,
          )) as Rollout,
      ),
    patchRollout: (namespace, name, body) =>
      call(
        { verb: 'patch', resource: ROLLOUT_PLURAL, namespace, name },
        async () =>
          (await custom.patchNamespacedCustomObject(
            { ...ro, namespace, name, body, fieldManager: PLUGIN_FIELD_MANAGER },
            Array.isArray(body) ? jsonPatch : mergePatch,
          )) as Rollout,
      ),
    ...migrateCalls(k8s, custom, call),
    ...workloadCalls({ custom, core, jsonPatch, call, list }),
    ...listCalls({ custom, core, call, list }),
    whoAmI: () =>
      call({ verb: 'create', resource: 'selfsubjectreviews' }, async () => {
        const review = await auth.createSelfSubjectReview({
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        });
        const user = review.status?.userInfo;
        if (!user?.username) throw new CliError('the API server did not say who you are');
        return { username: user.username, groups: user.groups ?? [] };
      }),
    createRolloutApproval: (namespace, body) =>
      call(
        { verb: 'create', resource: ROLLOUT_APPROVAL_PLURAL, namespace },
        async () =>
          (await custom.createNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            plural: ROLLOUT_APPROVAL_PLURAL,
            namespace,
            body,
            fieldManager: PLUGIN_FIELD_MANAGER,
          })) as RolloutApproval,
      ),
    watch(resource, namespace, query, onEvent) {
      let controller: AbortController | undefined;
      let stopped = false;
      const done = new Promise<unknown>((resolve) => {
        try {
          checkRequestNames({ verb: 'watch', resource, namespace });
        } catch (err) {
          resolve(err);
          return;
        }
        const params = { ...query, allowWatchBookmarks: true };
        watcher
          .watch(watchPath(resource, namespace), params, onEvent, (err: unknown) =>
            // The client ends quiet streams after 30 s without data: a clean close for us.
            resolve(
              !err || stopped || isAbort(err)
                ? null
                : toCliError(err, { server, verb: 'watch', resource, namespace }),
            ),
          )
          .then((c) => {
            controller = c;
            if (stopped) c.abort();
          })
          .catch((err: unknown) =>
            resolve(toCliError(err, { server, verb: 'watch', resource, namespace })),
          );
      });
      return {
        done,
        stop() {
          stopped = true;
          controller?.abort();
        },
      };
    },
  };
}
