/** `retry rollout NAME` (or `retry NAME`): status.abort = false on an aborted rollout. */
import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { checkName } from '../names.ts';
import { decideRetry } from '../requests.ts';
import { clientFor, isRolloutWord, type Registrar } from './common.ts';
import { sendRequest } from './send-request.ts';

export const registerRetry: Registrar = (program, deps, act) => {
  program
    .command('retry')
    .description('Retry an aborted update from its first step')
    .usage('[rollout] <name> [options]')
    .argument('<kind-or-name>', '`rollout` (optional), then the rollout name')
    .argument('[name]')
    .action(
      act(async (first: string, second: string | undefined, _opts: object, cmd: Command) => {
        let name = first;
        if (second === undefined && isRolloutWord(first)) {
          throw new CliError(`missing rollout name: retry rollout <name>`);
        }
        if (second !== undefined) {
          if (!isRolloutWord(first)) {
            throw new CliError(`cannot retry "${first}": only rollouts can be retried`);
          }
          name = second;
        }
        checkName('rollout', name);
        const { client, namespace } = await clientFor(deps, cmd);
        return sendRequest(deps, client, namespace, name, decideRetry);
      }),
    );
};
