/**
 * The kubeconfig loaded into client-node, for a user whose credentials come from an exec or
 * auth-provider plugin (connection.ts reads every other kubeconfig itself): the same rules
 * (KUBECONFIG's files merged first-wins, --context, --as), every failure one CliError line.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type * as K8s from '@kubernetes/client-node';
import type { GlobalOptions } from './client.ts';
import { CliError } from './errors.ts';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function loadKubeConfig(
  k8s: typeof K8s,
  kc: K8s.KubeConfig,
  g: GlobalOptions,
  env: NodeJS.ProcessEnv,
): void {
  // KUBECONFIG may list several files, merged in order as kubectl does (first wins).
  const files = g.kubeconfig
    ? [g.kubeconfig]
    : (env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (files.length === 0) {
    const home = join(env['HOME'] || homedir(), '.kube', 'config');
    if (existsSync(home)) files.push(home);
  }
  let current = files[0];
  try {
    if (files.length > 0) {
      kc.loadFromFile(files[0]!);
      for (const file of files.slice(1)) {
        current = file;
        const more = new k8s.KubeConfig();
        more.loadFromFile(file);
        mergeFirstWins(kc, more);
      }
    } else if (existsSync(SERVICE_ACCOUNT_TOKEN)) {
      kc.loadFromCluster();
    } else {
      throw new CliError(
        'no kubeconfig: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config',
      );
    }
  } catch (err) {
    if (err instanceof CliError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new CliError(`cannot load kubeconfig${current ? ` "${current}"` : ''}: ${message}`);
  }
  if (g.context !== undefined) {
    if (!kc.getContextObject(g.context)) {
      throw new CliError(`context "${g.context}" not found in kubeconfig`);
    }
    kc.setCurrentContext(g.context);
  }
  if (!kc.getCurrentContext()) {
    throw new CliError('the kubeconfig has no current context; pass --context');
  }
  const ctx = kc.getContextObject(kc.getCurrentContext());
  if (!ctx) throw new CliError(`context "${kc.getCurrentContext()}" not found in kubeconfig`);
  if (!kc.getCurrentCluster()?.server) {
    throw new CliError(`context "${ctx.name}" has no cluster with a server address`);
  }
  if (g.as !== undefined) {
    kc.loadFromOptions({
      clusters: kc.getClusters(),
      contexts: kc.getContexts(),
      users: kc.getUsers().map((u) => (u.name === ctx.user ? { ...u, impersonateUser: g.as } : u)),
      currentContext: kc.getCurrentContext(),
    });
    if (!kc.getCurrentUser()) {
      throw new CliError(`context "${ctx.name}" has no user to impersonate --as "${g.as}" with`);
    }
  }
}

/**
 * kubectl's merge of KUBECONFIG files: the first file that sets `current-context` decides it,
 * and a cluster, user or context named in an earlier file is not replaced by a later one (so
 * `kubectl stepwise` acts on the cluster `kubectl get` reads). client-node's mergeConfig lets
 * the last current-context win and throws on a repeated name.
 */
function mergeFirstWins(kc: K8s.KubeConfig, later: K8s.KubeConfig): void {
  const add = <T extends { readonly name: string }>(have: T[], more: T[]): T[] => [
    ...have,
    ...more.filter((m) => !have.some((h) => h.name === m.name)),
  ];
  kc.loadFromOptions({
    clusters: add(kc.getClusters(), later.getClusters()),
    users: add(kc.getUsers(), later.getUsers()),
    contexts: add(kc.getContexts(), later.getContexts()),
    currentContext: kc.getCurrentContext() || later.getCurrentContext(),
  });
}
