/**
 * `pause NAME` / `resume NAME`: hold a rollout at its step and let it go on. Argo's plugin writes
 * spec.paused; ours writes a `PausedByUser` pause condition to status (Git stays the only author
 * of spec, so a GitOps sync never undoes a pause, and a pause never makes the app OutOfSync).
 */
import type { Command } from 'commander';
import { decidePause, decideResume } from '../requests.ts';
import { clientFor, type Registrar } from './common.ts';
import { sendRequest } from './send-request.ts';

export const registerPause: Registrar = (program, deps, act) => {
  program
    .command('pause')
    .description('Pause a rollout at its current step until `resume` (status only, not spec)')
    .argument('<name>', 'rollout name')
    .action(
      act(async (name: string, _opts: object, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        return sendRequest(deps, client, namespace, name, (ro) => decidePause(ro, deps.now()));
      }),
    );
  program
    .command('resume')
    .description('Resume a rollout paused with `pause` (a pause step is resumed by `promote`)')
    .argument('<name>', 'rollout name')
    .action(
      act(async (name: string, _opts: object, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        return sendRequest(deps, client, namespace, name, decideResume);
      }),
    );
};
