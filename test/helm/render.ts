/**
 * `helm template` of the chart with the cached helm (test/helm/build.sh builds it once), for unit
 * tests of what each value renders: values as a JSON file (-f), so lists and objects go in as
 * they would from a values.yaml. No cluster is involved.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { helmBinary } from '../e2e/support/helm.ts';
import { CHART_DIR } from './chart-copies.ts';

export interface Doc {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

export interface Rendered {
  readonly status: number | null;
  readonly docs: readonly Doc[];
  readonly stderr: string;
}

export interface RenderOptions {
  readonly release?: string;
  readonly namespace?: string;
}

let home: string | undefined;

export function renderChart(values: object = {}, opts: RenderOptions = {}): Rendered {
  if (home === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'stepwise-helm-unit-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    home = dir;
  }
  const file = join(home, 'values.json');
  writeFileSync(file, JSON.stringify(values));
  const run = spawnSync(
    helmBinary(),
    ['template', opts.release ?? 'stepwise', CHART_DIR, '-n', opts.namespace ?? 'ops', '-f', file],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    },
  );
  const docs =
    run.status === 0
      ? (loadAll(run.stdout) as (Doc | null)[]).filter((d): d is Doc => d !== null)
      : [];
  return { status: run.status, docs, stderr: run.stderr };
}

/** The rendered objects, failing with helm's own message when it refused the values. */
export function render(values: object = {}, opts: RenderOptions = {}): readonly Doc[] {
  const out = renderChart(values, opts);
  if (out.status !== 0) throw new Error(`helm template exited ${out.status}: ${out.stderr}`);
  return out.docs;
}

export function findDoc<T = Doc>(docs: readonly Doc[], kind: string, name: string): T {
  const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!found) {
    throw new Error(
      `no ${kind} ${name} among ${docs.map((d) => `${d.kind}/${d.metadata.name}`).join(', ')}`,
    );
  }
  return found as T;
}
