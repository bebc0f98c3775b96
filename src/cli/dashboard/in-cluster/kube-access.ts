/**
 * The in-cluster dashboard's calls to the API server. With its own ServiceAccount it only
 * reads (the shared watches), asks who a token belongs to (TokenReview) and what a person may do
 * (SubjectAccessReview). Every write is sent as the person: with their own bearer token (then
 * the API server authorises it too, as with kubectl proxy), or, for a person an authenticating
 * proxy vouched for, with the ServiceAccount's credentials impersonating them (Impersonate-User
 * and one Impersonate-Group line per group: the API server checks the impersonated user's rights).
 */
import type { ClusterIdentity, ClusterSession, SessionUser } from '../../../dashboard/index.ts';
import { httpsTransport } from '../../../kube/https-transport.ts';
import type { Connection } from '../../../kube/kubeconfig.ts';
import { collectionPath, CONTENT_TYPE, RESOURCES, type ApiResource } from '../../api-paths.ts';
import { clientOf, type KubeClient } from '../../client.ts';
import { withHeaders } from '../../connection.ts';
import { sender } from '../../sender.ts';

export interface KubeAccess {
  readonly identity: ClusterIdentity;
  /** A client that acts as the session's person. */
  clientFor(session: ClusterSession): KubeClient;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; groups?: string[] };
  error?: string;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** `own`: the dashboard's own connection (its ServiceAccount in the cluster). */
export function kubeAccess(own: Connection): KubeAccess {
  const server = own.server;
  const ownTransport = httpsTransport(own);
  // A visitor's token travels alone: with the ServiceAccount's client certificate beside it
  // (a kubeconfig may have one), the API server would authenticate the certificate instead.
  const tokenOnly = httpsTransport({
    server,
    ...(own.ca === undefined ? {} : { ca: own.ca }),
    insecureSkipTlsVerify: own.insecureSkipTlsVerify,
    ...(own.tlsServerName === undefined ? {} : { tlsServerName: own.tlsServerName }),
    authorization: () => undefined,
    source: own.source,
  });
  const { send } = sender(ownTransport, server);
  const review = <S>(resource: ApiResource, body: object): Promise<{ status?: S }> =>
    send(
      { verb: 'create', resource: resource.plural },
      {
        method: 'POST',
        path: collectionPath(resource),
        headers: { 'Content-Type': CONTENT_TYPE.json },
        body: JSON.stringify(body),
      },
    );

  const identity: ClusterIdentity = {
    async review(token) {
      const { status } = await review<TokenReviewStatus>(RESOURCES.tokenreviews, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token },
      });
      const user = status?.user;
      if (!status?.authenticated || !user?.username) {
        return { ok: false, message: status?.error || 'not authenticated' };
      }
      return { ok: true, user: { username: user.username, groups: user.groups ?? [] } };
    },
    async check(user, a) {
      const { status: s } = await review<SubjectAccessReviewStatus>(
        RESOURCES.subjectaccessreviews,
        {
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
      );
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
      const transport =
        session.credential.kind === 'token'
          ? withHeaders(tokenOnly, { Authorization: `Bearer ${session.credential.token}` })
          : withHeaders(ownTransport, impersonationHeaders(session.user));
      return clientOf({ transport, server, contextNamespace: undefined });
    },
  };
}

/** Impersonate-User, and Impersonate-Group with one header line per group. */
export function impersonationHeaders(user: SessionUser): Record<string, string | string[]> {
  return { 'Impersonate-User': user.username, 'Impersonate-Group': [...user.groups] };
}
