/**
 * `status NAME [--watch=true|false] [--timeout D] [--success-on-pause]`: prints phase changes
 * (`Progressing - <message>`); exit 0 on Healthy (or Paused with --success-on-pause), 1 on
 * Degraded or timeout. The phase counts only once the spec generation is observed.
 */
import type { Command } from 'commander';
import { PauseReason } from '../../api/reasons.ts';
import type { Rollout } from '../../api/rollout.ts';
import type { KubeClient } from '../client.ts';
import { EXIT_INTERRUPTED, println, type CliDeps } from '../context.ts';
import { CliError, httpStatusOf } from '../errors.ts';
import { displayPhase, type PhaseInfo } from '../render/info.ts';
import { DEGRADED_PREFIX, statusLine, TIMEOUT_MESSAGE } from '../render/status.ts';
import { Mirror } from '../watch.ts';
import {
  clientFor,
  nameArgument,
  parseDurationFlag,
  retryNotice,
  toError,
  type Registrar,
} from './common.ts';
import { sanitised } from '../sanitise.ts';

export interface StatusOptions {
  watch: boolean;
  /** ms; 0 = no timeout */
  timeoutMs: number;
  successOnPause: boolean;
  /** Exit 0 as soon as the rollout waits for people at an approval step. */
  successOnAwaitingApproval?: boolean;
}

const UNTIL = ['healthy', 'paused', 'awaiting-approval'] as const;

export const rolloutSource = (client: KubeClient, namespace: string, name: string) => {
  const fieldSelector = `metadata.name=${name}`;
  return {
    list: () => client.listRollouts(namespace, fieldSelector),
    watch: (resourceVersion: string, on: (type: string, object: unknown) => void) =>
      client.watch('rollouts', namespace, { fieldSelector, resourceVersion }, on),
  };
};

export async function runStatus(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  opts: StatusOptions,
): Promise<number> {
  const first = await client.getRollout(namespace, name);
  const workloadGeneration = await referentGeneration(client, namespace, first);
  const shown = (ro: Rollout) => {
    const unseen = unseenWorkload(ro, workloadGeneration);
    return unseen === undefined ? displayPhase(sanitised(ro)) : sanitised(unseen);
  };
  if (!opts.watch) {
    println(deps, statusLine(shown(first)));
    return 0;
  }
  let last: string | undefined;
  let finished = false;
  let settle: (result: number | Error) => void = () => undefined;
  const outcome = new Promise<number>((resolve, reject) => {
    settle = (result) => (result instanceof Error ? reject(result) : resolve(result));
  });
  const finish = (result: number | Error): void => {
    finished = true;
    settle(result);
  };
  const check = (ro: Rollout | undefined): void => {
    if (!ro) {
      finish(new CliError(`rollout "${name}" was deleted from namespace "${namespace}"`));
      return;
    }
    const phase = shown(ro);
    const line = statusLine(phase);
    if (line !== last) println(deps, line);
    last = line;
    if (phase.phase === 'Healthy') finish(0);
    else if (phase.phase === 'Degraded') finish(new CliError(DEGRADED_PREFIX + phase.message));
    else if (phase.phase === 'Paused' && opts.successOnPause) finish(0);
    else if (
      phase.phase === 'Paused' &&
      phase.message === PauseReason.AwaitingApproval &&
      opts.successOnAwaitingApproval
    ) {
      finish(0);
    }
  };
  const mirror = new Mirror<Rollout>(rolloutSource(client, namespace, name), {
    onChange: () => check(mirror.values[0]),
    onRetry: retryNotice(deps),
  });
  const timer =
    opts.timeoutMs > 0
      ? setTimeout(() => finish(new CliError(TIMEOUT_MESSAGE)), opts.timeoutMs)
      : undefined;
  const stopInterrupt = deps.onInterrupt(() => finish(EXIT_INTERRUPTED));
  try {
    check(first);
    if (!finished) mirror.start().catch((err: unknown) => finish(toError(err)));
    return await outcome;
  } finally {
    clearTimeout(timer);
    stopInterrupt();
    mirror.stop();
  }
}

const parseBool = (v: string): boolean => {
  if (/^(true|1|yes)$/i.test(v)) return true;
  if (/^(false|0|no)$/i.test(v)) return false;
  throw new CliError(`--watch takes true or false, not "${v}"`);
};

export const registerStatus: Registrar = (program, deps, act) => {
  program
    .command('status')
    .description('Show the status of a rollout and wait until it is Healthy or Degraded')
    .addArgument(nameArgument('rollout'))
    .option('-w, --watch [bool]', 'watch until a final state (true|false)', parseBool, true)
    .option('-t, --timeout <duration>', 'give up after this long (30s, 5m; 0 = never)', '0')
    .option('--success-on-pause', 'exit 0 when the rollout reaches Paused (for CI)')
    .option(
      '--until <state>',
      `exit 0 at: ${UNTIL.join(' | ')} (awaiting-approval: people are asked, for CI)`,
      'healthy',
    )
    .action(
      act(
        async (
          name: string,
          opts: { watch: boolean; timeout: string; successOnPause?: boolean; until: string },
          cmd: Command,
        ) => {
          if (!(UNTIL as readonly string[]).includes(opts.until)) {
            throw new CliError(`--until takes ${UNTIL.join(', ')}, not "${opts.until}"`);
          }
          const timeoutMs = parseDurationFlag(opts.timeout);
          if (timeoutMs === undefined) {
            throw new CliError(
              `invalid --timeout "${opts.timeout}": use a duration like 30s or 5m`,
            );
          }
          const { client, namespace } = await clientFor(deps, cmd);
          return runStatus(deps, client, namespace, name, {
            watch: opts.watch,
            timeoutMs,
            successOnPause: !!opts.successOnPause || opts.until === 'paused',
            successOnAwaitingApproval: opts.until === 'awaiting-approval',
          });
        },
      ),
    );
};

/** The generation of the object the Rollout's workloadRef names, when it has one and it is
 *  there: a change to it (set image) does not change the Rollout's own generation. */
async function referentGeneration(
  client: KubeClient,
  namespace: string,
  ro: Rollout,
): Promise<number | undefined> {
  const ref = ro.spec.workloadRef;
  if (ref === undefined) return undefined;
  try {
    return (await client.getWorkload(namespace, ref)).metadata?.generation;
  } catch (err) {
    if (httpStatusOf(err) === 404) return undefined;
    throw err;
  }
}

/** Progressing until the controller has read the referent as it was when we started: a Healthy
 *  from before a change to it is not an answer. */
function unseenWorkload(ro: Rollout, generation: number | undefined): PhaseInfo | undefined {
  const ref = ro.spec.workloadRef;
  if (ref === undefined || generation === undefined) return undefined;
  if (Number(ro.status?.workloadObservedGeneration ?? 0) >= generation) return undefined;
  return {
    phase: 'Progressing',
    message: `waiting for the change to ${ref.kind} "${ref.name}" to be observed`,
  };
}
