/**
 * `spec.workloadRef` around a strategy's pass: before it, the Rollout resolved against the
 * observed referent (resolve.ts); after it, the referent's generation in
 * `status.workloadObservedGeneration` and the Deployment's scale-down (scale-down.ts). The
 * strategies never see a workloadRef: they plan the effective Rollout as if its template were
 * inline.
 */
import { Phase } from '../../api/index.ts';
import type { Deployment, RolloutStatus } from '../../api/index.ts';
import type { StrategyPlan } from '../strategy.ts';
import type { Observed } from '../types.ts';
import { describe } from './resolve.ts';
import { scaleDownWorkload } from './scale-down.ts';

export { describe as describeWorkload, resolveWorkload } from './resolve.ts';
export type { ObservedWorkload, Referent, Resolution } from './resolve.ts';

/** The status with the referent's generation (absent: the field goes, as for an inline
 *  template). */
export function withWorkloadGeneration(
  status: RolloutStatus,
  generation: string | undefined,
): RolloutStatus {
  const { workloadObservedGeneration: _old, ...rest } = status;
  return generation === undefined ? rest : { ...rest, workloadObservedGeneration: generation };
}

/**
 * What the workloadRef adds to a strategy's pass: the generation, the Deployment's scale-down,
 * and no Healthy while a migrated Deployment still runs pods (both would run full while every
 * report said Healthy: argo-rollouts#4935).
 */
export function afterStrategy(
  o: Observed,
  generation: string | undefined,
  planned: StrategyPlan,
): StrategyPlan {
  const status = withWorkloadGeneration(planned.status, generation);
  const deployment = deploymentOf(o);
  if (deployment === undefined) return { ...planned, status };
  const decision = scaleDownWorkload({
    rollout: o.rollout,
    deployment,
    replicaSets: o.replicaSets,
    status: planned.status,
  });
  const fragments = [...planned.fragments, decision.fragment];
  const running = Math.max(deployment.spec?.replicas ?? 1, deployment.status?.replicas ?? 0);
  if (!decision.migrated || status.phase !== Phase.Healthy || running === 0) {
    return { fragments, status };
  }
  const ref = o.rollout.spec.workloadRef;
  const message = `waiting for ${ref ? describe(ref) : 'the workload'} to scale down to 0`;
  return { fragments, status: { ...status, phase: Phase.Progressing, message } };
}

function deploymentOf(o: Observed): Deployment | undefined {
  const object = o.workload?.object;
  return o.rollout.spec.workloadRef?.kind === 'Deployment' && object?.kind !== 'PodTemplate'
    ? (object as Deployment | undefined)
    : undefined;
}
