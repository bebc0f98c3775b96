/**
 * The order `make e2e` hands the test files to node's runner, which starts them in that order,
 * E2E_CONCURRENCY at a time: the longest first (so that no long file starts last and runs alone
 * at the end), files with no recorded time before them (a new file may be long).
 *
 * Times come from the last runs on this machine (.stepwise/e2e-durations.json, written by the
 * reporter) and, for a fresh clone, from test/e2e/durations.json: a hint committed from a warm
 * run, refreshed with `make e2e-durations`. A stale hint only costs a worse order.
 *
 *   node test/e2e/support/file-order.ts        prints the files, one per line
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync, globSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';

export const LOCAL_DURATIONS = join(REPO_ROOT, '.stepwise', 'e2e-durations.json');
export const COMMITTED_DURATIONS = join(REPO_ROOT, 'test', 'e2e', 'durations.json');

/** File path (from the repository root) → milliseconds. */
export type Durations = Readonly<Record<string, number>>;

export function readDurations(path: string): Durations {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number'),
    );
  } catch {
    return {}; // a torn or hand-edited file: no hint rather than no run
  }
}

/** Longest first; files no hint knows lead (in name order), as they may be the longest. */
export function orderFiles(files: readonly string[], ...hints: readonly Durations[]): string[] {
  const known = (f: string): number | undefined =>
    hints.map((h) => h[f]).find((ms) => ms !== undefined);
  const unknown = files.filter((f) => known(f) === undefined).sort();
  const timed = files
    .filter((f) => known(f) !== undefined)
    .sort((a, b) => (known(b) ?? 0) - (known(a) ?? 0) || a.localeCompare(b));
  return [...unknown, ...timed];
}

/** Records this run's file times over the earlier ones (a partial run keeps the others). */
export function recordDurations(times: Durations, path = LOCAL_DURATIONS): void {
  const merged = { ...readDurations(path), ...times };
  mkdirSync(dirname(path), { recursive: true });
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(path, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** Every end-to-end file, from the repository root (where make runs). */
export const e2eFiles = (): string[] => globSync('test/e2e/**/*.test.ts', { cwd: REPO_ROOT });

/** A file as the runner names it (absolute), as the hints name it. */
export const hintKey = (file: string): string => relative(REPO_ROOT, file);

if (import.meta.main) {
  const order = orderFiles(
    e2eFiles(),
    readDurations(LOCAL_DURATIONS),
    readDurations(COMMITTED_DURATIONS),
  );
  process.stdout.write(`${order.join('\n')}\n`);
}
