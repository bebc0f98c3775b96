/**
 * PURE, shared by the server and the page: the list's filters and counts. No imports but
 * types, so the page's bundle carries only this.
 */
import type { Phase, RowView, Viewer } from './wire.ts';

export interface ListFilter {
  readonly phase?: Phase | undefined;
  readonly namespace?: string | undefined;
  /** Only the Rollouts that want a person. */
  readonly needsMe?: boolean | undefined;
  /** Only the Rollouts whose approval step asks the viewer, who has not decided yet. */
  readonly awaitingMe?: boolean | undefined;
  /** Case-insensitive, in the name, the namespace and the images. */
  readonly search?: string | undefined;
}

/** Whether the row's approval step asks `viewer` (by name or group, or anyone when it names
 *  nobody) and they have not approved in this wait. Unknown viewer: no. */
export function awaitsViewer(r: RowView, viewer: Viewer | undefined): boolean {
  const ask = r.approval;
  if (ask === undefined || viewer === undefined) return false;
  if (ask.decided.includes(viewer.username)) return false;
  if (ask.users.length === 0 && ask.groups.length === 0) return true;
  return ask.users.includes(viewer.username) || ask.groups.some((g) => viewer.groups.includes(g));
}

export function filterRows(rows: readonly RowView[], f: ListFilter, viewer?: Viewer): RowView[] {
  const words = (f.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter(
    (r) =>
      (f.phase === undefined || r.phase === f.phase) &&
      (f.namespace === undefined || r.namespace === f.namespace) &&
      (!f.needsMe || r.needsMe !== undefined) &&
      (!f.awaitingMe || awaitsViewer(r, viewer)) &&
      words.every((w) =>
        [r.name, r.namespace, ...r.images].some((s) => s.toLowerCase().includes(w)),
      ),
  );
}

/** Rollouts per phase, every phase present (zero included), how many want a person, and how
 *  many await the viewer's approval. */
export function countRows(
  rows: readonly RowView[],
  viewer?: Viewer,
): {
  byPhase: Record<Phase, number>;
  needsMe: number;
  awaitingMe: number;
} {
  const byPhase: Record<Phase, number> = { Progressing: 0, Paused: 0, Degraded: 0, Healthy: 0 };
  let needsMe = 0;
  let awaitingMe = 0;
  for (const r of rows) {
    byPhase[r.phase] += 1;
    if (r.needsMe !== undefined) needsMe += 1;
    if (awaitsViewer(r, viewer)) awaitingMe += 1;
  }
  return { byPhase, needsMe, awaitingMe };
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
