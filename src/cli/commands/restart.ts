/** `restart NAME [--in DURATION]`: spec.restartAt = now; the controller replaces older pods. */
import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { decideRestart } from '../spec-edits.ts';
import { clientFor, nameArgument, parseDurationFlag, type Registrar } from './common.ts';
import { sendSpecChange } from './send-spec.ts';

export const registerRestart: Registrar = (program, deps, act) => {
  program
    .command('restart')
    .description('Restart the pods of a rollout: replace every pod created before now')
    .addArgument(nameArgument('rollout'))
    .option('-i, --in <duration>', 'restart this long from now (30s, 5m, 1h)', '0')
    .addHelpText(
      'after',
      `
Writes spec.restartAt (RFC 3339, now) with a JSON merge patch under the field manager
kubectl-stepwise. The controller evicts every pod created before that time, stable ReplicaSet
first, at most maxUnavailable at a time and honouring PodDisruptionBudgets, without running the
canary steps; status.restartedAt records the restart once no older pod is left.

Why spec and not status, unlike promote and abort: restartAt is declared intent ("every pod must
be newer than this"), compared with pod creation times, not a step the controller is waiting
on; it is the field Argo Rollouts' plugin and Argo CD's restart action write. A GitOps tool that
does not declare restartAt in Git leaves it alone (it is owned by kubectl-stepwise, not by the
sync); one that declares it sets it back, and then the restart belongs in Git.`,
    )
    .action(
      act(async (name: string, opts: { in: string }, cmd: Command) => {
        const delayMs = parseDurationFlag(opts.in);
        if (delayMs === undefined) {
          throw new CliError(`invalid --in "${opts.in}": use a duration like 30s or 5m`);
        }
        const { client, namespace } = await clientFor(deps, cmd);
        return sendSpecChange(deps, client, namespace, name, (ro) =>
          decideRestart(ro, deps.now(), delayMs),
        );
      }),
    );
};
