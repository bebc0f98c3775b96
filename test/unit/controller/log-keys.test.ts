// Every log line about a Rollout names it the same way, `rollout: "namespace/name"`, so one
// filter (`jq 'select(.rollout=="shop/web")'`) finds them all: no line may name it by a bare
// `key`, or by `name`/`namespace` fields of their own. Read from the sources of the controller's
// modules (the plugin and the dashboard do not write these logs).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../../cluster/state.ts';

const SRC = join(REPO_ROOT, 'src');
const NOT_LOGGING = ['cli', 'dashboard'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return NOT_LOGGING.includes(e.name) && dir === SRC ? [] : sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The argument text of each `log.level(...)` call (parentheses balanced). */
function logCalls(text: string): string[] {
  const calls: string[] = [];
  const start = /\b(?:log|logger|#log)\.(?:debug|info|warn|error)\(/g;
  for (const m of text.matchAll(start)) {
    let depth = 1;
    let i = (m.index ?? 0) + m[0].length;
    const from = i;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    calls.push(text.slice(from, i - 1));
  }
  return calls;
}

const FORBIDDEN = /(?:[{,]\s*)(key|name|namespace|rolloutName|rolloutKey)\s*(?=[:,}])/;

describe('log keys', () => {
  it('finds the log calls it checks', () => {
    const calls = sources(SRC).flatMap((f) => logCalls(readFileSync(f, 'utf8')));
    assert.ok(calls.length > 40, `${calls.length} log calls`);
    assert.ok(calls.some((c) => /rollout: key/.test(c)));
  });

  it('no line names a Rollout by `key`, `name` or `namespace`: `rollout` is namespace/name', () => {
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      for (const call of logCalls(readFileSync(file, 'utf8'))) {
        const m = FORBIDDEN.exec(call);
        if (m) offenders.push(`${relative(REPO_ROOT, file)}: ${m[1]} in ${call.slice(0, 120)}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('would catch one', () => {
    const [call] = logCalls("log.warn('reconcile failed', { key, error: errorText(err) });");
    assert.ok(call !== undefined && FORBIDDEN.test(call));
    const [ok] = logCalls("log.warn('reconcile failed', { rollout: key, error });");
    assert.ok(ok !== undefined && !FORBIDDEN.test(ok));
  });
});
