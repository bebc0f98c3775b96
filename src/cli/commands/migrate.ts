/**
 * `migrate [NAME...] [-f FILE...] [-o DIR] [--adopt]`: Argo Rollouts' manifests as Stepwise's,
 * for Git. Every field that cannot be converted is named and nothing is written (exit 1), unless
 * --allow-partial. `--adopt` then hands the running Rollouts over (src/cli/migrate/adopt.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Argument, type Command } from 'commander';
import { println } from '../context.ts';
import { CliError } from '../errors.ts';
import { checkName } from '../names.ts';
import { clientFor, completionOf, parseDurationFlag, type Registrar } from './common.ts';

interface MigrateFlags {
  filename?: string[];
  outputDir?: string;
  adopt?: boolean;
  allowPartial?: boolean;
  timeout: string;
}

const namesArgument = new Argument(
  '[name...]',
  'Argo Rollouts to migrate (default: all in the namespace)',
).argParser((value: string, previous: string[] | undefined) => [
  ...(previous ?? []),
  checkName('rollout', value),
]);
completionOf.set(namesArgument, { names: 'rollout' });

export const registerMigrate: Registrar = (program, deps, act) => {
  program
    .command('migrate')
    .description(
      'Convert Argo Rollouts to Stepwise manifests for Git (--adopt: take over the running ones)',
    )
    .addArgument(namesArgument)
    .option(
      '-f, --filename <file...>',
      "read Argo's manifests from files (- for stdin) instead of the cluster",
    )
    .option(
      '-o, --output-dir <dir>',
      'write one file a manifest into this directory (default: stdout)',
    )
    .option(
      '--adopt',
      "apply them, hand Argo's status over and orphan Argo's ReplicaSets for Stepwise",
    )
    .option(
      '--allow-partial',
      'write even what cannot be fully converted, the problems as comments',
    )
    .option('--timeout <duration>', 'how long --adopt waits for the controller to adopt', '60s')
    .addHelpText(
      'after',
      `
Reads argoproj.io/v1alpha1 Rollouts, AnalysisTemplates and ClusterAnalysisTemplates (from the
cluster: the Rollouts named, or all of the namespace, and the templates they use) and writes
stepwise.dev/v1alpha1 manifests. A field Stepwise cannot take (an Experiment or plugin step, a
router plugin, a metric provider it lacks...) is named by path on stderr, and nothing is written.

--adopt, with Argo's controller scaled to 0: applies the manifests, hands each Rollout's status
(step, pause, stable and canary hashes) to the Stepwise Rollout, deletes Argo's Rollout with
propagationPolicy=Orphan, and waits until the Stepwise controller has adopted its ReplicaSets.
No pod is created or deleted; the Rollout goes on from the step Argo left it at.

Example:
  kubectl -n argo-rollouts scale deploy/argo-rollouts --replicas=0
  kubectl stepwise migrate web -n shop -o gitops/shop --adopt`,
    )
    .action(
      act(async (names: string[] | undefined, flags: MigrateFlags, cmd: Command) => {
        if (flags.adopt && flags.allowPartial) {
          throw new CliError(
            '--allow-partial cannot be combined with --adopt: adopt only what converts fully',
          );
        }
        const timeoutMs = parseTimeout(flags.timeout);
        const needsCluster = flags.filename === undefined || flags.adopt === true;
        const cluster = needsCluster ? await clientFor(deps, cmd) : undefined;
        const { fromCluster, fromFiles } = await import('../migrate/sources.ts');
        const docs =
          flags.filename !== undefined
            ? await fromFiles(deps, flags.filename)
            : await fromCluster(cluster!.client, cluster!.namespace, names ?? []);
        const { convertArgo } = await import('../migrate/convert.ts');
        const { manifestFiles, manifestStream } = await import('../migrate/render.ts');
        const result = convertArgo(docs);
        for (const note of result.notes) deps.err.write(`note: ${note}\n`);
        for (const problem of result.problems) deps.err.write(`${problem}\n`);
        if (result.problems.length > 0 && !flags.allowPartial) {
          const n = result.problems.length;
          throw new CliError(
            `${n} field${n === 1 ? '' : 's'} cannot be converted; nothing written`,
          );
        }
        if (result.converted.length === 0)
          throw new CliError('no Argo Rollouts or AnalysisTemplates found');
        const files = manifestFiles(result.converted, result.problems);
        if (flags.outputDir === undefined) {
          deps.out.write(manifestStream(files));
        } else {
          await mkdir(flags.outputDir, { recursive: true });
          for (const f of files) await writeFile(join(flags.outputDir, f.name), f.text);
          println(
            deps,
            `${files.length} manifest${files.length === 1 ? '' : 's'} written to ${flags.outputDir}`,
          );
        }
        if (!flags.adopt || cluster === undefined) return 0;
        const { adoptAll } = await import('../migrate/adopt.ts');
        const say = (line: string): void => {
          deps.err.write(`${line}\n`);
        };
        await adoptAll(cluster.client, result.converted, {
          namespace: cluster.namespace,
          timeoutMs,
          now: () => deps.now(),
          say,
        });
        return 0;
      }),
    );
};

function parseTimeout(value: string): number {
  const ms = parseDurationFlag(value);
  if (ms === undefined || ms <= 0) {
    throw new CliError(`--timeout: must be a duration such as 60s or 2m, got '${value}'`);
  }
  return ms;
}
