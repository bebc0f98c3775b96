/**
 * Waiting for RBAC: a binding just written takes effect in the API server's authorizer a moment
 * later. A test that must see a refusal come from a policy, or a controller that must start with
 * its rights, waits until a SubjectAccessReview says yes.
 */
import { pollUntil } from '../../cluster/poll.ts';
import { http } from './rollouts.ts';

export interface ResourceAttributes {
  readonly namespace?: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verb: string;
  readonly name?: string;
}

/** Resolves once `user` may do `attrs`; rejects after 10 s. */
export async function untilAllowed(user: string, attrs: ResourceAttributes): Promise<void> {
  const what = `${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}`;
  await pollUntil(
    `${user} may ${attrs.verb} ${what}.${attrs.group} in ${attrs.namespace ?? 'the cluster'}`,
    async () => {
      const review = await http.json<{ status?: { allowed?: boolean } }>(
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user, resourceAttributes: attrs },
        },
      );
      return review.status?.allowed === true ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}
