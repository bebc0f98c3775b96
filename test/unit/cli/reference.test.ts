// docs/plugin.md is generated from the plugin's own command tree (src/cli/reference.ts): a flag,
// command or help text changed in the code without `make docs` fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { commandPaths, commandReference, inertProgram } from '../../../src/cli/reference.ts';
import { REFERENCE_FILE } from '../../../src/cli/reference-gen.ts';

describe('docs/plugin.md', () => {
  it('is what `make docs` generates from the command definitions (run it and commit)', () => {
    const committed = readFileSync(REFERENCE_FILE, 'utf8');
    assert.equal(committed, commandReference(), "docs/plugin.md is stale: run 'make docs'");
  });

  it('has a section for every command and subcommand, with each of its long flags', () => {
    const text = commandReference();
    const { program } = inertProgram();
    for (const { words, command } of commandPaths(program)) {
      const heading = ['## kubectl stepwise', ...words].join(' ');
      const at = text.indexOf(`${heading}\n`);
      assert.ok(at >= 0, `no section ${heading}`);
      const section = text.slice(at, text.indexOf('```\n', text.indexOf('```text', at) + 1));
      for (const option of command.options) {
        if (option.long) assert.ok(section.includes(option.long), `${heading}: ${option.long}`);
      }
    }
  });

  it('does not depend on the environment it is generated in', () => {
    const before = process.env['COLUMNS'];
    process.env['COLUMNS'] = '40';
    try {
      assert.equal(commandReference(), readFileSync(REFERENCE_FILE, 'utf8'));
    } finally {
      if (before === undefined) delete process.env['COLUMNS'];
      else process.env['COLUMNS'] = before;
    }
  });
});
