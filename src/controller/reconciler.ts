/**
 * The reconcile contract (controller-runtime's): a key in, "come back after T" or nothing out.
 * Errors back off per key; a TerminalError is not retried (the next change to the object will
 * bring it back).
 */
import type { NamespacedKey } from '../kube/index.ts';

export type Key = NamespacedKey;

export interface Result {
  /** Absent: wait for the next event. */
  readonly requeueAfterMs?: number;
}

export class TerminalError extends Error {
  override name = 'TerminalError';
}

export interface Reconciler {
  reconcile(key: Key, signal: AbortSignal): Promise<Result>;
}
