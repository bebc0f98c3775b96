// The in-cluster dashboard (stepwise-dashboard) as a local process on 127.0.0.1, with a
// ServiceAccount token of its own and the RBAC the Helm chart ships; and ServiceAccount tokens
// for the people who sign in to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { REPO_ROOT } from '../../cluster/state.ts';
import { readCredentials } from '../../cluster/kubeconfig.ts';
import { freeLoopbackPorts } from '../../cluster/ports.ts';
import { kubeHttp } from '../../cluster/testing.ts';
import { render, type Doc } from '../../helm/render.ts';

const http = kubeHttp();
const MAIN = join(REPO_ROOT, 'src', 'cli', 'dashboard', 'in-cluster', 'main.ts');

/** A ServiceAccount in `namespace` and a token for it (TokenRequest, an hour). */
export async function serviceAccountToken(namespace: string, name: string): Promise<string> {
  await http.json('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
    metadata: { name },
  });
  const request = await http.json<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  );
  return request.status.token;
}

/**
 * The chart's dashboard ClusterRoles (rendered with a trusted proxy, so impersonation too),
 * created under names of this run and bound to `namespace/serviceAccount`.
 */
export async function applyShippedRbac(
  namespace: string,
  serviceAccount: string,
): Promise<string[]> {
  const docs = render({ dashboard: { enabled: true, proxy: { trustedCIDRs: ['127.0.0.2/32'] } } });
  const roles = docs.filter(
    (d): d is Doc & { rules: unknown[] } =>
      d.kind === 'ClusterRole' && d.metadata.name.startsWith('stepwise-dashboard'),
  );
  const names: string[] = [];
  for (const role of roles) {
    const name = `${role.metadata.name}-${namespace}`;
    await http.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name },
      rules: role.rules,
    });
    await http.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
    });
    names.push(name);
  }
  return names;
}

/** A kubeconfig that authenticates with a bearer token only. */
export async function tokenKubeconfig(name: string, token: string): Promise<string> {
  const admin = readCredentials(process.env.KUBECONFIG ?? '');
  const file = join(tmpdir(), `stepwise-e2e-${name}-${process.pid}.kubeconfig`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'stepwise',
        cluster: {
          server: admin.server,
          'certificate-authority-data': Buffer.from(admin.ca).toString('base64'),
        },
      },
    ],
    users: [{ name, user: { token } }],
    contexts: [{ name: 'stepwise', context: { cluster: 'stepwise', user: name } }],
    'current-context': 'stepwise',
  };
  await writeFile(file, dump(config), { mode: 0o600 });
  // A token in a file outlives nothing but the run.
  process.once('exit', () => rmSync(file, { force: true }));
  return file;
}

export interface ClusterDashboardProcess {
  /** http://127.0.0.1:PORT, the one public origin it is started with. */
  readonly origin: string;
  readonly port: number;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts stepwise-dashboard from the sources and resolves once it listens. */
export async function startClusterDashboard(
  kubeconfig: string,
  args: readonly string[],
): Promise<ClusterDashboardProcess> {
  const { port } = await freeLoopbackPorts(['port']);
  const origin = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [MAIN, '--listen-address=127.0.0.1', `--port=${port}`, `--public-origin=${origin}`, ...args],
    { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('listening on')) resolve();
    });
    child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
    void exited.then(() => reject(new Error(`stepwise-dashboard exited before serving:\n${out}`)));
  });
  return {
    origin,
    port,
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
