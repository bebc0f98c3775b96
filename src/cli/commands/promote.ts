/** `promote NAME [--full]`: resume a pause or skip the current step; --full skips them all. */
import type { Command } from 'commander';
import { decidePromote } from '../requests.ts';
import { clientFor, nameArgument, type Registrar } from './common.ts';
import { sendRequest } from './send-request.ts';

export const registerPromote: Registrar = (program, deps, act) => {
  program
    .command('promote')
    .description('Promote a rollout: resume a pause or skip the current step (--full: skip all)')
    .addArgument(nameArgument('rollout'))
    .option('--full', 'skip all remaining steps, pauses and analyses')
    .action(
      act(async (name: string, opts: { full?: boolean }, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        return sendRequest(deps, client, namespace, name, (ro) =>
          decidePromote(ro, { full: !!opts.full }),
        );
      }),
    );
};
