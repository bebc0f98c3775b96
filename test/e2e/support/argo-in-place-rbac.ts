/**
 * A controller serving argoproj.io in place with the RBAC the project ships (deploy/rbac/rbac.yaml
 * and argo-in-place.yaml), not as admin: a kubeconfig for a user bound to those ClusterRoles.
 */
import { userKubeconfig } from '../../cluster/testing.ts';
import { untilAllowed } from './access.ts';
import { applyDeployFile } from './deploy-files.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './exclusive.ts';
import { http } from './rollouts.ts';

/** `user` names the user and its bindings (unique per test file). Resolves once the API
 *  server's RBAC lets it write an argoproj.io Rollout's status in `ns`. */
export async function inPlaceControllerKubeconfig(ns: string, user: string): Promise<string> {
  await holdForThisFile(DEPLOY_CLUSTER_OBJECTS, 'shared');
  await applyDeployFile('rbac/rbac.yaml');
  await applyDeployFile('rbac/argo-in-place.yaml');
  for (const role of ['stepwise-controller', 'stepwise-controller-argoproj']) {
    await http.json(
      'PATCH',
      `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}-${user}?fieldManager=stepwise-tests&force=true`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${role}-${user}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
      'application/apply-patch+yaml',
    );
  }
  await untilAllowed(user, {
    namespace: ns,
    group: 'argoproj.io',
    resource: 'rollouts',
    subresource: 'status',
    verb: 'patch',
  });
  return userKubeconfig(user);
}
