/** Small formatting helpers shared by the renderers (kubectl conventions). */
import { visibleWidth } from './color.ts';

/** kubectl's HumanDuration: 45s, 3m20s, 25m, 5h10m, 20h, 3d4h, 200d, 3y. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** Age of an object from its creation time in ms, or `<unknown>`. */
export const age = (created: number | undefined, now: number): string =>
  created === undefined ? '<unknown>' : humanDuration(now - created);

/** Pads cells to a visible width (ANSI codes do not count). */
export const padEnd = (s: string, width: number): string =>
  s + ' '.repeat(Math.max(0, width - visibleWidth(s)));

/**
 * Columns padded to the widest cell plus `gap` spaces, like kubectl's tabwriter; the last column
 * is not padded and trailing spaces are trimmed.
 */
export function columns(rows: readonly (readonly string[])[], gap = 2): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleWidth(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : padEnd(cell, (widths[i] ?? 0) + gap)))
      .join('')
      .trimEnd(),
  );
}
