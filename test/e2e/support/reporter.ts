/**
 * The end-to-end run's reporter (`make e2e`): node's spec reporter, unchanged, plus how long each
 * test file took, slowest first. With several files at once the wall time is what matters, and
 * the slowest files are the ones to look at when it grows.
 *
 * The times are also kept for the next run's order (.stepwise/e2e-durations.json, file-order.ts).
 *
 * The table goes out as diagnostics (`ℹ` lines) just before node's own closing ones, so the
 * run still ends with "ℹ tests N … ℹ pass N ℹ fail N … ℹ duration_ms N" as every node test run.
 *
 *   node --test --test-reporter=./test/e2e/support/reporter.ts --test-reporter-destination=stdout
 */
import { relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';
import type { TestEvent } from 'node:test/reporters';
import { hintKey, recordDurations } from './file-order.ts';

interface FileTime {
  readonly file: string;
  readonly ms: number;
  readonly passed: boolean;
}

export default async function* e2eReporter(
  source: AsyncIterable<TestEvent>,
): AsyncGenerator<string | Buffer> {
  for await (const chunk of Readable.from(withFileTimes(source)).compose(spec())) {
    yield chunk as string | Buffer;
  }
}

/** The events, with the per-file table added before the run's first closing diagnostic. */
async function* withFileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<TestEvent> {
  const files: FileTime[] = [];
  let tabled = false;
  for await (const event of source) {
    if (event.type === 'test:complete' && isFile(event.data)) {
      files.push({
        file: event.data.file ?? event.data.name,
        ms: event.data.details.duration_ms,
        passed: event.data.details.passed,
      });
    }
    if (!tabled && files.length > 0 && isClosingDiagnostic(event)) {
      tabled = true;
      recordDurations(Object.fromEntries(files.map((f) => [hintKey(f.file), Math.round(f.ms)])));
      for (const message of table(files)) {
        yield { type: 'test:diagnostic', data: { ...event.data, message } } as TestEvent;
      }
    }
    yield event;
  }
}

/** Under process isolation each file is a top-level test named by its path (from the cwd). */
const isFile = (d: { nesting: number; name: string; file?: string }): boolean =>
  d.nesting === 0 && d.file !== undefined && resolve(d.name) === d.file;

/** The runner's own summary lines: top-level diagnostics that belong to no file. */
const isClosingDiagnostic = (e: TestEvent): boolean =>
  e.type === 'test:diagnostic' && e.data.nesting === 0 && e.data.file === undefined;

function table(files: readonly FileTime[]): string[] {
  const slowest = [...files].sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  return [
    `file durations: ${files.length} files, ${seconds(total)} s in all`,
    ...slowest.map(
      (f) =>
        `${seconds(f.ms).padStart(7)} s  ${relative(process.cwd(), f.file)}` +
        (f.passed ? '' : '  (failed)'),
    ),
  ];
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);
