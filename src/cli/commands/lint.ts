/**
 * `lint FILE... ` (`-` for stdin): offline validation of Stepwise manifests with the controller's
 * own rules, for CI before a merge. Problems on stdout, one a line; exit 1 when there are any.
 */
import { readFile } from 'node:fs/promises';
import { Argument } from 'commander';
import { println } from '../context.ts';
import { CliError } from '../errors.ts';
import type { LintInput } from '../lint/documents.ts';
import { completionOf, type Registrar } from './common.ts';

const fileArgument = new Argument(
  '<file...>',
  'YAML files (several documents each); - reads stdin',
);
completionOf.set(fileArgument, { files: true });

export const registerLint: Registrar = (program, deps, act) => {
  program
    .command('lint')
    .description('Check Rollout, AnalysisTemplate and other Stepwise manifests offline')
    .addArgument(fileArgument)
    .addHelpText(
      'after',
      `
Checks every stepwise.dev/v1alpha1 document (Rollout, AnalysisTemplate,
ClusterAnalysisTemplate, AnalysisRun, RolloutApproval) against the CRD schema and the
controller's spec rules that need no cluster. An analysis is checked against the templates in
the files given; a template not among them is noted as not checked. Other kinds are skipped
with a note. No cluster is contacted.

Output: one line per problem, "FILE: document N (Kind/name): field.path: message", and
"FILE: N documents OK" for a clean file; notes go to stderr. Exit 0 when clean, 1 on problems.

Example (CI):  kubectl stepwise lint deploy/*.yaml`,
    )
    .action(
      act(async (files: string[]) => {
        const inputs: LintInput[] = [];
        const unreadable: string[] = [];
        for (const file of files) {
          try {
            const text = file === '-' ? await deps.readStdin() : await readFile(file, 'utf8');
            inputs.push({ file: file === '-' ? 'stdin' : file, text });
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code ?? String(err);
            unreadable.push(`${file}: cannot read: ${code}`);
          }
        }
        // TypeBox and js-yaml load here only, so other commands start fast.
        const { lintDocuments } = await import('../lint/documents.ts');
        const report = lintDocuments(inputs);
        for (const line of [...unreadable, ...report.problems]) println(deps, line);
        for (const line of report.clean) println(deps, line);
        for (const line of report.notes) deps.err.write(`note: ${line}\n`);
        const count = unreadable.length + report.problems.length;
        if (count === 0) return 0;
        throw new CliError(`${count} problem${count === 1 ? '' : 's'} found`);
      }),
    );
};
