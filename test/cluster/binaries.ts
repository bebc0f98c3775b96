// Where the control-plane binaries come from: a directory named by STEPWISE_K8S_ASSETS (the
// envtest convention, also set by `cli.ts with` for its children), else build.sh, which is fast
// when its cache is complete and builds (with progress on stderr) when it is not.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTROL_PLANE_BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
  'kwok',
] as const;

export const BUILD_SCRIPT = fileURLToPath(new URL('./build.sh', import.meta.url));

export function missingBinaries(dir: string): string[] {
  return CONTROL_PLANE_BINARIES.filter((b) => {
    try {
      accessSync(join(dir, b), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

export async function resolveBinDir(): Promise<string> {
  const fromEnv = process.env.STEPWISE_K8S_ASSETS;
  if (fromEnv && missingBinaries(fromEnv).length === 0) return fromEnv;
  return runBuildScript();
}

/** Runs build.sh with its progress on our stderr; its last stdout line is the directory. */
export function runBuildScript(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(BUILD_SCRIPT, [], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const dir = out.trim().split('\n').pop() ?? '';
      if (code === 0 && dir) resolve(dir);
      else reject(new Error(`${BUILD_SCRIPT} exited with code ${code}`));
    });
  });
}
