// Clusters must not outlive the process that started them. Every running cluster is tracked
// here: on SIGINT/SIGTERM/SIGHUP it is stopped properly before the process exits, and on any
// exit (including an uncaught error) its processes are killed and its directory removed
// synchronously. A SIGKILLed owner cannot clean up; orphans.ts reaps what it leaves.
import { constants } from 'node:os';

export interface Owned {
  /** Orderly stop; must be idempotent. */
  stop(): Promise<void>;
  /** Synchronous kill and removal, for the `exit` event. */
  destroyNow(): void;
}

const live = new Set<Owned>();
const withSignalHandling = new Set<Owned>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let exitHookInstalled = false;

export function track(owned: Owned, handleSignals: boolean): () => void {
  if (!exitHookInstalled) {
    process.on('exit', () => live.forEach((o) => o.destroyNow()));
    exitHookInstalled = true;
  }
  live.add(owned);
  if (handleSignals) {
    if (withSignalHandling.size === 0) SIGNALS.forEach((s) => process.on(s, onSignal));
    withSignalHandling.add(owned);
  }
  return () => {
    live.delete(owned);
    // Once no cluster needs it, the process gets its default signal behaviour back.
    if (withSignalHandling.delete(owned) && withSignalHandling.size === 0) {
      SIGNALS.forEach((s) => process.off(s, onSignal));
    }
  };
}

let stopping = false;
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) return; // a second Ctrl-C while stopping: the exit hook still kills everything
  stopping = true;
  process.stderr.write(`[cluster] ${signal}: stopping the control plane\n`);
  void Promise.allSettled([...withSignalHandling].map((o) => o.stop())).then(() =>
    process.exit(128 + constants.signals[signal]),
  );
}
