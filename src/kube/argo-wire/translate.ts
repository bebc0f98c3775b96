/**
 * PURE: Stepwise's names on the wire as Argo Rollouts spells them, for the controller that
 * serves `argoproj.io` in place (`--api-group=argoproj.io`). Argo's API is ours field for field,
 * so serving Argo's objects is a matter of names: the group of the four kinds both projects
 * define, and the few label and annotation keys Argo's tooling reads (Argo CD's health script,
 * `kubectl argo rollouts`, dashboards). Everything above src/kube keeps speaking
 * `stepwise.dev`; this module renames on the way out and back on the way in, so no planner,
 * strategy or router has an Argo branch. Our own bookkeeping keys (`stepwise.dev/...`) are left
 * as they are: no Argo tool reads them.
 */
import {
  ANALYSIS_RUN_KIND,
  ANALYSIS_TEMPLATE_KIND,
  API_VERSION,
  ARGO_API_VERSION,
  ARGO_CONTROLLER_MANAGER,
  ARGO_GROUP,
  ARGO_INSTANCE_ID_LABEL,
  ARGO_MANAGED_BY_ANNOTATION,
  ARGO_REVISION_ANNOTATION,
  ARGO_SCALE_DOWN_DEADLINE_ANNOTATION,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  GROUP,
  INSTANCE_ID_LABEL,
  MANAGED_BY_ANNOTATION,
  REVISION_ANNOTATION,
  ROLLOUT_KIND,
  SCALE_DOWN_DEADLINE_ANNOTATION,
} from '../../api/keys.ts';
import type { ResourceType } from '../resources.ts';

/** The kinds Argo Rollouts defines too; RolloutApproval has no Argo counterpart and stays ours. */
export const ARGO_SERVED_KINDS: ReadonlySet<string> = new Set([
  ROLLOUT_KIND,
  ANALYSIS_RUN_KIND,
  ANALYSIS_TEMPLATE_KIND,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
]);

/** Our key → Argo's, for the keys Argo's tooling reads. */
const ANNOTATIONS: ReadonlyMap<string, string> = new Map([
  [REVISION_ANNOTATION, ARGO_REVISION_ANNOTATION],
  [SCALE_DOWN_DEADLINE_ANNOTATION, ARGO_SCALE_DOWN_DEADLINE_ANNOTATION],
  [MANAGED_BY_ANNOTATION, ARGO_MANAGED_BY_ANNOTATION],
]);
const LABELS: ReadonlyMap<string, string> = new Map([[INSTANCE_ID_LABEL, ARGO_INSTANCE_ID_LABEL]]);
const reverse = (m: ReadonlyMap<string, string>): ReadonlyMap<string, string> =>
  new Map([...m].map(([ours, theirs]) => [theirs, ours]));
const ANNOTATIONS_BACK = reverse(ANNOTATIONS);
const LABELS_BACK = reverse(LABELS);

export type Direction = 'out' | 'in';

