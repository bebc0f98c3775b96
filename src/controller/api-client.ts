/**
 * The controller's API clients. The transport is our own kubeconfig reader and node:https, or,
 * for a user that authenticates through an exec/auth-provider plugin, client-node (imported only
 * then). Every request is counted in the metrics.
 */
import {
  ArgoWireKubeApi,
  httpsTransport,
  kubeApiOver,
  loadConnection,
  TokenBucket,
  withArgoTypes,
} from '../kube/index.ts';
import { GROUP } from '../api/index.ts';
import type { ApiGroup } from './config.ts';
import type { Clock, HttpTransport, KubeApi, RequestInfo } from '../kube/index.ts';

export interface ApiClients {
  /** Every request but the Lease's, within --qps/--burst. */
  readonly api: KubeApi;
  /** The Lease's renewals, outside the bucket. */
  readonly leaseApi: KubeApi;
  /** The server the kubeconfig names, for the one line printed when it cannot be reached. */
  readonly server: string | undefined;
}

/** Throws KubeconfigError when no kubeconfig (or in-cluster account) can be used. */
export async function apiClients(
  env: NodeJS.ProcessEnv,
  limits: { readonly qps: number; readonly burst: number },
  clock: Clock,
  onRequest: (info: RequestInfo) => void,
  apiGroup: ApiGroup = GROUP,
): Promise<ApiClients> {
  const { transport, server } = await apiTransport(env);
  // --qps/--burst: one bucket for every request the controller makes (client-go semantics).
  const limiter = new TokenBucket(clock, limits);
  return {
    // --api-group=argoproj.io: Argo's objects in place, renamed at this one seam.
    api:
      apiGroup === GROUP
        ? kubeApiOver(transport, { onRequest, limiter })
        : new ArgoWireKubeApi(
            kubeApiOver(transport, { onRequest, limiter, registry: withArgoTypes() }),
          ),
    // Lease renewals bypass the bucket: under load (1,000 Rollouts settling) it can hold requests
    // for seconds, and a renewal that waits past the renew deadline loses leadership, which stops
    // all work. They are 1 request per retry period, so the cap stays meaningful.
    leaseApi: kubeApiOver(transport, { onRequest }),
    server,
  };
}

async function apiTransport(
  env: NodeJS.ProcessEnv,
): Promise<{ transport: HttpTransport; server: string | undefined }> {
  const found = loadConnection(env);
  if (found.kind === 'connection') {
    return { transport: httpsTransport(found.connection), server: found.connection.server };
  }
  const [{ KubeConfig }, { kubeConfigTransport }] = await Promise.all([
    import('@kubernetes/client-node'),
    import('../kube/client-node-transport.ts'),
  ]);
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return { transport: kubeConfigTransport(kc), server: kc.getCurrentCluster()?.server };
}
