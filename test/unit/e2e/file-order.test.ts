// The order make e2e starts its files in: the longest first, new files before them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  COMMITTED_DURATIONS,
  e2eFiles,
  orderFiles,
  readDurations,
  recordDurations,
} from '../../e2e/support/file-order.ts';

describe('e2e file order', () => {
  it('starts the longest first, files no hint knows before them, ties by name', () => {
    const files = ['c.test.ts', 'a.test.ts', 'new.test.ts', 'b.test.ts', 'd.test.ts'];
    const local = { 'a.test.ts': 10, 'b.test.ts': 90 };
    const committed = { 'a.test.ts': 500, 'c.test.ts': 50, 'd.test.ts': 50 };
    assert.deepEqual(orderFiles(files, local, committed), [
      'new.test.ts',
      'b.test.ts', // 90, this machine's time
      'c.test.ts', // 50, committed
      'd.test.ts',
      'a.test.ts', // 10: this machine's time wins over the committed 500
    ]);
  });

  it('a missing, torn or odd durations file is no hint, not a failed run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'e2e-order-'));
    assert.deepEqual(readDurations(join(dir, 'none.json')), {});
    writeFileSync(join(dir, 'torn.json'), '{"a.test.ts": 1');
    assert.deepEqual(readDurations(join(dir, 'torn.json')), {});
    writeFileSync(join(dir, 'odd.json'), '{"a.test.ts": "slow", "b.test.ts": 3}');
    assert.deepEqual(readDurations(join(dir, 'odd.json')), { 'b.test.ts': 3 });
  });

  it('a partial run updates its files and keeps the others', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'e2e-order-')), 'd.json');
    recordDurations({ 'a.test.ts': 1, 'b.test.ts': 2 }, path);
    recordDurations({ 'b.test.ts': 5 }, path);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { 'a.test.ts': 1, 'b.test.ts': 5 });
  });

  it('the committed hint names only files that exist', () => {
    const files = new Set(e2eFiles());
    assert.ok(files.size > 0);
    const stale = Object.keys(readDurations(COMMITTED_DURATIONS)).filter((f) => !files.has(f));
    assert.deepEqual(stale, [], 'refresh it: make e2e-durations');
  });
});
