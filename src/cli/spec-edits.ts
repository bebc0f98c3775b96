/**
 * PURE: what restart, undo and set image write. Unlike promote/abort/retry these write `spec`:
 * restart because the controller reads `spec.restartAt` (declared intent compared with pod
 * creation times, as in Argo Rollouts), undo and set image because the pod template IS spec.
 * Undo and set image are for clusters without GitOps: a GitOps tool puts Git's template back.
 */
import { canonicalJson } from '../api/canonical-json.ts';
import { REVISION_ANNOTATION } from '../api/keys.ts';
import type { Rollout, WorkloadRef } from '../api/rollout.ts';
import type { JsonPatchOp } from './client.ts';
import type { ReplicaSetLike, WorkloadLike } from './render/objects.ts';
import { declaredTemplate } from '../rollout/index.ts';

export type SpecDecision =
  /** send `patch` (a merge patch object or JSON patch operations) to the Rollout, or to the
   *  workload `target` names, then print `message` */
  | {
      kind: 'patch';
      patch: object | readonly JsonPatchOp[];
      message: string;
      target?: WorkloadRef;
    }
  | { kind: 'noop'; message: string }
  | { kind: 'error'; message: string };

/**
 * `spec.restartAt` as RFC 3339 UTC in whole seconds (Argo's form), rounded UP: pod creation
 * times are whole seconds too, so a pod started earlier in the same second still counts as
 * older than the request.
 */
