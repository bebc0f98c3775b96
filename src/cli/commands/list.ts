/** `list rollouts [-A] [-o json|yaml|name]` (also `list`, `list ro`) */
import { Argument, type Command } from 'commander';
import { CliError } from '../errors.ts';
import { renderRolloutList } from '../render/table.ts';
import { printList } from '../render/output.ts';
import {
  clientFor,
  completionOf,
  isRolloutWord,
  outputOption,
  ROLLOUT,
  type PrintFlags,
  type Registrar,
} from './common.ts';
import { sanitised } from '../sanitise.ts';

const kindArgument = new Argument('[kind]', 'rollouts (the default), ro, swro').default('rollouts');
completionOf.set(kindArgument, { words: ['rollouts'] });

export const registerList: Registrar = (program, deps, act) => {
  program
    .command('list')
    .description('List rollouts')
    .addArgument(kindArgument)
    .option('-A, --all-namespaces', 'list rollouts in all namespaces')
    .addOption(outputOption())
    .option('--show-managed-fields', 'keep metadata.managedFields in -o json|yaml')
    .action(
      act(async (kind: string, opts: { allNamespaces?: boolean } & PrintFlags, cmd: Command) => {
        if (!isRolloutWord(kind)) {
          throw new CliError(`unknown resource type "${kind}": only rollouts can be listed`);
        }
        const { client, namespace } = await clientFor(deps, cmd);
        const all = !!opts.allNamespaces;
        const { items } = await client.listRollouts(all ? undefined : namespace);
        if (opts.output !== undefined && (items.length > 0 || opts.output !== 'name')) {
          deps.out.write(await printList(items, ROLLOUT, opts.output, opts));
          return 0;
        }
        if (items.length === 0) {
          deps.err.write(
            all ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`,
          );
          return 0;
        }
        deps.out.write(renderRolloutList(sanitised(items), { allNamespaces: all }));
        return 0;
      }),
    );
};
