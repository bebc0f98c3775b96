/**
 * The process's signals. SIGTERM and SIGINT stop the manager gracefully once it is wired; before
 * that they exit at once. SIGUSR2 writes a heap snapshot (an operator's tool).
 */
import { writeHeapSnapshot } from 'node:v8';
import type { Logger } from '../kube/index.ts';
import { errorText } from '../kube/index.ts';
import { ExitCode } from './config.ts';

/**
 * In a container the controller is PID 1, and the kernel ignores signals PID 1 has no handler
 * for: until the graceful shutdown is wired (after the caches sync, which can take long or never
 * happen when the CRDs or RBAC are missing), a stop must still stop it. Nothing leads and nothing
 * is written yet, so there is nothing to release. Returns the unwiring.
 */
export function exitOnSignalUntilWired(): () => void {
  const exit = (): void => process.exit(ExitCode.ok);
  process.once('SIGTERM', exit).once('SIGINT', exit);
  return () => process.off('SIGTERM', exit).off('SIGINT', exit);
}

/** Replaces the early exit with `stop`, and answers SIGUSR2 with a heap snapshot. */
export function wireSignals(
  unwireEarlyExit: () => void,
  stop: (signal: 'SIGTERM' | 'SIGINT') => void,
  log: Logger,
): void {
  // Written to the working dir. Where that is read-only (the image's /tmp without a volume) it is
  // a log line, not a crash.
  process.on('SIGUSR2', () => {
    try {
      log.info('heap snapshot written', { file: writeHeapSnapshot() });
    } catch (err) {
      log.error('heap snapshot not written', { cwd: process.cwd(), error: errorText(err) });
    }
  });
  unwireEarlyExit();
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
