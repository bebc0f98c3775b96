/**
 * The chart's copies of the Kustomize base: CRDs, RBAC and the admission policies live once, in
 * deploy/, and the chart renders them from byte-identical copies under files/ (Helm reads only
 * files inside the chart). `make chart-files` writes the copies; `make crds-check` and the unit
 * tests fail when one differs from its source.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const DEPLOY = join(import.meta.dirname, '../../deploy');
export const CHART_DIR = join(DEPLOY, 'helm/stepwise');

/** Chart path → source path, for every file the chart copies from deploy/. */
export function chartCopies(): Map<string, string> {
  const copies = new Map<string, string>();
  for (const name of readdirSync(join(DEPLOY, 'crds'))
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    copies.set(join(CHART_DIR, 'files', 'crds', name), join(DEPLOY, 'crds', name));
  }
  copies.set(join(CHART_DIR, 'files', 'rbac.yaml'), join(DEPLOY, 'rbac', 'rbac.yaml'));
  copies.set(
    join(CHART_DIR, 'files', 'identity-policy.yaml'),
    join(DEPLOY, 'approvals', 'identity-policy.yaml'),
  );
  copies.set(
    join(CHART_DIR, 'files', 'job-provider-policy.yaml'),
    join(DEPLOY, 'analysis', 'job-provider-policy.yaml'),
  );
  copies.set(
    join(CHART_DIR, 'files', 'status-policy.yaml'),
    join(DEPLOY, 'approvals', 'status-policy.yaml'),
  );
  for (const name of ['stepwise-dashboard.json', 'stepwise-rules.yaml']) {
    copies.set(
      join(CHART_DIR, 'files', 'observability', name),
      join(DEPLOY, 'observability', name),
    );
  }
  return copies;
}

/** The copies that are missing or differ from their source. */
export function staleCopies(): string[] {
  return [...chartCopies()]
    .filter(
      ([copy, source]) =>
        !existsSync(copy) || readFileSync(copy, 'utf8') !== readFileSync(source, 'utf8'),
    )
    .map(([copy]) => copy);
}

function main(mode: string | undefined): number {
  if (mode === '--write') {
    for (const [copy, source] of chartCopies()) {
      mkdirSync(dirname(copy), { recursive: true });
      writeFileSync(copy, readFileSync(source));
    }
    console.log(`chart files copied from deploy/ into ${relative(process.cwd(), CHART_DIR)}/files`);
    return 0;
  }
  const stale = staleCopies();
  for (const copy of stale) {
    console.error(`${relative(process.cwd(), copy)} differs from deploy/: run 'make chart-files'`);
  }
  return stale.length === 0 ? 0 : 1;
}

if (import.meta.main) process.exit(main(process.argv[2]));
