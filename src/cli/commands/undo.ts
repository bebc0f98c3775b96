/** `undo NAME [--to-revision N]`: spec.template := the template of an earlier revision. */
import type { Command } from 'commander';
import { POD_TEMPLATE_HASH_LABEL } from '../../api/keys.ts';
import { CliError } from '../errors.ts';
import { decideUndo } from '../spec-edits.ts';
import { clientFor, nameArgument, type Registrar } from './common.ts';
import { sendSpecChange, templateHolder } from './send-spec.ts';

export const GITOPS_WARNING = `
This writes spec, which Git owns under GitOps: Argo CD or Flux puts Git's template back on the
next sync (and a self-healing app at once). Use it only where no GitOps tool syncs the Rollout;
with GitOps, revert the change in Git instead.`;

export const registerUndo: Registrar = (program, deps, act) => {
  program
    .command('undo')
    .description('Roll back to an earlier revision: copy its pod template into spec.template')
    .addArgument(nameArgument('rollout'))
    .option('--to-revision <n>', 'the revision to go back to (default: the previous one)')
    .addHelpText(
      'after',
      `
Copies the pod template of the Rollout's ReplicaSet whose stepwise.dev/revision annotation is N
(default: the newest revision before the latest) into spec.template with a JSON patch under the
field manager kubectl-stepwise, less the ${POD_TEMPLATE_HASH_LABEL} label (as Argo Rollouts'
undo) and the canaryMetadata/stableMetadata keys the controller adds. The controller then rolls
that template out as it would any template change. A Rollout with a workloadRef: the template is
written to the referenced Deployment (ReplicaSet, PodTemplate) instead.
${GITOPS_WARNING}`,
    )
    .action(
      act(async (name: string, opts: { toRevision?: string }, cmd: Command) => {
        let toRevision: number | undefined;
        if (opts.toRevision !== undefined) {
          toRevision = Number(opts.toRevision);
          if (!/^\d+$/.test(opts.toRevision) || !Number.isSafeInteger(toRevision)) {
            throw new CliError(`invalid --to-revision "${opts.toRevision}": use a revision number`);
          }
          if (toRevision === 0) toRevision = undefined; // kubectl's 0: the previous revision
        }
        const { client, namespace } = await clientFor(deps, cmd);
        return sendSpecChange(deps, client, namespace, name, async (ro) => {
          const { items } = await client.listReplicaSets(namespace, POD_TEMPLATE_HASH_LABEL);
          return decideUndo(ro, items, toRevision, await templateHolder(client, namespace, ro));
        });
      }),
    );
};
