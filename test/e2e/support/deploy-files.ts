// The cluster-scoped objects of deploy/ that approval and analysis e2e files install as the
// chart would: the admission policies and the ClusterRoles, server-side applied from the files
// users apply, so a test exercises exactly what ships.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { REPO_ROOT } from '../../cluster/state.ts';
import { untilAllowed } from './access.ts';
import { http } from './rollouts.ts';

/** Kinds applied by default, with their plurals. */
export const POLICY_AND_ROLE_KINDS: Readonly<Record<string, string>> = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
  ClusterRole: 'clusterroles',
};

/** Server-side applies the objects of `kinds` in a YAML file of deploy/ (others are skipped). */
export async function applyDeployFile(
  path: string,
  kinds: Readonly<Record<string, string>> = POLICY_AND_ROLE_KINDS,
): Promise<void> {
  const docs = loadAll(await readFile(join(REPO_ROOT, 'deploy', path), 'utf8')) as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
  }[];
  for (const doc of docs) {
    const plural = kinds[doc.kind];
    if (plural === undefined) continue;
    await http.json(
      'PATCH',
      `/apis/${doc.apiVersion}/${plural}/${doc.metadata.name}?fieldManager=stepwise-tests&force=true`,
      doc,
      'application/apply-patch+yaml',
    );
  }
}

/** Binds `user` to stepwise-approver in `ns`: once this returns, they may create RolloutApprovals there. */
export async function bindApprover(ns: string, user: string): Promise<void> {
  await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    metadata: { name: `approver-${user}` },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'stepwise-approver',
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  // The authorizer's RBAC cache applies a new binding a moment later.
  await untilAllowed(user, {
    namespace: ns,
    group: 'stepwise.dev',
    resource: 'rolloutapprovals',
    verb: 'create',
  });
}
