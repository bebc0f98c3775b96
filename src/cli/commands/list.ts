/** `list rollouts [-A]` (also `list`, `list ro`) */
import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { renderRolloutList } from '../render/table.ts';
import { clientFor, isRolloutWord, type Registrar } from './common.ts';

export const registerList: Registrar = (program, deps, act) => {
  program
    .command('list')
    .description('List rollouts')
    .argument('[kind]', 'rollouts (the default), ro, swro', 'rollouts')
    .option('-A, --all-namespaces', 'list rollouts in all namespaces')
    .action(
      act(async (kind: string, opts: { allNamespaces?: boolean }, cmd: Command) => {
        if (!isRolloutWord(kind)) {
          throw new CliError(`unknown resource type "${kind}": only rollouts can be listed`);
        }
        const { client, namespace } = await clientFor(deps, cmd);
        const all = !!opts.allNamespaces;
        const { items } = await client.listRollouts(all ? undefined : namespace);
        if (items.length === 0) {
          deps.err.write(
            all ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`,
          );
          return 0;
        }
        deps.out.write(renderRolloutList(items, { allNamespaces: all }));
        return 0;
      }),
    );
};
