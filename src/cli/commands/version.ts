/** `kubectl stepwise version [--short]` */
import { readFileSync } from 'node:fs';
import { println } from '../context.ts';
import type { Registrar } from './common.ts';

/** Set by the single-file binary's bundler (make plugin-binary), which has no package.json. */
declare const STEPWISE_PLUGIN_VERSION: string | undefined;

/** The version in package.json (two levels above src/cli and dist/cli). */
export function pluginVersion(): string {
  if (typeof STEPWISE_PLUGIN_VERSION === 'string') return STEPWISE_PLUGIN_VERSION;
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'stepwise' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return 'unknown';
}

export const registerVersion: Registrar = (program, deps, act) => {
  program
    .command('version')
    .description('Print the plugin version')
    .option('--short', 'print the version only')
    .action(
      act((opts: { short?: boolean }) => {
        println(deps, `kubectl-stepwise v${pluginVersion()}`);
        if (!opts.short) {
          println(deps, `  Node: ${process.version}`);
          println(deps, `  Platform: ${process.platform}/${process.arch}`);
        }
        return Promise.resolve(0);
      }),
    );
};
