// A bench's watch on one collection that outlives the server ending it (its timeout, a slow
// watcher dropped, a connection reset): it is opened again from the last resourceVersion seen
// (bookmarks included), or from the current state when that version has expired (410), and every
// such gap is counted, so that a measurement spanning one can be repeated instead of reported
// (the arrival times of events delivered after a gap are the reconnect's, not the change's).
import type { KubeHttp, WatchEvent } from '../cluster/kube-http.ts';

/** How often a watch that cannot be opened again is retried before the bench gives up. */
const REOPEN_ATTEMPTS = 10;

export interface ResumableWatchOptions {
  /** An event (never BOOKMARK or ERROR) with its arrival time on the bench's clock. */
  readonly onEvent: (type: string, obj: Record<string, unknown>, at: number) => void;
  /** The watch ended and was opened again: what it delivered in between may be late. */
  readonly onGap?: (why: string) => void;
  /** It could not be opened again: the bench cannot go on. */
  readonly onFailed?: (err: Error) => void;
  /** Wait before the n-th retry of an open that failed: n × this. Default 200 ms. */
  readonly retryDelayMs?: number;
}

export interface ResumableWatch {
  /** How many times it has been opened again. */
  readonly gaps: number;
  close(): void;
}

const resourceVersionOf = (obj: Record<string, unknown>): string | undefined =>
  (obj['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion;

/** Resolves once the first watch is open, so that events after it are not missed. */
export async function resumableWatch(
  http: Pick<KubeHttp, 'watch'>,
  path: string,
  o: ResumableWatchOptions,
): Promise<ResumableWatch> {
  let rv: string | undefined;
  let closed = false;
  let gaps = 0;
  let current: { close(): void } | undefined;
  const sep = path.includes('?') ? '&' : '?';

  const onEvent = (e: WatchEvent): void => {
    if (e.type === 'ERROR') {
      // 410 Gone: the version we would resume from has expired; start from the current state.
      const code = (e.object as { code?: number }).code;
      if (code === 410) rv = undefined;
      return;
    }
    rv = resourceVersionOf(e.object) ?? rv;
    if (e.type === 'BOOKMARK') return;
    o.onEvent(e.type, e.object, performance.timeOrigin + performance.now());
  };

  const open = (): Promise<{ close(): void }> => {
    const query = rv === undefined ? '' : `resourceVersion=${rv}&allowWatchBookmarks=true`;
    return http.watch(query === '' ? path : `${path}${sep}${query}`, onEvent, () => {
      void reopen('the server ended the watch');
    });
  };

  const reopen = async (why: string): Promise<void> => {
    if (closed) return;
    gaps++;
    o.onGap?.(`${path}: ${why}`);
    for (let attempt = 1; !closed; attempt++) {
      try {
        current = await open();
        if (closed) current.close();
        return;
      } catch (err) {
        // A resourceVersion the server refuses outright: from the current state instead.
        if (String(err).includes('HTTP 410')) rv = undefined;
        if (attempt >= REOPEN_ATTEMPTS) {
          o.onFailed?.(
            new Error(
              `${path}: watch could not be opened again (${attempt} tries): ${String(err)}`,
            ),
          );
          return;
        }
        await new Promise((r) => setTimeout(r, (o.retryDelayMs ?? 200) * attempt));
      }
    }
  };

  current = await open();
  return {
    get gaps() {
      return gaps;
    },
    close() {
      closed = true;
      current?.close();
    },
  };
}
