// node test/cluster/cli.ts up            start a cluster in the background; then
//                                        `source .stepwise/cluster.env`
// node test/cluster/cli.ts down          stop it
// node test/cluster/cli.ts status        say whether one is running
// node test/cluster/cli.ts with -- CMD   run CMD with KUBECONFIG and PATH set, on the cluster
//                                        `up` left running if it is healthy, else on a fresh
//                                        one that lives as long as CMD; exits with CMD's code
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolveBinDir } from './binaries.ts';
import { startCluster, type Cluster } from './cluster.ts';
import type { DaemonMessage } from './daemon.ts';
import { isAlive, reapOrphans, waitForExit } from './orphans.ts';
import { tailFile } from './process.ts';
import * as state from './state.ts';

const say = (line: string): void => void process.stderr.write(`[cluster] ${line}\n`);
const DAEMON = fileURLToPath(new URL('./daemon.ts', import.meta.url));

async function up(): Promise<number> {
  const existing = state.readState();
  if (existing && (await state.isHealthy(existing))) {
    say(`already running at ${existing.server} (pid ${existing.pid})`);
    say(`use it with: source ${state.ENV_FILE}`);
    return 0;
  }
  if (existing) await stopDaemon(existing);
  const binDir = await resolveBinDir();
  mkdirSync(state.STATE_DIR, { recursive: true });
  const logFd = openSync(state.DAEMON_LOG, 'w');
  const daemon = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', DAEMON], {
    detached: true, // its own session: it outlives this command and the terminal's Ctrl-C
    stdio: ['ignore', logFd, logFd, 'ipc'],
    env: { ...process.env, STEPWISE_K8S_ASSETS: binDir },
  });
  closeSync(logFd);
  const abandon = () => daemon.kill('SIGTERM'); // Ctrl-C while starting: take it down too
  process.once('SIGINT', abandon).once('SIGTERM', abandon);
  const outcome = await new Promise<DaemonMessage | undefined>((resolve) => {
    daemon.on('message', (m: DaemonMessage) => (m.kind === 'log' ? say(m.line) : resolve(m)));
    daemon.on('exit', () => resolve(undefined));
  });
  process.off('SIGINT', abandon).off('SIGTERM', abandon);
  if (outcome?.kind !== 'ready') {
    say(`the cluster did not start; last lines of ${state.DAEMON_LOG}:`);
    process.stderr.write(tailFile(state.DAEMON_LOG, 40) + '\n');
    return 1;
  }
  daemon.disconnect();
  daemon.unref();
  say(`running in the background (pid ${daemon.pid}); log: ${state.DAEMON_LOG}`);
  say(`use it with: source ${state.ENV_FILE}   stop it with: make cluster-down`);
  return 0;
}

async function down(): Promise<number> {
  const existing = state.readState();
  if (!existing) {
    state.removeState();
    say('no cluster is running');
    return 0;
  }
  await stopDaemon(existing);
  say('stopped');
  return 0;
}

/** SIGTERM to the owner (it stops its cluster), SIGKILL if it hangs, then reap leftovers. */
async function stopDaemon(s: state.ClusterState): Promise<void> {
  if (isAlive(s.pid)) {
    say(`stopping the cluster at ${s.server} (pid ${s.pid})...`);
    process.kill(s.pid, 'SIGTERM');
    await waitForExit([s.pid], 30_000);
    if (isAlive(s.pid)) process.kill(s.pid, 'SIGKILL');
    await waitForExit([s.pid]);
  }
  reapOrphans(tmpdir()); // covers an owner that died without stopping its components
  state.removeState();
}

async function status(): Promise<number> {
  const s = state.readState();
  if (s && (await state.isHealthy(s))) {
    say(`running at ${s.server} (pid ${s.pid}, since ${s.startedAt}); env: ${state.ENV_FILE}`);
    return 0;
  }
  say(s ? `not healthy (pid ${s.pid}); run: make cluster-down` : 'no cluster is running');
  return 1;
}

async function withCluster(command: readonly string[]): Promise<number> {
  const [cmd, ...args] = command;
  if (!cmd) throw new Error('usage: cli.ts with -- COMMAND [ARGS...]');
  // Signals: during the start they abort it (the harness cleans up); later they go to the
  // command, and the cluster stops once the command has exited. SIGINT is not forwarded: a
  // Ctrl-C reaches the command directly, as it shares our terminal's process group.
  const aborter = new AbortController();
  let child: ChildProcess | undefined;
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    if (!child) aborter.abort();
    else if (signal !== 'SIGINT') child.kill(signal);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  signals.forEach((sig) => process.on(sig, onSignal));
  let fresh: Cluster | undefined;
  try {
    const existing = state.readState();
    let env: NodeJS.ProcessEnv;
    if (existing && (await state.isHealthy(existing))) {
      say(`using the running cluster at ${existing.server} (pid ${existing.pid})`);
      env = state.clusterEnv(existing);
    } else {
      if (existing) say(`the cluster in ${state.STATE_FILE} is gone; starting a fresh one`);
      fresh = await startCluster({ handleSignals: false, signal: aborter.signal });
      env = state.clusterEnv(fresh);
    }
    if (received) return 128 + signalNumber(received);
    const running = spawn(cmd, args, { stdio: 'inherit', env });
    child = running;
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => {
        running.on('exit', (code, signal) => resolve({ code, signal }));
        running.on('error', (err) => {
          say(`cannot run ${cmd}: ${err.message}`);
          resolve({ code: 127, signal: null });
        });
      },
    );
    return exit.code ?? 128 + signalNumber(exit.signal);
  } catch (err) {
    if (received) return 128 + signalNumber(received);
    throw err;
  } finally {
    if (fresh) {
      say('stopping the cluster...');
      await fresh.stop();
      say('stopped');
    }
    signals.forEach((sig) => process.off(sig, onSignal));
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? constants.signals[signal] : 1;
}

const COMMANDS: Record<string, (rest: readonly string[]) => Promise<number>> = {
  up,
  down,
  status,
  with: (rest) => withCluster(rest[0] === '--' ? rest.slice(1) : rest),
};

async function main([verb = '', ...rest]: readonly string[]): Promise<number> {
  const command = COMMANDS[verb];
  if (command) return command(rest);
  process.stderr.write('usage: cli.ts up | down | status | with -- COMMAND [ARGS...]\n');
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
