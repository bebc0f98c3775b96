/**
 * Writes (`--write`) or checks (`--check`) deploy/crds/*.yaml against the schema source.
 * `make crds` writes; `make test` checks and fails on drift.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { allCrds } from './crd.ts';

const HEADER = '# Generated from src/api by `make crds`. Do not edit by hand.\n';

export function renderCrds(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, crd] of allCrds()) {
    files.set(name, HEADER + dump(crd, { noRefs: true, lineWidth: 120, sortKeys: false }));
  }
  return files;
}

function main(argv: readonly string[]): number {
  const dir = join(import.meta.dirname, '..', '..', 'deploy', 'crds');
  const mode = argv[0];
  let drift = 0;
  for (const [name, text] of renderCrds()) {
    const path = join(dir, name);
    if (mode === '--write') {
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    } else if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
      console.error(`${path} differs from what src/api generates: run 'make crds' and commit it`);
      drift++;
    }
  }
  return drift === 0 ? 0 : 1;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
