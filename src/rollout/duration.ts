// Durations as Argo Rollouts reads them, in milliseconds. Pure: no I/O, no throw.
//
// `pause.duration` (Argo's `RolloutPause.DurationSeconds`) is an IntOrString: an integer number
// of seconds (`30`, or the string `"30"`), or a Go duration string (`"30s"`, `"5m"`, `"1h30m"`,
// `"1.5h"`, `"500ms"`) as parsed by Go's `time.ParseDuration`. Anything else, and anything
// negative, is invalid (Argo: "Duration needs to be greater than 0").

export type DurationResult =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly error: string };

/** Argo stores pause seconds as int32. */
export const MAX_DURATION_SECONDS = 2 ** 31 - 1;
const MAX_NS = BigInt(MAX_DURATION_SECONDS) * 1_000_000_000n;

// Nanoseconds per unit, as in Go's time package (both micro signs are accepted there).
const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

// One `<number><unit>` component: digits, an optional fraction, then a unit made of anything
// that is not a digit or a dot (Go's rule; unknown units are rejected below).
const COMPONENT = /([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/y;

function fail(error: string): DurationResult {
  return { ok: false, error };
}

function tooLarge(s: string): DurationResult {
  return fail(`must be at most ${MAX_DURATION_SECONDS} seconds, got ${JSON.stringify(s)}`);
}

/**
 * Parses a Go duration string (`time.ParseDuration` grammar: a sequence of decimal numbers, each
 * with an optional fraction and a unit ns, us, µs, ms, s, m, h; an optional leading `+`; `"0"`
 * alone) into whole milliseconds (sub-millisecond parts are truncated). Negative durations and
 * anything above {@link MAX_DURATION_SECONDS} are rejected.
 */
export function parseGoDuration(s: string): DurationResult {
  const bad = (why: string): DurationResult =>
    fail(`must be a duration such as "30s", "5m" or "1h30m" (${why}), got ${JSON.stringify(s)}`);
  let rest = s;
  if (rest.startsWith('-')) return fail(`must not be negative, got ${JSON.stringify(s)}`);
  if (rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return { ok: true, value: 0 };
  if (rest === '') return bad('empty');
  let ns = 0n;
  let pos = 0;
  while (pos < rest.length) {
    COMPONENT.lastIndex = pos;
    const m = COMPONENT.exec(rest);
    const whole = m?.[1] ?? '';
    const frac = m?.[2] ?? '';
    const unit = m?.[3] ?? '';
    if (m === null || (whole === '' && frac === '')) return bad('a number is missing');
    if (unit === '') return bad('a unit is missing');
    const perUnit = UNIT_NS.get(unit);
    if (perUnit === undefined) return bad(`unknown unit ${JSON.stringify(unit)}`);
    ns += BigInt(whole === '' ? '0' : whole) * perUnit;
    if (frac !== '') ns += (BigInt(frac) * perUnit) / 10n ** BigInt(frac.length);
    if (ns > MAX_NS) return tooLarge(s);
    pos = COMPONENT.lastIndex;
  }
  return { ok: true, value: Number(ns / 1_000_000n) };
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
