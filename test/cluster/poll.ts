// Waiting helpers for the harness: everything here polls loopback endpoints, so a short fixed
// interval is cheaper and simpler than watches.

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface PollOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Checked before every attempt: a component that died makes waiting pointless. */
  readonly abortIf?: () => Error | undefined;
}

/**
 * Calls `probe` until it returns a value other than `undefined`. Errors thrown by the probe count
 * as "not yet" (the endpoint may not listen yet); the last one is reported on timeout.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  opts: PollOptions,
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const fatal = opts.abortIf?.();
    if (fatal) throw fatal;
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}${detail}`);
    }
    await sleep(opts.intervalMs ?? 100);
  }
}
