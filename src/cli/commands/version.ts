/** `kubectl stepwise version [--short]`, and `kubectl stepwise --version` (program.ts). */
import { buildInfo, versionText } from '../../api/index.ts';
import { println } from '../context.ts';
import type { Registrar } from './common.ts';

/** Version, commit, build date, Node and platform: what a bug report needs. */
export function pluginVersionText(): string {
  return versionText('kubectl-stepwise', buildInfo(), {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
  });
}

export const registerVersion: Registrar = (program, deps, act) => {
  program
    .command('version')
    .description('Print the plugin version, commit and build date')
    .option('--short', 'print the version only')
    .action(
      act((opts: { short?: boolean }) => {
        println(
          deps,
          opts.short ? `kubectl-stepwise v${buildInfo().version}` : pluginVersionText(),
        );
        return Promise.resolve(0);
      }),
    );
};
