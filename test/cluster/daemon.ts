// The background process behind `cli.ts up`: starts a cluster, records it in .stepwise/, and
// keeps it until SIGTERM (`cli.ts down`). Progress goes to its log (stdout) and, while `up`
// waits, to `up` over the IPC channel.
import { startCluster } from './cluster.ts';
import { removeState, writeState, type ClusterState } from './state.ts';

export type DaemonMessage =
  | { readonly kind: 'log'; readonly line: string }
  | { readonly kind: 'ready'; readonly state: ClusterState }
  | { readonly kind: 'failed'; readonly message: string };

function send(message: DaemonMessage): void {
  if (process.connected) process.send?.(message);
}

function log(line: string): void {
  process.stdout.write(`[cluster] ${line}\n`);
  send({ kind: 'log', line });
}

try {
  // SIGTERM from `cli.ts down` (or during the start): the harness stops the cluster, exits.
  const cluster = await startCluster({ log, handleSignals: true });
  const state: ClusterState = {
    pid: process.pid,
    kubeconfigPath: cluster.kubeconfigPath,
    server: cluster.server,
    binDir: cluster.binDir,
    dataDir: cluster.dataDir,
    startedAt: new Date().toISOString(),
  };
  // However this process ends, .stepwise/ must not keep pointing at a cluster that is gone.
  process.on('exit', () => removeState(process.pid));
  writeState(state);
  send({ kind: 'ready', state });
} catch (err) {
  const message = err instanceof Error ? err.message : String(err);
  log(`start failed: ${message}`);
  send({ kind: 'failed', message });
  process.exitCode = 1;
}
