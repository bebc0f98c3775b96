/**
 * Where `migrate` reads Argo's objects from: YAML files (several documents each, `-` for stdin;
 * `kubectl get -o yaml` lists included), or the cluster: the Argo Rollouts named (all of the
 * namespace when none is), and the AnalysisTemplates and ClusterAnalysisTemplates they use.
 */
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import type { KubeClient } from '../client.ts';
import type { CliDeps } from '../context.ts';
import { CliError } from '../errors.ts';
import type { SourceDoc } from './convert.ts';

export async function fromFiles(deps: CliDeps, files: readonly string[]): Promise<SourceDoc[]> {
  const docs: SourceDoc[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = file === '-' ? await deps.readStdin() : await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(
        `${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
    let values: unknown[];
    try {
      values = loadAll(text);
    } catch (err) {
      throw new CliError(`${file}: YAML syntax error: ${(err as Error).message.split('\n')[0]}`);
    }
    values
      .filter((v) => v !== null && v !== undefined)
      .forEach((value, i) =>
        docs.push({ source: `${file === '-' ? 'stdin' : file}: document ${i + 1}`, value }),
      );
  }
  return docs;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const nameOf = (v: unknown): string =>
  isObj(v) && isObj(v.metadata) && typeof v.metadata.name === 'string' ? v.metadata.name : '';

/** Every `templateName` a Rollout's analyses use, by scope. */
function templateRefs(rollout: unknown): { names: Set<string>; clusterNames: Set<string> } {
  const names = new Set<string>();
  const clusterNames = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    if (!isObj(v)) return;
    if (typeof v.templateName === 'string') {
      (v.clusterScope === true ? clusterNames : names).add(v.templateName);
    }
    Object.values(v).forEach(visit);
  };
  visit(isObj(rollout) ? rollout.spec : undefined);
  return { names, clusterNames };
}

export async function fromCluster(
  client: KubeClient,
  namespace: string,
  names: readonly string[],
): Promise<SourceDoc[]> {
  const all = (await client.listArgo('rollouts', namespace)).items;
  const missing = names.filter((n) => !all.some((r) => nameOf(r) === n));
  if (missing.length > 0) {
    throw new CliError(`no Argo Rollout ${missing.join(', ')} in namespace '${namespace}'`);
  }
  const rollouts = names.length === 0 ? all : all.filter((r) => names.includes(nameOf(r)));
  if (rollouts.length === 0) throw new CliError(`no Argo Rollouts in namespace '${namespace}'`);
  const refs = rollouts.map(templateRefs);
  const wanted = new Set(refs.flatMap((r) => [...r.names]));
  const wantedCluster = new Set(refs.flatMap((r) => [...r.clusterNames]));
  const templates =
    wanted.size === 0 ? [] : (await client.listArgo('analysistemplates', namespace)).items;
  const clusterTemplates =
    wantedCluster.size === 0
      ? []
      : (await client.listArgo('clusteranalysistemplates', undefined)).items;
  const source = `namespace ${namespace}`;
  return [
    ...rollouts,
    ...templates.filter((t) => wanted.has(nameOf(t))),
    ...clusterTemplates.filter((t) => wantedCluster.has(nameOf(t))),
  ].map((value) => ({ source, value }));
}

/** The uid of each live Argo Rollout of the namespace, by name (what `--adopt` orphans). */
export async function liveArgoRollouts(
  client: KubeClient,
  namespace: string,
): Promise<Map<string, string>> {
  const items = (await client.listArgo('rollouts', namespace)).items;
  return new Map(
    items.map((r) => [
      nameOf(r),
      isObj(r) && isObj(r.metadata) && typeof r.metadata.uid === 'string' ? r.metadata.uid : '',
    ]),
  );
}
