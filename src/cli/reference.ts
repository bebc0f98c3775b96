/**
 * The plugin's command reference (docs/plugin.md), generated from the command tree itself: each
 * command's `--help` exactly as the plugin prints it, at a fixed width. Pure: the program is
 * built with inert dependencies and nothing is run. `reference-gen.ts` writes or checks the file.
 */
import type { Command } from 'commander';
import { buildProgram } from './program.ts';
import type { CliDeps } from './context.ts';
import type { Act } from './commands/common.ts';

/** Wide enough for the examples' columns, narrow enough to read on GitHub without scrolling. */
export const HELP_WIDTH = 100;

/** A program whose commands parse but never act, for help text and for checking command lines. */
export function inertProgram(): { program: Command; output: () => string } {
  let text = '';
  const sink = {
    isTTY: false,
    write(s: string): boolean {
      text += s;
      return true;
    },
  };
  const deps: CliDeps = {
    out: sink,
    err: sink,
    env: {},
    connect: () => Promise.reject(new Error('the reference connects to nothing')),
    now: () => 0,
    onInterrupt: () => () => undefined,
    readStdin: () => Promise.resolve(''),
  };
  const act: Act = () => () => Promise.resolve();
  const program = buildProgram(deps, act);
  const output = (): string => {
    const out = text;
    text = '';
    return out;
  };
  return { program, output };
}

/** Every command under `root`, depth first, as its words after `kubectl stepwise`. */
export function commandPaths(root: Command): { words: string[]; command: Command }[] {
  const walk = (cmd: Command, words: string[]): { words: string[]; command: Command }[] => [
    { words, command: cmd },
    ...cmd.commands.flatMap((sub) => walk(sub, [...words, sub.name()])),
  ];
  return walk(root, []);
}

function helpOf(cmd: Command, output: () => string): string {
  cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: HELP_WIDTH });
  output();
  cmd.outputHelp();
  return output().trimEnd();
}

/** GitHub's heading anchor for a heading made of plain words. */
const anchor = (heading: string): string => heading.toLowerCase().replace(/\s+/g, '-');

export function commandReference(): string {
  const { program, output } = inertProgram();
  const commands = commandPaths(program);
  const title = (words: readonly string[]) => ['kubectl stepwise', ...words].join(' ');
  const lines: string[] = [
    '# kubectl stepwise: command reference',
    '',
    '<!-- Generated from src/cli (the commands as the plugin defines them) by `make docs`.',
    '     Do not edit: test/unit/cli/reference.test.ts fails when this file and the code differ. -->',
    '',
    'Every command of the plugin with its `--help`, as `kubectl stepwise COMMAND --help` prints it.',
    'The global flags (`-n`, `--context`, `--kubeconfig`, `--as`) go before or after the command;',
    'kubectl does not parse flags for plugins, so the plugin reads them itself. Installing the',
    'plugin: [installation.md](installation.md#the-plugin).',
    '',
    ...commands.slice(1).map((c) => `- [${title(c.words)}](#${anchor(title(c.words))})`),
    '',
  ];
  for (const { words, command } of commands) {
    const heading = words.length === 0 ? '## kubectl stepwise' : `## ${title(words)}`;
    lines.push(heading, '', '```text', helpOf(command, output), '```', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
