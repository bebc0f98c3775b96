/**
 * A ReplicaSet's pod template as the Rollout declared it: less what the controller adds (the
 * pod-template hash label, the role metadata a strategy gives pods, blue-green's anti-affinity
 * term). The plugin's `undo` writes such a template back into spec.template, with the defaults
 * the API server filled in, so its hash is not the ReplicaSet's; the planner still knows that
 * ReplicaSet as the template's own (Argo's FindNewReplicaSet), which makes an undo to a version
 * still up a rollback rather than a new revision. Pure.
 */
import { HOSTNAME_TOPOLOGY_KEY, POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';
import type { PodMetadata, PodSpec, PodTemplateSpec, ReplicaSet, Rollout } from '../api/index.ts';
import { sameTemplate } from './template-defaults.ts';

type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

/** The role metadata a Rollout's strategy gives pods (canary/stable, active/preview). */
function roleMetadata(rollout: Rollout): PodMetadata[] {
  const { canary, blueGreen } = rollout.spec.strategy;
  return [
    canary?.canaryMetadata,
    canary?.stableMetadata,
    blueGreen?.activeMetadata,
    blueGreen?.previewMetadata,
  ].filter((m): m is PodMetadata => m !== undefined);
}

export function declaredTemplate(rollout: Rollout, template: PodTemplateSpec): PodTemplateSpec {
  const out = structuredClone(template);
  const declared = (rollout.spec.template?.metadata ?? {}) as Meta;
  const meta = (out.metadata ?? {}) as Meta;
  const roles = roleMetadata(rollout);
  for (const field of ['labels', 'annotations'] as const) {
    const values = meta[field];
    if (values === undefined) continue;
    if (field === 'labels') delete values[POD_TEMPLATE_HASH_LABEL];
    for (const key of roles.flatMap((m) => Object.keys(m[field] ?? {}))) {
      if (declared[field]?.[key] === undefined) delete values[key];
    }
    if (Object.keys(values).length === 0) delete meta[field];
  }
  if (out.spec !== undefined) out.spec = withoutAntiAffinityTerm(out.spec);
  return out;
}

/** Blue-green's term: pods with a pod-template hash In [...], per node. */
function isOurTerm(term: {
  readonly labelSelector?: { readonly matchExpressions?: readonly { readonly key: string }[] };
  readonly topologyKey?: string;
}): boolean {
  const exprs = term.labelSelector?.matchExpressions ?? [];
  return (
    term.topologyKey === HOSTNAME_TOPOLOGY_KEY &&
    exprs.length === 1 &&
    exprs[0]?.key === POD_TEMPLATE_HASH_LABEL
  );
}

function withoutAntiAffinityTerm(spec: PodSpec): PodSpec {
  const anti = spec.affinity?.podAntiAffinity;
  if (anti === undefined) return spec;
  const required = (anti.requiredDuringSchedulingIgnoredDuringExecution ?? []).filter(
    (t) => !isOurTerm(t),
  );
  const preferred = (anti.preferredDuringSchedulingIgnoredDuringExecution ?? []).filter(
    (t) => !isOurTerm(t.podAffinityTerm),
  );
  const podAntiAffinity = {
    ...(required.length > 0 ? { requiredDuringSchedulingIgnoredDuringExecution: required } : {}),
    ...(preferred.length > 0 ? { preferredDuringSchedulingIgnoredDuringExecution: preferred } : {}),
  };
  const { podAntiAffinity: _dropped, ...rest } = spec.affinity ?? {};
  const affinity = Object.keys(podAntiAffinity).length > 0 ? { ...rest, podAntiAffinity } : rest;
  const { affinity: _old, ...others } = spec;
  return Object.keys(affinity).length > 0 ? { ...others, affinity } : others;
}

/** The live ReplicaSet whose template is the Rollout's (once the controller's additions are
 *  taken off, and up to the API server's defaults: Argo's ReplicaSets and undone templates),
 *  when none carries the template's hash. */
export function replicaSetOfTemplate(
  replicaSets: readonly ReplicaSet[],
  rollout: Rollout,
): ReplicaSet | undefined {
  return replicaSets.find(
    (rs) =>
      !rs.metadata?.deletionTimestamp &&
      rs.spec?.template !== undefined &&
      sameTemplate(rollout.spec.template, declaredTemplate(rollout, rs.spec.template)),
  );
}
