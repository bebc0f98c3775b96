/** `set image NAME CONTAINER=IMAGE...` (Argo's syntax, `*=IMAGE` for every container). */
import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { decideSetImage, parseImageArgs } from '../spec-edits.ts';
import { clientFor, nameArgument, type Registrar } from './common.ts';
import { sendSpecChange, templateHolder } from './send-spec.ts';
import { GITOPS_WARNING } from './undo.ts';

export const registerSet: Registrar = (program, deps, act) => {
  const set = program.command('set').description('Change a rollout: set image');
  set
    .command('image')
    .description("Set the image of a rollout's containers (a new revision, rolled out by steps)")
    .addArgument(nameArgument('rollout'))
    .argument('<container=image...>', 'CONTAINER=IMAGE pairs; *=IMAGE sets every container')
    .addHelpText(
      'after',
      `
Examples:
  kubectl stepwise set image web web=nginx:1.27
  kubectl stepwise set image web '*=registry.example/web:2.1'

Replaces the image of each named container (containers, initContainers, ephemeralContainers)
in spec.template with a JSON patch under the field manager kubectl-stepwise. A Rollout with a
workloadRef has no template of its own: the referenced Deployment's (ReplicaSet's, PodTemplate's)
is changed instead, and the Rollout rolls it out.
${GITOPS_WARNING}`,
    )
    .action(
      act(async (name: string, pairs: string[], _opts: object, cmd: Command) => {
        const images = parseImageArgs(pairs);
        if (typeof images === 'string') throw new CliError(images);
        const { client, namespace } = await clientFor(deps, cmd);
        return sendSpecChange(deps, client, namespace, name, async (ro) =>
          decideSetImage(ro, images, await templateHolder(client, namespace, ro)),
        );
      }),
    );
};
