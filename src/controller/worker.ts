/**
 * Workers: N async loops over one work queue, each handing a key to the reconciler and putting
 * the outcome back on the queue (controller-runtime's rules): success → forget, and addAfter when
 * a timer matters; error → addRateLimited; TerminalError → forget, counted; panics are errors.
 */
import { errorText } from '../kube/index.ts';
import type { Logger, WorkQueue } from '../kube/index.ts';
import type { Key, Reconciler, Result } from './reconciler.ts';
import { TerminalError } from './reconciler.ts';

export interface WorkerHooks {
  /** Called after each pass with its duration and outcome, for metrics. */
  readonly observe?: (
    seconds: number,
    result: 'success' | 'requeue' | 'error' | 'terminal',
  ) => void;
  /** The log field naming the key (`rollout`, `analysisrun`): the same key as every other line
   *  about that object, so one filter finds them all. Default `key`. */
  readonly keyField?: string;
}

export function runWorkers(
  queue: WorkQueue<Key>,
  reconciler: Reconciler,
  count: number,
  log: Logger,
  signal: AbortSignal,
  hooks: WorkerHooks = {},
): Promise<void> {
  const loops = Array.from({ length: count }, () => loop(queue, reconciler, log, signal, hooks));
  return Promise.all(loops).then(() => undefined);
}

async function loop(
  queue: WorkQueue<Key>,
  reconciler: Reconciler,
  log: Logger,
  signal: AbortSignal,
  hooks: WorkerHooks,
): Promise<void> {
  for (;;) {
    const key = await queue.get();
    if (key === undefined) return;
    const started = performance.now();
    let outcome: 'success' | 'requeue' | 'error' | 'terminal' = 'success';
    try {
      const result: Result = await reconciler.reconcile(key, signal);
      queue.forget(key);
      if (result.requeueAfterMs !== undefined) {
        outcome = 'requeue';
        queue.addAfter(key, result.requeueAfterMs);
      }
    } catch (err) {
      if (err instanceof TerminalError) {
        outcome = 'terminal';
        queue.forget(key);
        log.error('reconcile failed for good', {
          [hooks.keyField ?? 'key']: key,
          error: errorText(err),
        });
      } else {
        outcome = 'error';
        queue.addRateLimited(key);
        log.warn('reconcile failed, retrying with backoff', {
          [hooks.keyField ?? 'key']: key,
          error: errorText(err),
        });
      }
    } finally {
      queue.done(key);
      hooks.observe?.((performance.now() - started) / 1000, outcome);
    }
  }
}
