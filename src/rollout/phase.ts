/**
 * The phase and message of a Rollout, derived from its status as Argo Rollouts does
 * (CalculateRolloutPhase), so tooling written for Argo's status reads ours the same way.
 */
import { ConditionType, Phase, Reason } from '../api/index.ts';
import type { Condition, PauseCondition } from '../api/index.ts';

export interface PhaseInput {
  readonly conditions: readonly Condition[];
  readonly specPaused: boolean;
  readonly pauseConditions: readonly PauseCondition[];
  readonly restartPending: boolean;
  /** spec.replicas */
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly availableReplicas: number;
  /** All pods of all ReplicaSets (status.replicas). */
  readonly totalReplicas: number;
  /** stableRS == currentPodHash */
  readonly fullyPromoted: boolean;
  /** The strategy's own reason it is not done yet (blue-green: "active service cutover
   *  pending", "waiting for analysis to complete"). */
  readonly strategyPending?: string;
}

export interface PhaseResult {
  readonly phase: Phase;
  readonly message: string;
}

export function computePhase(i: PhaseInput): PhaseResult {
  const invalid = i.conditions.find((c) => c.type === ConditionType.InvalidSpec);
  if (invalid)
    return { phase: Phase.Degraded, message: `${Reason.InvalidSpec}: ${invalid.message}` };
  // Argo's two, plus a ReplicaSet write the API server refused: nothing moves until the spec
  // (or whatever refused it) changes, so people must look.
  const failed = i.conditions.find(
    (c) =>
      c.type === ConditionType.Progressing &&
      (c.reason === Reason.RolloutAborted ||
        c.reason === Reason.ProgressDeadlineExceeded ||
        c.reason === Reason.ReplicaSetCreateError ||
        c.reason === Reason.ReconciliationError),
  );
  if (failed) return { phase: Phase.Degraded, message: `${failed.reason}: ${failed.message}` };
  if (i.specPaused) return { phase: Phase.Paused, message: 'manually paused' };
  const pause = i.pauseConditions[0];
  if (pause) return { phase: Phase.Paused, message: pause.reason };
  if (i.restartPending) return progressing('rollout is restarting');
  if (i.updatedReplicas < i.replicas) return progressing('more replicas need to be updated');
  if (i.availableReplicas < i.updatedReplicas)
    return progressing('updated replicas are still becoming available');
  if (i.totalReplicas > i.updatedReplicas)
    return progressing('old replicas are pending termination');
  if (i.strategyPending !== undefined) return progressing(i.strategyPending);
  if (!i.fullyPromoted) return progressing('waiting for all steps to complete');
  return { phase: Phase.Healthy, message: '' };
}

function progressing(message: string): PhaseResult {
  return { phase: Phase.Progressing, message };
}
