/**
 * PURE: what restart, undo and set image write. Unlike promote/abort/retry these write `spec`:
 * restart because the controller reads `spec.restartAt` (declared intent compared with pod
 * creation times, as in Argo Rollouts), undo and set image because the pod template IS spec.
 * Undo and set image are for clusters without GitOps: a GitOps tool puts Git's template back.
 */
import { canonicalJson } from '../api/canonical-json.ts';
import { REVISION_ANNOTATION } from '../api/keys.ts';
import type { Rollout } from '../api/rollout.ts';
import type { JsonPatchOp } from './client.ts';
import type { ReplicaSetLike } from './render/objects.ts';
import { declaredTemplate } from '../rollout/index.ts';

export type SpecDecision =
  /** send `patch` (a merge patch object or JSON patch operations), then print `message` */
  | { kind: 'patch'; patch: object | readonly JsonPatchOp[]; message: string }
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
  const template = templateOf(ro, target.rs);
  if (canonicalJson(template) === canonicalJson(ro.spec.template)) {
    return {
      kind: 'noop',
      message: `rollout '${name}' skipped undo: spec.template already matches revision ${target.revision}`,
    };
  }
  return {
    kind: 'patch',
    patch: [
      { op: 'replace', path: '/metadata/resourceVersion', value: ro.metadata.resourceVersion },
      { op: 'replace', path: '/spec/template', value: template },
    ],
    message: `rollout '${name}' rolled back to the template of revision ${target.revision} (spec.template written)`,
  };
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
export function decideSetImage(ro: Rollout, images: ReadonlyMap<string, string>): SpecDecision {
  const name = ro.metadata.name ?? '';
  const spec = (ro.spec.template?.spec ?? {}) as Partial<
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
    const at = `/spec/template/spec/${list}/${index}`;
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
  return { kind: 'patch', patch: ops, message: `rollout '${name}' image updated` };
}
