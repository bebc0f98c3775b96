/**
 * The time expressions of a Prometheus `rangeQuery` (`start`, `end`), as Argo users write them
 * in expr-lang: `now()`, `now() - duration("5m")` (or `+`), or an RFC 3339 timestamp, after
 * `{{args.x}}` substitution. A dedicated little parser: nothing else of expr-lang is meaningful
 * here, and nothing is evaluated. Pure: the clock is passed in.
 */
import { parseGoDuration } from '../../api/duration.ts';

export type TimeResult =
  { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string };

const NOW_OFFSET = /^now\(\)\s*(?:([+-])\s*duration\(\s*(?:"([^"]*)"|'([^']*)')\s*\))?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function parseRangeTime(text: string, nowMs: number): TimeResult {
  const source = text.trim();
  const m = NOW_OFFSET.exec(source);
  if (m !== null) {
    const [, sign, dq, sq] = m;
    if (sign === undefined) return { ok: true, ms: nowMs };
    const d = parseGoDuration(dq ?? sq ?? '');
    if (!d.ok) return { ok: false, error: `${JSON.stringify(text)}: duration ${d.error}` };
    return { ok: true, ms: sign === '-' ? nowMs - d.value : nowMs + d.value };
  }
  if (RFC3339.test(source)) {
    const ms = Date.parse(source);
    if (!Number.isNaN(ms)) return { ok: true, ms };
  }
  return {
    ok: false,
    error:
      `${JSON.stringify(text)} is not a time: write now(), now() - duration("5m") ` +
      'or an RFC 3339 timestamp',
  };
}
