/**
 * The AnalysisRun a Rollout's analysis asks for, built from its templates (Argo's
 * `NewAnalysisRunFromTemplates`): metrics, args, dryRun and measurementRetention merged in
 * template order, the Rollout's args filled in (`podTemplateHashValue` from this pass's hashes,
 * `fieldRef` from the Rollout itself), Argo's labels, owned by the Rollout. Pure.
 * Secrets stay references: the run's own controller reads them when it measures.
 */
import {
  ANALYSIS_RUN_KIND,
  ANALYSIS_STEP_INDEX_LABEL,
  ANALYSIS_TYPE_LABEL,
  API_VERSION,
  INSTANCE_ID_LABEL,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  ROLLOUT_KIND,
} from '../api/index.ts';
import { controllerOwnerReference } from './owner-reference.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Argument,
  Metric,
  Rollout,
  RolloutAnalysis,
  RolloutAnalysisArg,
} from '../api/index.ts';

export type AnalysisKind = 'Step' | 'Background' | 'PrePromotion' | 'PostPromotion';

const KIND_SUFFIX: Readonly<Record<AnalysisKind, string>> = {
  Step: '',
  Background: '',
  PrePromotion: '-pre',
  PostPromotion: '-post',
};

export interface RunContext {
  readonly rollout: Rollout;
  readonly hash: string;
  readonly stableHash: string;
  readonly revision: number;
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  readonly clusterTemplates: ReadonlyMap<string, AnalysisTemplate>;
}

export type Built =
  { readonly ok: true; readonly run: AnalysisRun } | { readonly ok: false; readonly error: string };

/** Argo's name: `<rollout>-<hash>-<revision>[-<step index>]`. */
export function baseRunName(ctx: RunContext, kind: AnalysisKind, stepIndex?: number): string {
  const base = `${ctx.rollout.metadata.name}-${ctx.hash}-${ctx.revision}`;
  return kind === 'Step' ? `${base}-${stepIndex ?? 0}` : `${base}${KIND_SUFFIX[kind]}`;
}

/** The base name, or `<base>.N` with the first N no existing run has (a retried analysis). */
export function freshRunName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 1; ; n++) if (!taken.has(`${base}.${n}`)) return `${base}.${n}`;
}

export function buildRun(
  ctx: RunContext,
  analysis: RolloutAnalysis,
  kind: AnalysisKind,
  name: string,
  stepIndex?: number,
): Built {
  const metrics: Metric[] = [];
  const args = new Map<string, Argument>();
  const dryRun = [...(analysis.dryRun ?? [])];
  const retention = [...(analysis.measurementRetention ?? [])];
  for (const ref of analysis.templates) {
    const source = ref.clusterScope === true ? ctx.clusterTemplates : ctx.templates;
    const template = source.get(ref.templateName);
    const what = ref.clusterScope === true ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
    if (template === undefined) return fail(`${what} "${ref.templateName}" not found`);
    for (const metric of template.spec.metrics) {
      if (metrics.some((m) => m.name === metric.name)) {
        return fail(`metric "${metric.name}" is defined by more than one template`);
      }
      metrics.push(metric);
    }
    for (const arg of template.spec.args ?? []) {
      const prev = args.get(arg.name);
      if (prev?.value !== undefined && arg.value !== undefined && prev.value !== arg.value) {
        return fail(`arg "${arg.name}" has different values in two templates`);
      }
      if (prev === undefined || prev.value === undefined) args.set(arg.name, arg);
    }
    dryRun.push(...(template.spec.dryRun ?? []));
    retention.push(...(template.spec.measurementRetention ?? []));
  }
  for (const arg of analysis.args ?? []) {
    const value = argValue(ctx, arg);
    if (typeof value !== 'string') return fail(value.error);
    args.set(arg.name, { name: arg.name, value });
  }
  const meta = analysis.analysisRunMetadata;
  const run: AnalysisRun = {
    apiVersion: API_VERSION,
    kind: ANALYSIS_RUN_KIND,
    metadata: {
      name,
      namespace: ctx.rollout.metadata.namespace,
      labels: {
        ...meta?.labels,
        ...instanceLabel(ctx.rollout.metadata.labels),
        [POD_TEMPLATE_HASH_LABEL]: ctx.hash,
        [ANALYSIS_TYPE_LABEL]: kind,
        ...(kind === 'Step' ? { [ANALYSIS_STEP_INDEX_LABEL]: String(stepIndex ?? 0) } : {}),
      },
      annotations: { ...meta?.annotations, [REVISION_ANNOTATION]: String(ctx.revision) },
      ownerReferences: [
        controllerOwnerReference({
          apiVersion: API_VERSION,
          kind: ROLLOUT_KIND,
          metadata: ctx.rollout.metadata,
        }),
      ],
    },
    spec: {
      metrics,
      ...(args.size > 0 ? { args: [...args.values()] } : {}),
      ...(dryRun.length > 0 ? { dryRun: dedupe(dryRun, (d) => d.metricName) } : {}),
      ...(retention.length > 0
        ? { measurementRetention: dedupe(retention, (r) => r.metricName) }
        : {}),
    },
  };
  return { ok: true, run };
}

function argValue(ctx: RunContext, arg: RolloutAnalysisArg): string | { error: string } {
  if (arg.value !== undefined) return arg.value;
  const from = arg.valueFrom;
  if (from?.podTemplateHashValue !== undefined) {
    return from.podTemplateHashValue === 'Stable' ? ctx.stableHash : ctx.hash;
  }
  if (from?.fieldRef !== undefined) {
    const value = fieldValue(ctx.rollout, from.fieldRef.fieldPath);
    return value ?? { error: `arg "${arg.name}": field ${from.fieldRef.fieldPath} has no value` };
  }
  return { error: `arg "${arg.name}" must have a value or valueFrom` };
}

/**
 * A field of the Rollout by path, as Argo's fieldRef: `metadata.name`,
 * `metadata.labels['app']`, `spec.replicas`, `spec.template.spec.containers[0].image`. Own data
 * properties only; a string or number comes back as a string, anything else as undefined.
 */
export function fieldValue(root: unknown, path: string): string | undefined {
  const parts = [...path.matchAll(/([^.[\]]+)|\[(?:'([^']*)'|"([^"]*)"|(\d+))\]/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '',
  );
  let at: unknown = root;
  for (const part of parts) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return typeof at === 'string' || typeof at === 'number' ? String(at) : undefined;
}

function dedupe<T>(items: readonly T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => !seen.has(key(t)) && seen.add(key(t)) !== undefined);
}

function fail(error: string): Built {
  return { ok: false, error };
}

/** The Rollout's controller instance, carried to its runs so the same instance measures them. */
function instanceLabel(
  labels: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const id = labels?.[INSTANCE_ID_LABEL];
  return id === undefined ? {} : { [INSTANCE_ID_LABEL]: id };
}
