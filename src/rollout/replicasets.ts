/**
 * The ReplicaSets of a Rollout: which is the canary (current template), which the stable, which
 * are older; and the whole body of a ReplicaSet we own, for server-side apply.
 */
import {
  API_VERSION,
  GITOPS_TRACKING_KEYS,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  ROLE_KEYS_ANNOTATION,
  ROLLOUT_KIND,
  SCALE_DOWN_DEADLINE_ANNOTATION,
} from '../api/index.ts';
import type { PodMetadata, PodSpec, ReplicaSet, Rollout } from '../api/index.ts';
import { controllerOwnerReference } from '../api/owner-reference.ts';

export interface Classified {
  /** Template == spec.template (the canary while a rollout is in flight). */
  readonly current?: ReplicaSet;
  /** status.stableRS, when it is not the current one. */
  readonly stable?: ReplicaSet;
  /** Everything else, newest revision first. */
  readonly others: readonly ReplicaSet[];
}

/** The pod-template hash an object (ReplicaSet or pod) carries in its labels. */
export function hashOf(o: {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>> };
}): string | undefined {
  return o.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
}

export function revisionOf(rs: ReplicaSet): number {
  const n = Number(rs.metadata?.annotations?.[REVISION_ANNOTATION]);
  return Number.isSafeInteger(n) ? n : 0;
}

export function classify(
  replicaSets: readonly ReplicaSet[],
  currentHash: string,
  stableHash: string | undefined,
): Classified {
  let current: ReplicaSet | undefined;
  let stable: ReplicaSet | undefined;
  const others: ReplicaSet[] = [];
  for (const rs of replicaSets) {
    if (rs.metadata?.deletionTimestamp) continue;
    const hash = hashOf(rs);
    if (hash === currentHash) current = rs;
    else if (hash !== undefined && hash === stableHash) stable = rs;
    else others.push(rs);
  }
  others.sort((a, b) => revisionOf(b) - revisionOf(a));
  return { current, stable, others };
}

export function nextRevision(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0) + 1;
}

function replicaSetName(rolloutName: string, hash: string): string {
  return `${rolloutName}-${hash}`;
}

export interface ReplicaSetShape {
  readonly hash: string;
  readonly replicas: number;
  readonly revision: number;
  /** canaryMetadata or stableMetadata, merged into the pod template. */
  readonly roleMetadata?: PodMetadata;
  /** RFC 3339; the ReplicaSet is scaled down after it. */
  readonly scaleDownDeadline?: string;
  /** The pod spec to use instead of the template's (blue-green adds its anti-affinity). The
   *  hash is still the template's, so what the strategy adds never makes a new revision. */
  readonly podSpec?: PodSpec;
}

/** The complete ReplicaSet we apply: SSA drops any field we owned and leave out, so every
 *  apply carries the whole object. */
export function replicaSetBody(rollout: Rollout, shape: ReplicaSetShape): ReplicaSet {
  const { spec, metadata } = rollout;
  // The planner sees the resolved Rollout (workload-ref/): a template and a selector are set.
  const template = spec.template ?? {};
  const selector = spec.selector ?? {};
  const podLabels = {
    // The pods keep every template label: selectors (Helm's app.kubernetes.io/instance, say)
    // may need them. Only the ReplicaSet's own metadata drops GitOps tracking keys.
    ...template.metadata?.labels,
    ...shape.roleMetadata?.labels,
    [POD_TEMPLATE_HASH_LABEL]: shape.hash,
  };
  const podAnnotations = { ...template.metadata?.annotations, ...shape.roleMetadata?.annotations };
  const annotations: Record<string, string> = { [REVISION_ANNOTATION]: String(shape.revision) };
  const roleKeys = roleKeysAnnotation(shape.roleMetadata);
  if (roleKeys !== undefined) annotations[ROLE_KEYS_ANNOTATION] = roleKeys;
  if (shape.scaleDownDeadline !== undefined) {
    annotations[SCALE_DOWN_DEADLINE_ANNOTATION] = shape.scaleDownDeadline;
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: replicaSetName(metadata.name ?? '', shape.hash),
      namespace: metadata.namespace,
      labels: {
        ...withoutTracking(template.metadata?.labels),
        [POD_TEMPLATE_HASH_LABEL]: shape.hash,
      },
      annotations,
      ownerReferences: [
        controllerOwnerReference({ apiVersion: API_VERSION, kind: ROLLOUT_KIND, metadata }),
      ],
    },
    spec: {
      replicas: shape.replicas,
      minReadySeconds: spec.minReadySeconds ?? 0,
      selector: {
        ...selector,
        matchLabels: { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: shape.hash },
      },
      template: {
        ...template,
        metadata: {
          ...template.metadata,
          labels: podLabels,
          ...(Object.keys(podAnnotations).length > 0 ? { annotations: podAnnotations } : {}),
        },
        ...(shape.podSpec === undefined ? {} : { spec: shape.podSpec }),
      },
    },
  };
}

export interface Rescale {
  readonly replicas: number;
  /** Role metadata the pods should carry, and the other role's, to take off the template. */
  readonly roleMetadata?: PodMetadata;
  readonly dropMetadata?: PodMetadata;
  readonly scaleDownDeadline?: string;
}

