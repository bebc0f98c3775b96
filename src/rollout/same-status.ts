/**
 * Whether two statuses say the same thing. Absent, false, null and empty lists are the same
 * (server-side apply omits what we leave out; the plugin may have written `abort: false`), so a
 * settled Rollout compares equal and no write follows.
 */
import { canonicalJson } from '../api/canonical-json.ts';

export function sameStatus(a: object, b: object): boolean {
  return canonicalJson(normalize(a)) === canonicalJson(normalize(b));
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || v === null || v === false) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = normalize(v);
  }
  return out;
}
