// Durations as Argo Rollouts reads them, in milliseconds. Pure: no I/O, no throw.
//
// `pause.duration` (Argo's `RolloutPause.DurationSeconds`) is an IntOrString: an integer number
// of seconds (`30`, or the string `"30"`), or a Go duration string (`"30s"`, `"5m"`, `"1h30m"`,
// `"1.5h"`, `"500ms"`) as parsed by Go's `time.ParseDuration`. Anything else, and anything
// negative, is invalid (Argo: "Duration needs to be greater than 0").

import { parseGoDuration as parseAnyGoDuration } from './duration.ts';
import type { DurationResult } from './duration.ts';

export type { DurationResult };

/** Argo stores pause seconds as int32. */
export const MAX_DURATION_SECONDS = 2 ** 31 - 1;

function fail(error: string): DurationResult {
  return { ok: false, error };
}

function tooLarge(s: string): DurationResult {
  return fail(`must be at most ${MAX_DURATION_SECONDS} seconds, got ${JSON.stringify(s)}`);
}

/**
 * Parses `pause.duration`: a non-negative integer number of seconds (number or numeric string,
 * as Argo's `strconv.ParseInt` path accepts, e.g. `"30"`, `"+30"`), else a Go duration string.
 * Returns milliseconds. Argo truncates the result to whole seconds (`"1500ms"` pauses 1 s);
 * we keep millisecond precision.
 */
export function parsePauseDuration(v: number | string): DurationResult {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) return fail(`must be a whole number of seconds, got ${v}`);
    if (v < 0) return fail(`must not be negative, got ${v}`);
    if (v > MAX_DURATION_SECONDS) return tooLarge(String(v));
    return { ok: true, value: v * 1000 };
  }
  if (/^[+-]?[0-9]+$/.test(v)) {
    const seconds = BigInt(v);
    if (seconds < 0n) return fail(`must not be negative, got ${JSON.stringify(v)}`);
    if (seconds > BigInt(MAX_DURATION_SECONDS)) return tooLarge(v);
    return { ok: true, value: Number(seconds) * 1000 };
  }
  return parseGoDuration(v);
}

/** A Go duration string up to {@link MAX_DURATION_SECONDS}, in milliseconds. */
export function parseGoDuration(s: string): DurationResult {
  return parseAnyGoDuration(s, BigInt(MAX_DURATION_SECONDS) * 1_000_000_000n);
}
