/**
 * `spec.workloadRef`'s rules that need no cluster: a Rollout takes its pod template either inline
 * or from one referenced workload, never both and never neither, and names a kind at the
 * apiVersion the controller reads it at. Each problem is one line; the planner reports the first
 * alone (a Rollout with both gets exactly one condition saying so).
 */
import type { RolloutSpec, WorkloadKind } from './rollout.ts';

/** The apiVersion each referenced kind is read at (Argo's three kinds, by group and kind). */
export const WORKLOAD_API_VERSIONS: Readonly<Record<WorkloadKind, string>> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  PodTemplate: 'v1',
};

/** The one problem with where the spec's pod template comes from, if any. */
export function workloadSourceProblem(spec: RolloutSpec): string | undefined {
  const ref = spec.workloadRef;
  if (ref === undefined) {
    return spec.template === undefined
      ? 'spec.template: must be set, or spec.workloadRef must name a Deployment, ReplicaSet or PodTemplate to take it from'
      : undefined;
  }
  if (spec.template !== undefined) {
    return `spec.template: must not be set together with spec.workloadRef (the pod template comes from ${ref.kind} "${ref.name}")`;
  }
  const apiVersion = WORKLOAD_API_VERSIONS[ref.kind];
  if (ref.apiVersion !== apiVersion) {
    return `spec.workloadRef.apiVersion: must be ${apiVersion} for kind ${ref.kind}`;
  }
  if (ref.kind !== 'Deployment' && (ref.scaleDown ?? 'never') !== 'never') {
    return `spec.workloadRef.scaleDown: must be never for kind ${ref.kind} (only a Deployment is scaled down)`;
  }
  return undefined;
}
