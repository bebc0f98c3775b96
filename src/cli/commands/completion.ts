/**
 * `completion bash|zsh|fish` prints a script; `__complete WORDS...` (hidden, Cobra's protocol)
 * answers it, and kubectl through `kubectl_complete-stepwise`. Rollout names come from the
 * plugin's own `list rollouts -o name`, run in-process with the global flags typed so far.
 */
import { Argument, type Command, type Option } from 'commander';
import type { CliDeps } from '../context.ts';
import {
  cobraOutput,
  completeWords,
  completionScript,
  DIRECTIVE,
  SHELLS,
  type ArgCompletion,
  type CommandNode,
  type FlagNode,
  type Shell,
} from '../completion.ts';
import { completionOf, type Registrar } from './common.ts';

export const COMPLETE_COMMAND = '__complete';
/** A completion waits this long for the cluster at most: a TAB must not hang the shell. */
const NAMES_TIMEOUT_MS = 3000;

const flagNode = (o: Option): FlagNode => ({
  names: [o.short, o.long].filter((n): n is string => n !== undefined),
  description: o.description,
  takesValue: o.required || o.optional,
  ...(o.argChoices ? { values: o.argChoices } : {}),
});

const argNode = (a: Argument): ArgCompletion =>
  completionOf.get(a) ?? (a.argChoices ? { words: a.argChoices } : { none: true });

/** The command tree as completion sees it: names, aliases, flags (inherited too), arguments. */
export function commandTree(cmd: Command, inherited: readonly FlagNode[] = []): CommandNode {
  const help: FlagNode = { names: ['-h', '--help'], description: 'help', takesValue: false };
  const own = cmd.options.filter((o) => !o.hidden).map(flagNode);
  const flags = [...own, ...inherited];
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: cmd.description(),
    flags: [...flags, help],
    args: cmd.registeredArguments.map(argNode),
    variadic: cmd.registeredArguments.at(-1)?.variadic ?? false,
    subcommands: cmd.commands.map((c) => commandTree(c, flags)),
  };
}

/** Answers `__complete WORDS... CURRENT`; never fails loudly (a TAB prints no errors). */
export async function runComplete(
  words: readonly string[],
  program: Command,
  deps: CliDeps,
  list: (argv: string[]) => Promise<string>,
): Promise<number> {
  const answer = completeWords(commandTree(program), words.length > 0 ? words : ['']);
  if (answer.kind === 'candidates') {
    deps.out.write(cobraOutput(answer.lines, answer.directive));
    return 0;
  }
  const current = words.at(-1) ?? '';
  let names: string[];
  try {
    const listing =
      answer.of === 'rollout'
        ? list(['list', 'rollouts', '-o', 'name', ...answer.globals])
        : analysisRunNames(deps, answer.globals);
    const timeout = new Promise<string>((resolve) =>
      setTimeout(() => resolve(''), NAMES_TIMEOUT_MS).unref(),
    );
    names = (await Promise.race([listing, timeout]))
      .split('\n')
      .map((line) => line.slice(line.indexOf('/') + 1))
      .filter((n) => n !== '' && n.startsWith(current));
  } catch {
    names = [];
  }
  deps.out.write(cobraOutput(names, DIRECTIVE.noFiles));
  return 0;
}

async function analysisRunNames(deps: CliDeps, globals: readonly string[]): Promise<string> {
  const flag = (names: string[]): string | undefined => {
    for (let i = 0; i < globals.length; i++) {
      const [name, inline] = globals[i]!.split('=', 2) as [string, string | undefined];
      if (names.includes(name)) return inline ?? globals[i + 1];
    }
    return undefined;
  };
  const client = await deps.connect({
    namespace: flag(['-n', '--namespace']),
    context: flag(['--context']),
    kubeconfig: flag(['--kubeconfig']),
    as: flag(['--as']),
  });
  const { items } = await client.listAnalysisRuns(client.namespace);
  return items.map((r) => `analysisrun/${r.metadata.name ?? ''}`).join('\n');
}

export const registerCompletion: Registrar = (program, deps, act) => {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS))
    .addHelpText(
      'after',
      `
  bash:  source <(kubectl-stepwise completion bash)     (add it to ~/.bashrc)
  zsh:   source <(kubectl-stepwise completion zsh)      (add it to ~/.zshrc)
  fish:  kubectl-stepwise completion fish | source

These complete the kubectl-stepwise command. For "kubectl stepwise <TAB>", kubectl 1.26+ asks
an executable named kubectl_complete-stepwise on PATH; make plugin writes one, or create it:
  printf '#!/bin/sh\\nexec kubectl-stepwise __complete "$@"\\n' > kubectl_complete-stepwise`,
    )
    .action(
      act((shell: Shell) => {
        deps.out.write(completionScript(shell));
        return Promise.resolve(0);
      }),
    );
};
