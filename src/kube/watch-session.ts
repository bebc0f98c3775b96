/**
 * One WATCH of an informer, from start to end, with its watchdog: it ends when the server closes
 * it, on 410 (`gone`), when it has been silent for `watchdogMs` (`watchdog`), at `relistAt`
 * (`relist`), or when `end()` is called; it fails on any other error. Every way out cancels the
 * timers and aborts the stream, so no callback runs after the session is over.
 */
import type { Clock } from './clock.ts';
import { isGone, type ApiError } from './errors.ts';
import type { WatchEvent, WatchHandle } from './kube-api.ts';
import type { ListWatchSource, WatchFromOptions } from './listwatch.ts';
import type { KubeObject } from './objects.ts';

export type WatchOutcome = 'closed' | 'watchdog' | 'gone' | 'relist' | 'stopped';

export interface WatchSessionOptions<T extends KubeObject> {
  readonly source: ListWatchSource<T>;
  readonly clock: Clock;
  readonly watch: WatchFromOptions;
  readonly watchdogMs: number;
  /** Clock time at which to end with `relist`; none if absent. */
  readonly relistAt?: number;
  /** Handles one event; throwing a 410 error ends the session `gone`, anything else fails it. */
  readonly onEvent: (e: WatchEvent<T>) => void;
  readonly onWatchdog?: (idleMs: number) => void;
  /** The server accepted the watch (it is open; events may follow). */
  readonly onStarted?: () => void;
}

export interface WatchSession {
  /** Why it ended and how many events it delivered; rejects with the error that broke it. */
  readonly done: Promise<{ outcome: WatchOutcome; events: number }>;
  end(outcome: WatchOutcome): void;
}

export function startWatch<T extends KubeObject>(o: WatchSessionOptions<T>): WatchSession {
  const { clock, watchdogMs } = o;
  let events = 0;
  let lastActivity = clock.now();
  let handle: WatchHandle | undefined;
  let settled = false;
  const cancels: (() => void)[] = [];
  let end: (outcome: WatchOutcome) => void = () => undefined;

  const done = new Promise<{ outcome: WatchOutcome; events: number }>((resolve, reject) => {
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      for (const c of cancels) c();
      handle?.abort();
      return true;
    };
    end = (outcome) => {
      if (finish()) resolve({ outcome, events });
    };
    const fail = (err: unknown): void => {
      if (finish()) reject(err instanceof Error ? err : new Error(String(err)));
    };

    // One timer, re-armed for the remaining time whenever it fires early (no per-event timers).
    const watchdog = (ms: number): void => {
      cancels.push(
        clock.after(ms, () => {
          const idle = clock.now() - lastActivity;
          if (idle < watchdogMs) return watchdog(watchdogMs - idle);
          o.onWatchdog?.(idle);
          end('watchdog');
        }),
      );
    };
    watchdog(watchdogMs);
    if (o.relistAt !== undefined)
      cancels.push(clock.after(o.relistAt - clock.now(), () => end('relist')));

    const onEvent = (e: WatchEvent<T>): void => {
      if (settled) return;
      events++;
      lastActivity = clock.now();
      try {
        o.onEvent(e);
      } catch (err) {
        if (isGone(err)) end('gone');
        else fail(err);
      }
    };
    const onDone = (err?: ApiError): void => {
      if (!err) end('closed');
      else if (isGone(err)) end('gone');
      else fail(err);
    };
    o.source.watch(o.watch, onEvent, onDone).then((h) => {
      handle = h;
      if (settled) h.abort();
      else o.onStarted?.();
    }, fail);
  });
  return { done, end: (outcome) => end(outcome) };
}
