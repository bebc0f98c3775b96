/**
 * Writes (`--write`, `make docs`) or checks (`--check`) docs/plugin.md against the plugin's own
 * command definitions (reference.ts). The unit test test/unit/cli/reference.test.ts checks it too.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandReference } from './reference.ts';

export const REFERENCE_FILE = join(import.meta.dirname, '..', '..', 'docs', 'plugin.md');

function main(argv: readonly string[]): number {
  const text = commandReference();
  if (argv[0] === '--write') {
    writeFileSync(REFERENCE_FILE, text);
    console.log(`wrote ${REFERENCE_FILE}`);
    return 0;
  }
  if (existsSync(REFERENCE_FILE) && readFileSync(REFERENCE_FILE, 'utf8') === text) return 0;
  console.error(
    `${REFERENCE_FILE} differs from the plugin's commands: run 'make docs' and commit it`,
  );
  return 1;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
