// src/approval stays pure: no I/O but node:crypto, nothing from src/ but src/api, small files.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const dirs = ['approval', 'notify'].map((m) => join(import.meta.dirname, '../../../src', m));

test('src/approval imports only node:crypto and src/api', () => {
  const dir = dirs[0] ?? '';
  for (const f of readdirSync(dir)) {
    const src = readFileSync(join(dir, f), 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)[^'"]*?from\s+'([^']+)'/gm)) {
      const spec = m[1] ?? '';
      assert.ok(
        spec === 'node:crypto' || spec.startsWith('./') || spec.startsWith('../api/'),
        `${f} imports ${spec}`,
      );
    }
  }
});

test('src/approval and src/notify files stay small (one concern each)', () => {
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      const lines = readFileSync(join(dir, f), 'utf8').split('\n').length;
      assert.ok(lines <= 330, `${f} has ${lines} lines`);
    }
  }
});
