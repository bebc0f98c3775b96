/** The command tree and the top-level error handling: one line on stderr, exit code 1. */
import { Command, CommanderError } from 'commander';
import { CliError, errorLine } from './errors.ts';
import { checkName } from './names.ts';
import type { CliDeps } from './context.ts';
import type { Act } from './commands/common.ts';
import { registerGet } from './commands/get.ts';
import { registerList } from './commands/list.ts';
import { registerLint } from './commands/lint.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerPromote } from './commands/promote.ts';
import { registerAbort } from './commands/abort.ts';
import { registerApprove } from './commands/approve.ts';
import { registerPause } from './commands/pause.ts';
import { registerRetry } from './commands/retry.ts';
import { registerRestart } from './commands/restart.ts';
import { registerSet } from './commands/set-image.ts';
import { registerUndo } from './commands/undo.ts';
import { registerStatus } from './commands/status.ts';
import { pluginVersionText, registerVersion } from './commands/version.ts';
import { registerDashboard } from './commands/dashboard.ts';
import { COMPLETE_COMMAND, registerCompletion, runComplete } from './commands/completion.ts';
import { Sink } from './terminal.ts';

export function buildProgram(deps: CliDeps, act: Act): Command {
  const program = new Command('kubectl stepwise')
    .description('Stepwise progressive delivery: inspect and steer Rollouts (stepwise.dev)')
    .option(
      '-n, --namespace <namespace>',
      "namespace (default: the context's, else default)",
      (value: string) => checkName('namespace', value),
    )
    .option('--context <name>', 'kubeconfig context to use')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config)')
    .option('--as <user>', 'impersonate this user for the request')
    .version(pluginVersionText(), '--version', 'print the version, commit and build date')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.out.write(s),
      writeErr: (s) => deps.err.write(s),
      // commander's "error: ..." becomes our one line "Error: ...".
      outputError: (s, write) =>
        write(
          `${errorLine(
            new Error(
              s
                .trim()
                .replace(/^error:\s*/i, '')
                .replace(/\s*\n\s*/g, ' '),
            ),
          )}\n`,
        ),
    });
  program.configureHelp({ sortSubcommands: false, showGlobalOptions: true });
  program.addHelpText(
    'after',
    `
Examples:
  kubectl stepwise get rollout web --watch     follow a canary as it moves
  kubectl stepwise list rollouts -A            every rollout in the cluster
  kubectl stepwise promote web                 resume a pause or skip the current step
  kubectl stepwise promote web --full          skip all remaining steps
  kubectl stepwise approve web -c "p99 flat"   approve the approval step it waits at
  kubectl stepwise reject web -c "errors up"   reject it: the update is aborted
  kubectl stepwise pause web                   hold it at its step (resume: go on)
  kubectl stepwise abort web                   go back to stable
  kubectl stepwise retry rollout web           start an aborted update again
  kubectl stepwise status web --timeout 10m    wait for Healthy (exit 0) or Degraded (exit 1)
  kubectl stepwise status web --until awaiting-approval   (CI) exit 0 once people are asked
  kubectl stepwise restart web                 replace every pod, within maxUnavailable
  kubectl stepwise dashboard -A --open         the web page, acting with your credentials
  kubectl stepwise lint deploy/*.yaml          (CI) check manifests offline, exit 1 on problems
  kubectl stepwise migrate web -o gitops/ --adopt   take over Argo's Rollout web, pods untouched
  kubectl stepwise list rollouts -o yaml       the objects as the API server returns them

  Without GitOps only (they write spec.template, which Git owns):
  kubectl stepwise set image web web=nginx:1.27
  kubectl stepwise undo web --to-revision 3`,
  );
  for (const register of [
    registerGet,
    registerList,
    registerPromote,
    registerAbort,
    registerApprove,
    registerPause,
    registerRetry,
    registerRestart,
    registerUndo,
    registerSet,
    registerStatus,
    registerDashboard,
    registerLint,
    registerMigrate,
    registerCompletion,
    registerVersion,
  ]) {
    register(program, deps, act);
  }
  // Every subcommand exits through the same path as the program.
  const inherit = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(program.configureOutput()).showSuggestionAfterError(true);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** Runs the plugin with `argv` (without node and script) and returns the exit code. */
export async function run(argv: readonly string[], deps: CliDeps): Promise<number> {
  let exitCode = 0;
  const act: Act =
    (body) =>
    async (...args) => {
      exitCode = await body(...args);
    };
  const program = buildProgram(deps, act);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    // Completion reads the words as typed, flags included: commander must not parse them.
    if (argv[0] === COMPLETE_COMMAND) {
      const list = async (args: string[]): Promise<string> => {
        const out = new Sink();
        await run(args, { ...deps, out, err: new Sink() });
        return out.text;
      };
      return await runComplete(argv.slice(1), program, deps, list);
    }
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    deps.err.write(`${errorLine(err)}\n`);
    if (deps.env['STEPWISE_DEBUG'] && err instanceof Error && !(err instanceof CliError)) {
      deps.err.write(`${err.stack ?? ''}\n`);
    }
    return err instanceof CliError ? err.exitCode : 1;
  }
}
