/**
 * PURE: Argo Rollouts' manifests (`argoproj.io/v1alpha1` Rollout, AnalysisTemplate,
 * ClusterAnalysisTemplate) as Stepwise's. Manifests are Argo's field for field, so converting is
 * changing the group, keeping what Git declares (name, namespace, labels, annotations, spec) and
 * leaving out what the cluster added; then every field Stepwise cannot take is named, by path,
 * with the checks `kubectl stepwise lint` runs. A Rollout's status is kept aside as the hand-over
 * (handover.ts). Other kinds are skipped with a note.
 */
import { analysisTemplateSpecProblems } from '../../api/analysis-validate.ts';
import {
  ANALYSIS_TEMPLATE_KIND,
  API_VERSION,
  ARGO_API_VERSION,
  ARGO_GROUP,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  GITOPS_TRACKING_KEYS,
  ROLLOUT_KIND,
} from '../../api/keys.ts';
import type { Rollout, RolloutStatus } from '../../api/rollout.ts';
import { rolloutSpecProblems, rolloutTemplateProblems } from '../../api/validate.ts';
import { rolloutRuleProblems } from '../../rollout/index.ts';
import { routingProblems } from '../../traffic/index.ts';
import { unconvertibleInRollout, withoutUnconvertible } from './argo-features.ts';
import { handedOverStatus } from './handover.ts';

export interface SourceDoc {
  /** Where it came from, for messages: `argo.yaml: document 2`, `cluster`. */
  readonly source: string;
  readonly value: unknown;
}

export type ConvertedKind =
  typeof ROLLOUT_KIND | typeof ANALYSIS_TEMPLATE_KIND | typeof CLUSTER_ANALYSIS_TEMPLATE_KIND;

export interface Converted {
  readonly kind: ConvertedKind;
  readonly name: string;
  readonly namespace?: string;
  /** The stepwise.dev manifest, for Git. */
  readonly manifest: StepwiseManifest;
  /** Rollouts: what Argo's status hands over (absent: nothing yet). */
  readonly handover?: RolloutStatus;
}

export interface StepwiseManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: unknown;
}

export interface Conversion {
  readonly converted: readonly Converted[];
  /** `source: Kind/name: field.path: why`, one per field that cannot be converted. */
  readonly problems: readonly string[];
  readonly notes: readonly string[];
}

const KINDS: readonly string[] = [
  ROLLOUT_KIND,
  ANALYSIS_TEMPLATE_KIND,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Metadata keys the cluster or Argo's tools wrote, never carried into Git. */
const DROPPED_KEY = (key: string): boolean =>
  GITOPS_TRACKING_KEYS.includes(key) || key.startsWith('rollout.argoproj.io/');

export function convertArgo(docs: readonly SourceDoc[]): Conversion {
  const converted: Converted[] = [];
  const problems: string[] = [];
  const notes: string[] = [];
  for (const doc of flatten(docs)) {
    const m = doc.value;
    if (!isObj(m)) continue;
    const kind = str(m.kind) ?? '?';
    const meta = isObj(m.metadata) ? m.metadata : {};
    const name = str(meta.name) ?? '';
    const where = `${doc.source}: ${kind}/${name}`;
    if (str(m.apiVersion)?.startsWith(`${ARGO_GROUP}/`) !== true || !KINDS.includes(kind)) {
      notes.push(`${where}: skipped: ${String(m.apiVersion)} ${kind} is not converted`);
      continue;
    }
    if (m.apiVersion !== ARGO_API_VERSION) {
      problems.push(
        `${where}: apiVersion: ${String(m.apiVersion)} cannot be converted (${ARGO_API_VERSION} only)`,
      );
      continue;
    }
    const metaProblems: string[] = [];
    const manifest: StepwiseManifest = {
      apiVersion: API_VERSION,
      kind,
      metadata: convertMeta(meta, name, metaProblems),
      spec: cleanSpec(m.spec),
    };
    const found = [...metaProblems, ...specProblems(kind, manifest)];
    for (const p of found) problems.push(`${where}: ${p}`);
    const handover = kind === ROLLOUT_KIND ? handedOverStatus(m.status) : undefined;
    converted.push({
      kind: kind as ConvertedKind,
      name,
      ...(manifest.metadata.namespace === undefined
        ? {}
        : { namespace: manifest.metadata.namespace }),
      manifest,
      ...(handover === undefined ? {} : { handover }),
    });
  }
  return { converted, problems, notes };
}

/** `List` documents (kubectl get -o yaml) are their items. */
function flatten(docs: readonly SourceDoc[]): SourceDoc[] {
  return docs.flatMap((d) =>
    isObj(d.value) && d.value.kind === 'List' && Array.isArray(d.value.items)
      ? (d.value.items as unknown[]).map((value, i) => ({
          source: `${d.source} item ${i + 1}`,
          value,
        }))
      : [d],
  );
}

function convertMeta(meta: Obj, name: string, problems: string[]): StepwiseManifest['metadata'] {
  const keep = (field: 'labels' | 'annotations'): Record<string, string> | undefined => {
    const values = isObj(meta[field]) ? meta[field] : {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(values)) {
      if (DROPPED_KEY(k) || typeof v !== 'string') continue;
      if (k.startsWith(`notifications.${ARGO_GROUP}/`)) {
        problems.push(
          `metadata.${field}.${k}: Argo's notification subscriptions are not converted (Stepwise's are notifications.stepwise.dev/*)`,
        );
        continue;
      }
      out[k] = v;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const namespace = str(meta.namespace);
  const labels = keep('labels');
  const annotations = keep('annotations');
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(labels === undefined ? {} : { labels }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

/** The spec without what the API server's serialisation adds (`creationTimestamp: null`). */
function cleanSpec(spec: unknown): unknown {
  const copy = structuredClone(spec ?? {});
  const meta = isObj(copy) && isObj(copy.template) ? copy.template.metadata : undefined;
  if (isObj(meta) && meta.creationTimestamp === null) delete meta.creationTimestamp;
  return copy;
}

function specProblems(kind: string, manifest: StepwiseManifest): string[] {
  if (kind !== ROLLOUT_KIND) return analysisTemplateSpecProblems(manifest.spec);
  const features = unconvertibleInRollout(manifest.spec).map(
    (f) => `${f.path}: Argo's ${f.what}, which Stepwise does not have`,
  );
  const spec = withoutUnconvertible(manifest.spec);
  const schema = [...rolloutSpecProblems(spec), ...rolloutTemplateProblems(spec)];
  if (features.length + schema.length > 0) return [...features, ...schema];
  const rollout = manifest as unknown as Rollout;
  return [...rolloutRuleProblems(rollout), ...routingProblems(rollout.spec.strategy.canary)];
}