/** The type as served: one of the four kinds moves to `argoproj.io`, anything else is as given. */
export function servedType(type: ResourceType): ResourceType {
  return type.group === GROUP && ARGO_SERVED_KINDS.has(type.kind)
    ? { ...type, group: ARGO_GROUP }
    : type;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `obj` with its names moved `out` (to the wire, Argo's) or `in` (from it, ours): the
 * `apiVersion` of the object, of its owner references and of an Event's subject (when the kind is
 * one Argo serves), and the mapped metadata keys. Where both spellings of a key are present the
 * renamed one wins (going in, Argo's spelling is what this controller writes; going out, ours is
 * what the planner means). Other fields and
 * objects are returned as they are (the same reference when nothing changes).
 */
export function translateObject<T>(obj: T, dir: Direction): T {
  if (!isObject(obj)) return obj;
  let out: Json = obj;
  const set = (key: string, value: unknown): void => {
    if (out === obj) out = { ...obj };
    out[key] = value;
  };
  const apiVersion = renamedApiVersion(obj.apiVersion, obj.kind, dir);
  if (apiVersion !== obj.apiVersion) set('apiVersion', apiVersion);
  if (isObject(obj.metadata)) {
    const metadata = translateMetadata(obj.metadata, dir);
    if (metadata !== obj.metadata) set('metadata', metadata);
  }
  // An Event's subject: `regarding`/`related` (events.k8s.io), `involvedObject` (core).
  for (const key of ['regarding', 'related', 'involvedObject']) {
    const ref = obj[key];
    if (!isObject(ref)) continue;
    const v = renamedApiVersion(ref.apiVersion, ref.kind, dir);
    if (v !== ref.apiVersion) set(key, { ...ref, apiVersion: v });
  }
  return out as T;
}

function renamedApiVersion(apiVersion: unknown, kind: unknown, dir: Direction): unknown {
  if (typeof kind !== 'string' || !ARGO_SERVED_KINDS.has(kind)) return apiVersion;
  if (dir === 'out' && apiVersion === API_VERSION) return ARGO_API_VERSION;
  if (dir === 'in' && apiVersion === ARGO_API_VERSION) return API_VERSION;
  return apiVersion;
}

function translateMetadata(meta: Json, dir: Direction): Json {
  let out = meta;
  const set = (key: string, value: unknown): void => {
    if (out === meta) out = { ...meta };
    out[key] = value;
  };
  const annotations = renamedKeys(meta.annotations, dir === 'out' ? ANNOTATIONS : ANNOTATIONS_BACK);
  if (annotations !== meta.annotations) set('annotations', annotations);
  const labels = renamedKeys(meta.labels, dir === 'out' ? LABELS : LABELS_BACK);
  if (labels !== meta.labels) set('labels', labels);
  if (Array.isArray(meta.ownerReferences)) {
    const refs: unknown[] = meta.ownerReferences;
    const moved = refs.map((r) =>
      isObject(r) ? { ...r, apiVersion: renamedApiVersion(r.apiVersion, r.kind, dir) } : r,
    );
    if (moved.some((r, i) => isObject(r) && r.apiVersion !== (refs[i] as Json).apiVersion)) {
      set('ownerReferences', moved);
    }
  }
  return out;
}

function renamedKeys(map: unknown, names: ReadonlyMap<string, string>): unknown {
  if (!isObject(map) || !Object.keys(map).some((k) => names.has(k))) return map;
  const out: Json = {};
  for (const [key, value] of Object.entries(map)) {
    if (!names.has(key)) out[key] = value;
  }
  for (const [key, value] of Object.entries(map)) {
    const renamed = names.get(key);
    if (renamed !== undefined) out[renamed] = value;
  }
  return out;
}

interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly subresource?: string;
}

/**
 * `managedFields` without what Argo's controller owns in `status`, or undefined when it owns
 * nothing there. Our status applies say "no pause", "no abortedAt" by leaving a field out; a
 * field another manager still owns would stay (server-side apply removes only what no one else
 * owns), so serving Argo's Rollouts in place takes its status fields over once, as a new owner
 * takes over from an old one: by dropping its entries.
 */
export function withoutArgoStatusOwnership(
  managedFields: readonly unknown[] | undefined,
): unknown[] | undefined {
  const argo = (e: unknown): boolean => {
    const entry = e as ManagedFieldsEntry;
    return entry.manager === ARGO_CONTROLLER_MANAGER && entry.subresource === 'status';
  };
  if (managedFields === undefined || !managedFields.some(argo)) return undefined;
  const kept = managedFields.filter((e) => !argo(e));
  // An empty list would leave managedFields as it is; `[{}]` is the documented way to clear it.
  return kept.length > 0 ? kept : [{}];
}

/** A label selector with our mapped label keys spelt as Argo spells them (`out`) or back. */
export function translateSelector(
  selector: string | undefined,
  dir: Direction,
): string | undefined {
  if (selector === undefined) return undefined;
  let out = selector;
  for (const [ours, theirs] of LABELS) {
    const [from, to] = dir === 'out' ? [ours, theirs] : [theirs, ours];
    out = out.split(from).join(to);
  }
  return out;
}
