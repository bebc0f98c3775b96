/**
 * PURE, shared by the server and the page: the list's filters and counts. No imports but
 * types, so the page's bundle carries only this.
 */
import type { Phase, RowView } from './wire.ts';

export interface ListFilter {
  readonly phase?: Phase | undefined;
  readonly namespace?: string | undefined;
  /** Only the Rollouts that want a person. */
  readonly needsMe?: boolean | undefined;
  /** Case-insensitive, in the name, the namespace and the images. */
  readonly search?: string | undefined;
}

export function filterRows(rows: readonly RowView[], f: ListFilter): RowView[] {
  const words = (f.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter(
    (r) =>
      (f.phase === undefined || r.phase === f.phase) &&
      (f.namespace === undefined || r.namespace === f.namespace) &&
      (!f.needsMe || r.needsMe !== undefined) &&
      words.every((w) =>
        [r.name, r.namespace, ...r.images].some((s) => s.toLowerCase().includes(w)),
      ),
  );
}

/** Rollouts per phase, every phase present (zero included), and how many want a person. */
export function countRows(rows: readonly RowView[]): {
  byPhase: Record<Phase, number>;
  needsMe: number;
} {
  const byPhase: Record<Phase, number> = { Progressing: 0, Paused: 0, Degraded: 0, Healthy: 0 };
  let needsMe = 0;
  for (const r of rows) {
    byPhase[r.phase] += 1;
    if (r.needsMe !== undefined) needsMe += 1;
  }
  return { byPhase, needsMe };
}

/** The namespaces in the list, sorted: the namespace filter's choices. */
export const namespacesOf = (rows: readonly RowView[]): string[] =>
  [...new Set(rows.map((r) => r.namespace))].sort();

/** `1m05s`, `59s`, `0s`: the time left on a timed pause. */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${String(sec).padStart(2, '0')}s`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}
