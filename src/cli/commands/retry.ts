/** `retry rollout NAME` (or `retry NAME`): status.abort = false on an aborted rollout. */
import { Argument, type Command } from 'commander';
import { CliError } from '../errors.ts';
import { checkName } from '../names.ts';
import { decideRetry } from '../requests.ts';
import { clientFor, completionOf, isRolloutWord, type Registrar } from './common.ts';
import { sendRequest } from './send-request.ts';

const first = new Argument('<kind-or-name>', '`rollout` (optional), then the rollout name');
const second = new Argument('[name]');
completionOf.set(first, { names: 'rollout' });
completionOf.set(second, { names: 'rollout' });

export const registerRetry: Registrar = (program, deps, act) => {
  program
    .command('retry')
    .description('Retry an aborted update from its first step')
    .usage('[rollout] <name> [options]')
    .addArgument(first)
    .addArgument(second)
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
