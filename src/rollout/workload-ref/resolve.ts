/**
 * A Rollout whose pod template comes from `spec.workloadRef`, resolved against the referent the
 * shell observed: the effective Rollout carries the referent's template (and its selector when
 * the Rollout has none) as if they were inline, so the strategies plan it without knowing where
 * the template came from. Nothing of it is ever written back: the Rollout's spec stays Git's.
 */
import {
  rolloutSpecProblems,
  WORKLOAD_API_VERSIONS,
  workloadSourceProblem,
} from '../../api/index.ts';
import type {
  Deployment,
  LabelSelector,
  PodTemplate,
  PodTemplateSpec,
  ReplicaSet,
  Rollout,
  WorkloadRef,
} from '../../api/index.ts';
import { selectorIsEmpty, selectorMatches } from '../../api/selector.ts';

/** An object a workloadRef may name. */
export type Referent = Deployment | ReplicaSet | PodTemplate;

/** What the shell read for a Rollout's workloadRef: absent `object` = not found, unless
 *  `unreadable` says why the controller cannot read that kind at all. */
export interface ObservedWorkload {
  readonly object?: Referent;
  readonly unreadable?: string;
}

export type Resolution =
  /** `rollout`: the effective Rollout; `generation`: the referent's (absent: inline template). */
  | { readonly ok: true; readonly rollout: Rollout; readonly generation?: string }
  | { readonly ok: false; readonly problem: string; readonly generation?: string };

/**
 * The Rollout the strategies plan. A spec the schema refuses is returned as it is (the planner
 * reports the schema's problems); a workloadRef that cannot be resolved is one problem.
 */
export function resolveWorkload(rollout: Rollout, workload?: ObservedWorkload): Resolution {
  const spec = rollout.spec;
  if (rolloutSpecProblems(spec).length > 0) return { ok: true, rollout };
  const source = workloadSourceProblem(spec);
  if (source !== undefined) return { ok: false, problem: source };
  const ref = spec.workloadRef;
  if (ref === undefined) return { ok: true, rollout };
  const object = workload?.object;
  if (object === undefined && workload?.unreadable !== undefined) {
    return {
      ok: false,
      problem: `spec.workloadRef: ${describe(ref)} cannot be read: ${workload.unreadable}`,
    };
  }
  if (object === undefined || !isKind(object, ref)) {
    return { ok: false, problem: `spec.workloadRef: ${describe(ref)} not found` };
  }
  const generation = String(object.metadata?.generation ?? 0);
  const template = templateOf(object);
  if (template === undefined) {
    return {
      ok: false,
      problem: `spec.workloadRef: ${describe(ref)} has no pod template`,
      generation,
    };
  }
  const selector = spec.selector ?? selectorOf(object);
  if (selector === undefined) {
    const problem = `spec.selector: must be set (${describe(ref)} has no selector to take)`;
    return { ok: false, problem, generation };
  }
  const problem = selectorProblem(selector, template, ref);
  if (problem !== undefined) return { ok: false, problem, generation };
  const { workloadRef: _ref, ...inline } = spec;
  return { ok: true, rollout: { ...rollout, spec: { ...inline, template, selector } }, generation };
}

/** `Deployment "web"`, as problems and events name a referent. */
export function describe(ref: Pick<WorkloadRef, 'kind' | 'name'>): string {
  return `${ref.kind} "${ref.name}"`;
}

function selectorProblem(
  selector: LabelSelector,
  template: PodTemplateSpec,
  ref: WorkloadRef,
): string | undefined {
  if (selectorIsEmpty(selector))
    return 'spec.selector: must not be empty (it would select all pods)';
  if (!selectorMatches(selector, template.metadata?.labels ?? {})) {
    return `spec.selector: must match the labels of ${describe(ref)}'s pod template`;
  }
  return undefined;
}

/** The cache is keyed by kind, but a test or a stale cache may hand over another kind. */
function isKind(object: Referent, ref: WorkloadRef): boolean {
  const kind = object.kind ?? ref.kind;
  const apiVersion = object.apiVersion ?? WORKLOAD_API_VERSIONS[ref.kind];
  return kind === ref.kind && apiVersion === WORKLOAD_API_VERSIONS[ref.kind];
}

function templateOf(object: Referent): PodTemplateSpec | undefined {
  if ('template' in object && object.template !== undefined) return object.template;
  return 'spec' in object ? object.spec?.template : undefined;
}

function selectorOf(object: Referent): LabelSelector | undefined {
  if (!('spec' in object)) return undefined;
  const selector = object.spec?.selector;
  if (selector === undefined) return undefined;
  // The client library's type allows nulls the API server never sends; the schema's does not.
  return selector as LabelSelector;
}
