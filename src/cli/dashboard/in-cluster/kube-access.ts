/**
 * The in-cluster dashboard's calls to the API server. With its own ServiceAccount it only
 * reads (the shared watches), asks who a token belongs to (TokenReview) and what a person may do
 * (SubjectAccessReview). Every write is sent as the person: with their own bearer token (then
 * the API server authorises it too, as with kubectl proxy), or, for a person an authenticating
 * proxy vouched for, with the ServiceAccount's token impersonating them (Impersonate-User and
 * one Impersonate-Group line per group: the API server checks the impersonated user's rights).
 */
import type * as K8s from '@kubernetes/client-node';
import type { ClusterIdentity, ClusterSession, SessionUser } from '../../../dashboard/index.ts';
import { clientOf, type KubeClient } from '../../client.ts';

export interface KubeAccess {
  readonly identity: ClusterIdentity;
  /** A client that acts as the session's person. */
  clientFor(session: ClusterSession): KubeClient;
}

export function kubeAccess(k8s: typeof K8s, kc: K8s.KubeConfig): KubeAccess {
  const authn = kc.makeApiClient(k8s.AuthenticationV1Api);
  const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig has no current cluster');

  const identity: ClusterIdentity = {
    async review(token) {
      const review = await authn.createTokenReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const status = review.status;
      const user = status?.user;
      if (!status?.authenticated || !user?.username) {
        return { ok: false, message: status?.error || 'not authenticated' };
      }
      return { ok: true, user: { username: user.username, groups: user.groups ?? [] } };
    },
    async check(user, a) {
      const review = await authz.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            groups: [...user.groups],
            resourceAttributes: {
              namespace: a.namespace,
              verb: a.verb,
              group: a.group,
              resource: a.resource,
              ...(a.subresource === undefined ? {} : { subresource: a.subresource }),
              ...(a.name === undefined ? {} : { name: a.name }),
            },
          },
        },
      });
      const s = review.status;
      return {
        allowed: s?.allowed === true && s.denied !== true,
        ...(s?.reason ? { reason: s.reason } : {}),
        ...(s?.evaluationError ? { evaluationError: s.evaluationError } : {}),
      };
    },
  };

  return {
    identity,
    clientFor(session) {
      if (session.credential.kind === 'token') {
        const own = new k8s.KubeConfig();
        own.loadFromOptions({
          clusters: [cluster],
          users: [{ name: 'dashboard-visitor', token: session.credential.token }],
          contexts: [{ name: 'visitor', cluster: cluster.name, user: 'dashboard-visitor' }],
          currentContext: 'visitor',
        });
        return clientOf(k8s, own);
      }
      return clientOf(k8s, impersonating(k8s, kc, session.user));
    },
  };
}

/** The ServiceAccount's KubeConfig, every request of it impersonating `user`. */
function impersonating(k8s: typeof K8s, kc: K8s.KubeConfig, user: SessionUser): K8s.KubeConfig {
  const lines = impersonationHeaders(user);
  class Impersonating extends k8s.KubeConfig {
    override async applySecurityAuthentication(context: K8s.RequestContext): Promise<void> {
      await super.applySecurityAuthentication(context);
      const dispatcher = context.getDispatcher();
      if (dispatcher === undefined) {
        throw new Error('impersonation needs an API server reached over TLS (https://)');
      }
      // Each group is a header line of its own (the API server reads every line as one group),
      // which fetch's Headers would join into one: added below fetch, on the dispatcher.
      context.setDispatcher(
        dispatcher.compose(
          (dispatch) => (opts, handler) =>
            dispatch({ ...opts, headers: [...rawHeaders(opts.headers), ...lines] }, handler),
        ),
      );
    }
  }
  const out = new Impersonating();
  out.loadFromOptions({
    clusters: kc.getClusters(),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return out;
}

/** Impersonate-User, then Impersonate-Group once per group, as flat name/value pairs. */
export function impersonationHeaders(user: SessionUser): string[] {
  return [
    'impersonate-user',
    user.username,
    ...user.groups.flatMap((g) => ['impersonate-group', g]),
  ];
}

/** undici's request headers in any of their forms, as flat name/value pairs, without any
 *  Impersonate-* line already there (only ours may say whom a request is for). */
export function rawHeaders(headers: unknown): string[] {
  const pairs: [string, string][] = [];
  const add = (k: string, v: unknown): void => {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== undefined && one !== null) pairs.push([k, String(one)]);
    }
  };
  if (Array.isArray(headers)) {
    if (headers.every((h) => typeof h === 'string' || Buffer.isBuffer(h))) {
      for (let i = 0; i + 1 < headers.length; i += 2)
        add(String(headers[i]), String(headers[i + 1]));
    } else for (const h of headers as [string, unknown][]) add(h[0], h[1]);
  } else if (headers !== null && typeof headers === 'object') {
    const entries =
      Symbol.iterator in headers
        ? [...(headers as Iterable<[string, unknown]>)]
        : Object.entries(headers);
    for (const [k, v] of entries) add(k, v);
  }
  return pairs.filter(([k]) => !/^impersonate-/i.test(k)).flat();
}