export function restartTime(nowMs: number, delayMs = 0): string {
  const seconds = Math.ceil((nowMs + delayMs) / 1000);
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

export function decideRestart(ro: Rollout, nowMs: number, delayMs = 0): SpecDecision {
  const name = ro.metadata.name ?? '';
  const restartAt = restartTime(nowMs, delayMs);
  const when = delayMs > 0 ? ` at ${restartAt}` : '';
  return {
    kind: 'patch',
    patch: { spec: { restartAt } },
    message: `rollout '${name}' restarts${when}: pods created before ${restartAt} are replaced, within maxUnavailable`,
  };
}

export const revisionOf = (rs: ReplicaSetLike): number | undefined => {
  const n = Number(rs.metadata?.annotations?.[REVISION_ANNOTATION]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** The Rollout's own ReplicaSets (controller owner reference to its uid), newest first. */
export function ownedRevisions(ro: Rollout, replicaSets: readonly ReplicaSetLike[]) {
  const uid = ro.metadata.uid;
  return replicaSets
    .filter(
      (rs) =>
        !rs.metadata?.deletionTimestamp &&
        rs.metadata?.ownerReferences?.some((o) => o.uid === uid && o.controller === true),
    )
    .flatMap((rs) => {
      const revision = revisionOf(rs);
      return revision === undefined ? [] : [{ revision, rs }];
    })
    .sort((a, b) => b.revision - a.revision);
}

type Template = NonNullable<Rollout['spec']['template']>;

/**
 * Where the pod template that undo and set image change lives: the Rollout's spec.template, or
 * the object its workloadRef names (the template is read from there on every pass, so that is
 * where a change takes effect; the Rollout's spec stays without one).
 */
export interface TemplateHolder {
  readonly template: Template | undefined;
  /** The template's JSON pointer in its object. */
  readonly path: '/spec/template' | '/template';
  readonly resourceVersion: string | undefined;
  /** Absent: the Rollout itself. */
  readonly workload?: WorkloadRef;
}

export function rolloutHolder(ro: Rollout): TemplateHolder {
  return {
    template: ro.spec.template,
    path: '/spec/template',
    resourceVersion: ro.metadata.resourceVersion,
  };
}

export function workloadHolder(ref: WorkloadRef, obj: WorkloadLike): TemplateHolder {
  const podTemplate = ref.kind === 'PodTemplate';
  return {
    template: (podTemplate ? obj.template : obj.spec?.template) as Template | undefined,
    path: podTemplate ? '/template' : '/spec/template',
    resourceVersion: obj.metadata?.resourceVersion,
    workload: ref,
  };
}

/** `Deployment "web"`, as the messages name where a template was written. */
const written = (h: TemplateHolder): string =>
  h.workload === undefined
    ? 'spec.template'
    : `the template of ${h.workload.kind} "${h.workload.name}"`;

/** A patch decision to the holder's object. */
const patchOf = (
  h: TemplateHolder,
  patch: readonly JsonPatchOp[],
  message: string,
): SpecDecision =>
  h.workload === undefined
    ? { kind: 'patch', patch, message }
    : { kind: 'patch', patch, message, target: h.workload };
/**
 * The Rollout's template as a ReplicaSet carries it, less what the controller added there: the
 * pod-template-hash label (as Argo's undo strips it), the role metadata keys it gives pods and
 * blue-green's anti-affinity term (the planner reads such a template as that ReplicaSet's own).
 */
export function templateOf(ro: Rollout, rs: ReplicaSetLike): Template {
  return declaredTemplate(ro, (rs.spec as { template?: Template } | undefined)?.template ?? {});
}

/**
 * `undo [--to-revision N]`: spec.template := the template of revision N (default: the one
 * before the newest). The patch carries the resourceVersion read, so a change in between is a
 * Conflict and the decision is made again on what is there now.
 */
export function decideUndo(
  ro: Rollout,
  replicaSets: readonly ReplicaSetLike[],
  toRevision: number | undefined,
  holder: TemplateHolder = rolloutHolder(ro),
): SpecDecision {
  const name = ro.metadata.name ?? '';
  const revisions = ownedRevisions(ro, replicaSets);
  const known = [...revisions].reverse().map((r) => r.revision);
  const listed = known.length > 0 ? `revisions on record: ${known.join(', ')}` : 'no revisions';
  let target: (typeof revisions)[number] | undefined;
  if (toRevision === undefined) {
    target = revisions[1];
    if (target === undefined) {
      return {
        kind: 'error',
        message: `rollout '${name}' has no previous revision to go back to (${listed})`,
      };
    }
  } else {
    target = revisions.find((r) => r.revision === toRevision);
    if (target === undefined) {
      return {
        kind: 'error',
        message: `revision ${toRevision} of rollout '${name}' not found (${listed})`,
      };
    }
  }
  // The template the planner saw (a workload's): what the controller added is told from it.
  const declared = { ...ro, spec: { ...ro.spec, template: holder.template } };
  const template = templateOf(declared, target.rs);
  if (canonicalJson(template) === canonicalJson(holder.template)) {
    return {
      kind: 'noop',
      message: `rollout '${name}' skipped undo: ${written(holder)} already matches revision ${target.revision}`,
    };
  }
  return patchOf(
    holder,
    [
      { op: 'replace', path: '/metadata/resourceVersion', value: holder.resourceVersion },
      { op: 'replace', path: holder.path, value: template },
    ],
    `rollout '${name}' rolled back to the template of revision ${target.revision} (${written(holder)} written)`,
  );
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** `CONTAINER=IMAGE` pairs (Argo's and kubectl's syntax; `*` is every container). */
export function parseImageArgs(args: readonly string[]): Map<string, string> | string {
  const pairs = new Map<string, string>();
  for (const arg of args) {
    const at = arg.indexOf('=');
    const container = arg.slice(0, at);
    const image = arg.slice(at + 1);
    if (at <= 0 || image === '' || /\s/.test(image)) {
      return `"${arg}" is not CONTAINER=IMAGE (or *=IMAGE for every container)`;
    }
    pairs.set(container, image);
  }
  return pairs.size > 0 ? pairs : 'set image needs at least one CONTAINER=IMAGE';
}

/**
 * `set image NAME CONTAINER=IMAGE...`: one JSON patch that tests each container's name at its
 * index and replaces its image, so a template changed in between fails rather than setting the
 * image of a container that moved.
 */
export function decideSetImage(
  ro: Rollout,
  images: ReadonlyMap<string, string>,
  holder: TemplateHolder = rolloutHolder(ro),
): SpecDecision {
  const name = ro.metadata.name ?? '';
  const spec = (holder.template?.spec ?? {}) as Partial<
    Record<(typeof CONTAINER_LISTS)[number], { name: string; image?: string }[]>
  >;
  const all = CONTAINER_LISTS.flatMap((list) =>
    (spec[list] ?? []).map((c, index) => ({ list, index, container: c })),
  );
  for (const wanted of images.keys()) {
    if (wanted !== '*' && !all.some((c) => c.container.name === wanted)) {
      const names = all.map((c) => c.container.name).join(', ') || 'none';
      return {
        kind: 'error',
        message: `rollout '${name}' has no container "${wanted}" (containers: ${names})`,
      };
    }
  }
  const ops: JsonPatchOp[] = [];
  for (const { list, index, container } of all) {
    const image = images.get(container.name) ?? images.get('*');
    if (image === undefined || image === container.image) continue;
    const at = `${holder.path}/spec/${list}/${index}`;
    ops.push({ op: 'test', path: `${at}/name`, value: container.name });
    ops.push({
      op: container.image === undefined ? 'add' : 'replace',
      path: `${at}/image`,
      value: image,
    });
  }
  if (ops.length === 0) {
    return { kind: 'noop', message: `rollout '${name}' already runs those images` };
  }
  const where = holder.workload === undefined ? '' : ` (${written(holder)})`;
  return patchOf(holder, ops, `rollout '${name}' image updated${where}`);
}
