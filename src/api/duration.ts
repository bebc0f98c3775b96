/**
 * Go duration strings (`time.ParseDuration`: "30s", "5m", "1h30m", "1.5h", "500ms"), as Argo
 * reads `pause.duration`, a metric's `interval`, `initialDelay` and `rangeQuery.step`, in whole
 * milliseconds (sub-millisecond parts are truncated). Pure, never throws. Negative durations are
 * refused: Go accepts them, but no field of ours has a meaning for one.
 */
export type DurationResult =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly error: string };

/** Go's own limit: durations are int64 nanoseconds (about 292 years). */
export const GO_MAX_DURATION_NS = 2n ** 63n - 1n;

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

/** Parses `s` (an optional leading `+`; `"0"` alone) and refuses anything above `maxNs`. */
export function parseGoDuration(s: string, maxNs = GO_MAX_DURATION_NS): DurationResult {
  const bad = (why: string): DurationResult => ({
    ok: false,
    error: `must be a duration such as "30s", "5m" or "1h30m" (${why}), got ${JSON.stringify(s)}`,
  });
  let rest = s;
  if (rest.startsWith('-'))
    return { ok: false, error: `must not be negative, got ${JSON.stringify(s)}` };
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
    if (ns > maxNs) {
      return {
        ok: false,
        error: `must be at most ${maxNs / 1_000_000_000n} seconds, got ${JSON.stringify(s)}`,
      };
    }
    pos = COMPONENT.lastIndex;
  }
  return { ok: true, value: Number(ns / 1_000_000n) };
}
