/** `abort NAME`: status.abort = true; the controller goes back to stable. */
import type { Command } from 'commander';
import { decideAbort } from '../requests.ts';
import { clientFor, nameArgument, type Registrar } from './common.ts';
import { sendRequest } from './send-request.ts';

export const registerAbort: Registrar = (program, deps, act) => {
  program
    .command('abort')
    .description('Abort the update in progress: traffic and replicas go back to stable')
    .addArgument(nameArgument('rollout'))
    .action(
      act(async (name: string, _opts: object, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        return sendRequest(deps, client, namespace, name, decideAbort);
      }),
    );
};
