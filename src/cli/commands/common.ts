/** Glue shared by the command modules. */
import { Argument, Option, type Command } from 'commander';
import { parseGoDuration } from '../../api/duration.ts';
import { ANALYSIS_RUN_KIND, API_VERSION, ROLLOUT_KIND } from '../../api/keys.ts';
import type { KubeClient } from '../client.ts';
import type { ArgCompletion } from '../completion.ts';
import type { CliDeps, GlobalFlags } from '../context.ts';
import { checkName, type NameKind } from '../names.ts';
import {
  OUTPUT_FORMATS,
  parseOutputFormat,
  type ObjectKind,
  type OutputFormat,
} from '../render/output.ts';

/** Wraps a command body so its exit code reaches the entry point. */
export type Act = <A extends unknown[]>(
  body: (...args: A) => Promise<number>,
) => (...args: A) => Promise<void>;

export interface Registrar {
  (program: Command, deps: CliDeps, act: Act): void;
}

/** The global flags as given on this command or any parent. */
export const globalsOf = (cmd: Command): GlobalFlags => cmd.optsWithGlobals<GlobalFlags>();

export async function clientFor(
  deps: CliDeps,
  cmd: Command,
): Promise<{ client: KubeClient; namespace: string; globals: GlobalFlags }> {
  const globals = globalsOf(cmd);
  const client = await deps.connect(globals);
  return { client, namespace: client.namespace, globals };
}

/** What shell completion offers for an argument (src/cli/completion.ts); none when absent. */
export const completionOf = new WeakMap<Argument, ArgCompletion>();

/**
 * A `<name>` argument checked as a Kubernetes name while the command line is parsed: a bad one
 * is one line before the kubeconfig is even read.
 */
export const nameArgument = (kind: NameKind, description = `${kind} name`): Argument => {
  const arg = new Argument('<name>', description).argParser((value: string) =>
    checkName(kind, value),
  );
  completionOf.set(arg, { names: kind === 'AnalysisRun' ? 'AnalysisRun' : 'rollout' });
  return arg;
};

/** Resource words accepted for rollouts: `rollout`, `rollouts`, `ro`, `swro`. */
export const ROLLOUT_WORDS = ['rollout', 'rollouts', 'ro', 'swro'] as const;
export const isRolloutWord = (s: string): boolean =>
  (ROLLOUT_WORDS as readonly string[]).includes(s.toLowerCase());

export const toError = (err: unknown): Error =>
  err instanceof Error ? err : new Error(String(err));

/** A one-time note on stderr when a watch drops and is being resumed. */
export function retryNotice(deps: CliDeps): (err: unknown) => void {
  let told = false;
  return (err) => {
    if (told) return;
    told = true;
    deps.err.write(`warning: watch interrupted (${toError(err).message}); retrying\n`);
  };
}

export const ROLLOUT: ObjectKind = { kind: ROLLOUT_KIND, apiVersion: API_VERSION };
export const ANALYSIS_RUN: ObjectKind = { kind: ANALYSIS_RUN_KIND, apiVersion: API_VERSION };

/** `-o json|yaml|name`, checked as it is parsed. */
export const outputOption = (): Option =>
  new Option('-o, --output <format>', 'output format')
    .choices(OUTPUT_FORMATS)
    .argParser(parseOutputFormat);

export interface PrintFlags {
  output?: OutputFormat;
  showManagedFields?: boolean;
}

// The spellings duration flags have always taken: a bare number of seconds ("30", "1.5"), or
// numbers with ms, s, m or h ("30s", "1h30m"). Go's grammar (src/api/duration.ts) also takes a
// sign, ".5s", "5.s" and ns/us; the flags never did, so they still refuse them.
const SECONDS = /^\d+(\.\d+)?$/;
const FLAG_SPELLING = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/** A duration flag (`--timeout 30s`, `--in 5m`) in milliseconds; undefined when it is not one.
 *  Go's grammar, the controller's, reads it; `0` means none. */
export function parseDurationFlag(text: string): number | undefined {
  const s = text.trim();
  if (SECONDS.test(s)) return Math.round(Number(s) * 1000);
  if (!FLAG_SPELLING.test(s)) return undefined;
  const parsed = parseGoDuration(s);
  return parsed.ok ? parsed.value : undefined;
}
