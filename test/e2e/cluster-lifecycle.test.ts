// The harness never leaves a control plane behind: not after stop(), not after a failed start,
// not when its owner is told to terminate, and (via the next start) not when its owner is
// killed outright. Each test starts its own one-node cluster under a private parent dir, so
// "nothing left" can be checked by looking for any process that mentions that dir.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../cluster/cluster.ts';
import { KubeHttp } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { isAlive, processesMentioning, reapOrphans, waitForExit } from '../cluster/orphans.ts';

const CLUSTER_MODULE = fileURLToPath(new URL('../cluster/cluster.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../cluster/cli.ts', import.meta.url));

function privateParent(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-lifecycle-'));
  t.after(() => {
    processesMentioning(dir).forEach((pid) => process.kill(pid, 'SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

function assertNothingLeft(parent: string, pids: readonly number[]): void {
  assert.deepEqual(pids.filter(isAlive), [], 'control-plane pids still alive');
  assert.deepEqual(processesMentioning(parent), [], 'processes still mention the data dir');
  assert.deepEqual(readdirSync(parent), [], 'the data dir is still there');
}

test('stop() ends every process it started and removes the data dir', async (t) => {
  const parent = privateParent(t);
  const cluster = await startCluster({ nodes: 1, parentDir: parent, log: () => undefined });
  const pids = cluster.processes.map((p) => p.pid);
  assert.deepEqual(cluster.processes.map((p) => p.name).sort(), [
    'etcd',
    'kube-apiserver',
    'kube-controller-manager',
    'kube-scheduler',
    'kwok',
  ]);
  assert.ok(pids.every(isAlive));
  const api = new KubeHttp(readCredentials(cluster.kubeconfigPath));
  assert.equal((await api.request('GET', '/readyz')).status, 200);
  api.close();
  await cluster.stop();
  assertNothingLeft(parent, pids);
});

test('a failed start shows the failing component log and cleans up', async (t) => {
  const parent = privateParent(t);
  const lines: string[] = [];
  await assert.rejects(
    startCluster({
      nodes: 1,
      parentDir: parent,
      log: (l) => lines.push(l),
      extraArgs: { 'kube-apiserver': ['--no-such-flag'] },
    }),
    /kube-apiserver exited with code 1/,
  );
  const output = lines.join('\n');
  assert.match(output, /kube-apiserver did not come up; last lines of/);
  assert.match(output, /unknown flag: --no-such-flag/);
  assertNothingLeft(parent, []);
});

/**
 * Starts a cluster in a separate Node process and resolves once it is ready; the owner then
 * idles, or with `crash` dies of an uncaught error a moment later.
 */
async function startOwner(parent: string, crash = false) {
  const then = crash
    ? 'setTimeout(() => { throw new Error("boom"); }, 100);'
    : 'setInterval(() => {}, 1 << 30);';
  const script = `
    import { startCluster } from ${JSON.stringify(CLUSTER_MODULE)};
    const c = await startCluster({ nodes: 1, parentDir: process.env.PARENT, log: () => {} });
    console.log(JSON.stringify(c.processes.map((p) => p.pid)));
    ${then}`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, PARENT: parent },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => owner.on('exit', (code) => r(code)));
  const pids = await new Promise<number[]>((resolve, reject) => {
    owner.stdout
      .setEncoding('utf8')
      .once('data', (line: string) => resolve(JSON.parse(line) as number[]));
    void exited.then((code) => reject(new Error(`owner exited with ${code} before ready`)));
  });
  return { owner, pids, exited };
}

test('SIGTERM to the owning process stops its cluster', async (t) => {
  const parent = privateParent(t);
  const { owner, pids, exited } = await startOwner(parent);
  assert.ok(pids.every(isAlive));
  owner.kill('SIGTERM');
  assert.equal(await exited, 128 + 15);
  assertNothingLeft(parent, pids);
});

test('an uncaught error in the owning process takes its cluster down', async (t) => {
  const parent = privateParent(t);
  const { pids, exited } = await startOwner(parent, true);
  assert.equal(await exited, 1);
  await waitForExit(pids); // the owner's SIGKILL to them takes effect when each leaves the kernel
  assertNothingLeft(parent, pids);
});

test('a cluster whose owner was SIGKILLed is reaped by the next start', async (t) => {
  const parent = privateParent(t);
  const { owner, pids, exited } = await startOwner(parent);
  owner.kill('SIGKILL');
  await exited;
  assert.ok(pids.every(isAlive), 'SIGKILL leaves orphans; this is what reaping is for');
  assert.equal(reapOrphans(parent).length, 1);
  await waitForExit(pids); // the reaper's SIGKILL takes effect when each leaves the kernel
  assertNothingLeft(parent, pids);
});

/** Runs cli.ts with its state (normally .stepwise/) in `stateDir`. */
function cli(stateDir: string, args: readonly string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', CLI, ...args],
      { env: { ...process.env, STEPWISE_STATE_DIR: stateDir } },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

test('cli.ts up, with and down share one background cluster and leave nothing', async (t) => {
  const stateDir = privateParent(t);
  t.after(() => cli(stateDir, ['down']));
  const up = await cli(stateDir, ['up']);
  assert.equal(up.code, 0, up.stderr);
  assert.match(up.stderr, /\[cluster\] ready in [\d.]+s/);
  const state = JSON.parse(readFileSync(join(stateDir, 'cluster.json'), 'utf8')) as {
    pid: number;
    kubeconfigPath: string;
    dataDir: string;
  };
  const envFile = readFileSync(join(stateDir, 'cluster.env'), 'utf8');
  assert.match(envFile, new RegExp(`^export KUBECONFIG=${state.kubeconfigPath}$`, 'm'));
  assert.match(envFile, /^export PATH=.+:\$PATH$/m);

  const withUp = await cli(stateDir, ['with', '--', 'sh', '-c', 'echo "$KUBECONFIG"; exit 7']);
  assert.equal(withUp.code, 7);
  assert.equal(withUp.stdout.trim(), state.kubeconfigPath);
  assert.match(withUp.stderr, /using the running cluster/);

  const down = await cli(stateDir, ['down']);
  assert.equal(down.code, 0, down.stderr);
  assert.ok(!isAlive(state.pid), 'the background process is gone');
  assert.deepEqual(processesMentioning(state.dataDir), []);
  assert.ok(!existsSync(state.dataDir));
  assert.deepEqual(
    readdirSync(stateDir).filter((f) => f !== 'cluster.log'),
    [],
  );
});

test('cli.ts with starts a cluster for one command when none is up', async (t) => {
  const stateDir = privateParent(t);
  const script = 'echo "$KUBECONFIG"; kubectl get nodes -o name; exit 3';
  const run = await cli(stateDir, ['with', '--', 'sh', '-c', script]);
  assert.equal(run.code, 3, run.stderr);
  const [kubeconfig = '', ...nodes] = run.stdout.trim().split('\n');
  assert.deepEqual(nodes, ['node/kwok-node-0', 'node/kwok-node-1', 'node/kwok-node-2']);
  assert.match(run.stderr, /\[cluster\] ready in [\d.]+s[\s\S]*\[cluster\] stopped/);
  const dataDir = dirname(kubeconfig);
  assert.ok(!existsSync(dataDir), `${dataDir} removed`);
  assert.deepEqual(processesMentioning(dataDir), []);
});
