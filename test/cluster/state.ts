// The cluster that `cli.ts up` leaves running is described by files under .stepwise/ (all
// gitignored): cluster.json for the tools, cluster.env for a shell (`source` it), and the
// background process's log, cluster.log.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCredentials } from './kubeconfig.ts';
import { KubeHttp } from './kube-http.ts';
import { isAlive } from './orphans.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** STEPWISE_STATE_DIR moves it (tests of the CLI use a private one). */
export const STATE_DIR = process.env.STEPWISE_STATE_DIR ?? join(REPO_ROOT, '.stepwise');
export const STATE_FILE = join(STATE_DIR, 'cluster.json');
export const ENV_FILE = join(STATE_DIR, 'cluster.env');
export const DAEMON_LOG = join(STATE_DIR, 'cluster.log');

export interface ClusterState {
  /** The background process that owns the cluster. */
  readonly pid: number;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly binDir: string;
  readonly dataDir: string;
  readonly startedAt: string;
}

/** What a command run against the cluster needs in its environment. */
export function clusterEnv(s: Pick<ClusterState, 'kubeconfigPath' | 'binDir'>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KUBECONFIG: s.kubeconfigPath,
    PATH: `${s.binDir}:${process.env.PATH ?? ''}`,
    STEPWISE_K8S_ASSETS: s.binDir,
  };
}

export function readState(): ClusterState | undefined {
  if (!existsSync(STATE_FILE)) return undefined;
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function writeState(s: ClusterState): void {
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(s, null, 2) + '\n');
  writeFileSync(
    ENV_FILE,
    `# Written by test/cluster/cli.ts up (pid ${s.pid}); removed by \`make cluster-down\`.\n` +
      `export KUBECONFIG=${s.kubeconfigPath}\n` +
      `export STEPWISE_K8S_ASSETS=${s.binDir}\n` +
      `export PATH=${s.binDir}:$PATH\n`,
  );
}

/** Removes the files, but only if they still describe the cluster of `pid` (when given). */
export function removeState(pid?: number): void {
  if (pid !== undefined && readState()?.pid !== pid) return;
  rmSync(STATE_FILE, { force: true });
  rmSync(ENV_FILE, { force: true });
}

/** True when the owning process lives and the API server answers /readyz. */
export async function isHealthy(s: ClusterState): Promise<boolean> {
  if (!isAlive(s.pid) || !existsSync(s.kubeconfigPath)) return false;
  const api = new KubeHttp(readCredentials(s.kubeconfigPath));
  try {
    return (await api.request('GET', '/readyz')).status === 200;
  } catch {
    return false;
  } finally {
    api.close();
  }
}
