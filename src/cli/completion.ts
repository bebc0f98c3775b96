/**
 * PURE: shell completion. The scripts are thin: they hand the words typed so far to
 * `kubectl-stepwise __complete WORDS... CURRENT` and offer what it prints, in Cobra's format (a
 * candidate a line, `value<TAB>description`, then `:DIRECTIVE`), which is also what kubectl
 * asks of a plugin's `kubectl_complete-stepwise` for `kubectl stepwise <TAB>` (kubectl 1.26+).
 * So one function decides, for every shell and for kubectl alike.
 */

/** What an argument takes, for completion. */
export type ArgCompletion =
  | { readonly names: 'rollout' | 'AnalysisRun' }
  | { readonly words: readonly string[] }
  | { readonly files: true }
  | { readonly none: true };

export interface FlagNode {
  readonly names: readonly string[];
  readonly description: string;
  readonly takesValue: boolean;
  readonly values?: readonly string[];
}

export interface CommandNode {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly description: string;
  /** this command's own flags and those inherited from its parents */
  readonly flags: readonly FlagNode[];
  readonly args: readonly ArgCompletion[];
  /** the last argument repeats */
  readonly variadic: boolean;
  readonly subcommands: readonly CommandNode[];
}

/** Cobra's ShellCompDirective bits the scripts understand. */
export const DIRECTIVE = { default: 0, noFiles: 4 } as const;

export type Completion =
  | { readonly kind: 'candidates'; readonly lines: readonly string[]; readonly directive: number }
  /** names from the cluster: the caller lists them with the global flags typed so far */
  | {
      readonly kind: 'names';
      readonly of: 'rollout' | 'AnalysisRun';
      readonly globals: readonly string[];
    };

const GLOBAL_VALUE_FLAGS = ['-n', '--namespace', '--context', '--kubeconfig', '--as'];

/** What to offer for the last word, given the words before it (without the program name). */
export function completeWords(root: CommandNode, words: readonly string[]): Completion {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  let node = root;
  const positional: string[] = [];
  const globals: string[] = [];
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (word.startsWith('-')) {
      const flagName = word.split('=', 1)[0]!;
      const flag = node.flags.find((f) => f.names.includes(flagName));
      const inline = word.includes('=');
      if (GLOBAL_VALUE_FLAGS.includes(flagName)) {
        globals.push(word);
        if (!inline && before[i + 1] !== undefined) globals.push(before[i + 1]!);
      }
      if (flag?.takesValue && !inline) i++;
      continue;
    }
    const sub =
      positional.length === 0
        ? node.subcommands.find((c) => c.name === word || c.aliases.includes(word))
        : undefined;
    if (sub) node = sub;
    else positional.push(word);
  }
  const previous = before.at(-1);
  const valueOf = previous?.startsWith('-')
    ? node.flags.find((f) => f.names.includes(previous) && f.takesValue)
    : undefined;
  if (valueOf) return candidates(filter(valueOf.values ?? [], current), DIRECTIVE.noFiles);
  if (current.startsWith('-')) {
    const lines = node.flags.flatMap((f) =>
      f.names.filter((n) => n.startsWith(current)).map((n) => `${n}\t${f.description}`),
    );
    return candidates(lines, DIRECTIVE.noFiles);
  }
  if (positional.length === 0 && node.subcommands.length > 0) {
    const lines = node.subcommands
      .filter((c) => c.name.startsWith(current) && !c.name.startsWith('__'))
      .map((c) => `${c.name}\t${c.description}`);
    return candidates(lines, DIRECTIVE.noFiles);
  }
  const arg =
    node.args[positional.length] ?? (node.variadic ? node.args.at(-1) : undefined) ?? null;
  if (arg === null || 'none' in arg) return candidates([], DIRECTIVE.noFiles);
  if ('files' in arg) return candidates([], DIRECTIVE.default);
  if ('words' in arg) return candidates(filter(arg.words, current), DIRECTIVE.noFiles);
  return { kind: 'names', of: arg.names, globals };
}

const filter = (words: readonly string[], prefix: string): string[] =>
  words.filter((w) => w.startsWith(prefix));

const candidates = (lines: readonly string[], directive: number): Completion => ({
  kind: 'candidates',
  lines,
  directive,
});

/** Cobra's output: the candidates, then `:DIRECTIVE`. */
export const cobraOutput = (lines: readonly string[], directive: number): string =>
  [...lines, `:${directive}`].map((l) => `${l}\n`).join('');

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const PROGRAM = 'kubectl-stepwise';

/** The completion script for `shell`; every script asks `__complete` and offers its lines. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# ${PROGRAM} completion for bash. Load it with:  source <(${PROGRAM} completion bash)
_kubectl_stepwise() {
  local cur=\${COMP_WORDS[COMP_CWORD]} out directive line
  out=$(${PROGRAM} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return
  directive=\${out##*:}
  COMPREPLY=()
  while IFS= read -r line; do
    [[ -z $line || $line == :* ]] && continue
    COMPREPLY+=("\${line%%$'\\t'*}")
  done <<< "$out"
  if (( \${#COMPREPLY[@]} == 0 && (directive & ${DIRECTIVE.noFiles}) == 0 )); then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o nosort -F _kubectl_stepwise ${PROGRAM}
`;
    case 'zsh':
      return `#compdef ${PROGRAM}
# ${PROGRAM} completion for zsh. Load it with:  source <(${PROGRAM} completion zsh)
_kubectl_stepwise() {
  local out directive line
  local -a lines described
  out=$(${PROGRAM} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  for line in "\${(@)lines[1,-2]}"; do
    described+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  if (( \${#described} )); then
    _describe -V ${PROGRAM} described
  elif (( (directive & ${DIRECTIVE.noFiles}) == 0 )); then
    _files
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _kubectl_stepwise "$@"
else
  compdef _kubectl_stepwise ${PROGRAM}
fi
`;
    case 'fish':
      return `# ${PROGRAM} completion for fish. Load it with:  ${PROGRAM} completion fish | source
function __kubectl_stepwise_complete
    set -l args (commandline -opc)[2..-1] (commandline -ct)
    set -l out (${PROGRAM} __complete $args 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (count $out) -gt 0
        printf '%s\\n' $out
    else if test (math "floor($directive / ${DIRECTIVE.noFiles}) % 2") -eq 0
        __fish_complete_path (commandline -ct)
    end
end
complete -c ${PROGRAM} -f -a '(__kubectl_stepwise_complete)'
`;
  }
}

/** `kubectl_complete-stepwise`: what kubectl runs to complete `kubectl stepwise ...`. */
export const KUBECTL_COMPLETE_SHIM = `#!/bin/sh
# kubectl runs this to complete "kubectl stepwise ..." (kubectl 1.26+); keep it on PATH.
exec ${PROGRAM} __complete "$@"
`;