/** An existing ReplicaSet with a new size (and role metadata): its own template, not the
 *  Rollout's, which may since have changed. */
export function rescaledBody(rs: ReplicaSet, change: Rescale): ReplicaSet {
  const meta = rs.metadata ?? {};
  const template = rs.spec?.template ?? {};
  const annotations: Record<string, string> = {};
  const revision = meta.annotations?.[REVISION_ANNOTATION];
  if (revision !== undefined) annotations[REVISION_ANNOTATION] = revision;
  if (change.scaleDownDeadline !== undefined) {
    annotations[SCALE_DOWN_DEADLINE_ANNOTATION] = change.scaleDownDeadline;
  }
  // Keys we put there before and the role no longer has go too (a key removed from the spec).
  const stale = staleRoleKeys(rs, change.roleMetadata);
  const roleKeys =
    change.roleMetadata === undefined
      ? meta.annotations?.[ROLE_KEYS_ANNOTATION]
      : roleKeysAnnotation(change.roleMetadata);
  if (roleKeys !== undefined) annotations[ROLE_KEYS_ANNOTATION] = roleKeys;
  const podLabels = swapRole(template.metadata?.labels, change.roleMetadata?.labels, {
    ...change.dropMetadata?.labels,
    ...stale.labels,
  });
  const podAnnotations = swapRole(
    template.metadata?.annotations,
    change.roleMetadata?.annotations,
    { ...change.dropMetadata?.annotations, ...stale.annotations },
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      labels: meta.labels,
      annotations,
      ownerReferences: meta.ownerReferences,
    },
    spec: {
      replicas: change.replicas,
      minReadySeconds: rs.spec?.minReadySeconds,
      selector: rs.spec?.selector ?? {},
      template: {
        ...template,
        metadata: {
          ...template.metadata,
          labels: podLabels,
          ...(podAnnotations && Object.keys(podAnnotations).length > 0
            ? { annotations: podAnnotations }
            : {}),
        },
      },
    },
  };
}

interface RoleKeys {
  readonly labels: readonly string[];
  readonly annotations: readonly string[];
}

function roleKeysAnnotation(role: PodMetadata | undefined): string | undefined {
  if (role === undefined) return undefined;
  const keys: RoleKeys = {
    labels: Object.keys(role.labels ?? {}).sort(),
    annotations: Object.keys(role.annotations ?? {}).sort(),
  };
  return keys.labels.length + keys.annotations.length === 0 ? undefined : JSON.stringify(keys);
}

function recordedRoleKeys(rs: ReplicaSet): RoleKeys {
  try {
    const parsed = JSON.parse(rs.metadata?.annotations?.[ROLE_KEYS_ANNOTATION] ?? '{}') as Partial<
      Record<keyof RoleKeys, unknown>
    >;
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    return { labels: strings(parsed.labels), annotations: strings(parsed.annotations) };
  } catch {
    return { labels: [], annotations: [] };
  }
}

/** Role keys recorded on the ReplicaSet that `role` no longer has, as metadata to drop. */
export function staleRoleKeys(
  rs: ReplicaSet | undefined,
  role: PodMetadata | undefined,
): PodMetadata {
  if (rs === undefined || role === undefined) return {};
  const recorded = recordedRoleKeys(rs);
  const gone = (keys: readonly string[], kept: Record<string, string> | undefined) =>
    Object.fromEntries(keys.filter((k) => !(k in (kept ?? {}))).map((k) => [k, '']));
  return {
    labels: gone(recorded.labels, role.labels),
    annotations: gone(recorded.annotations, role.annotations),
  };
}

function swapRole(
  have: Record<string, string> | undefined,
  want: Record<string, string> | undefined,
  drop: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (want === undefined && drop === undefined) return have;
  const out: Record<string, string> = { ...have };
  for (const k of Object.keys(drop ?? {})) if (!(k in (want ?? {}))) delete out[k];
  return { ...out, ...want };
}

function withoutTracking(labels: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (!GITOPS_TRACKING_KEYS.includes(k)) out[k] = v;
  }
  return out;
}

/** True when applying `desired` would change what we own on `observed`. */
export function replicaSetDiffers(observed: ReplicaSet, desired: ReplicaSet): boolean {
  const o = observed.metadata?.annotations ?? {};
  const d = desired.metadata?.annotations ?? {};
  if ((observed.spec?.replicas ?? 0) !== (desired.spec?.replicas ?? 0)) return true;
  for (const key of [REVISION_ANNOTATION, SCALE_DOWN_DEADLINE_ANNOTATION, ROLE_KEYS_ANNOTATION]) {
    if (o[key] !== d[key]) return true;
  }
  const ol = observed.spec?.template?.metadata?.labels ?? {};
  const dl = desired.spec?.template?.metadata?.labels ?? {};
  const oa = observed.spec?.template?.metadata?.annotations ?? {};
  const da = desired.spec?.template?.metadata?.annotations ?? {};
  return !sameMap(ol, dl) || !sameMap(oa, da);
}

function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
