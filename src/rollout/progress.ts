/**
 * Where a rollout stands in its steps: the fields of status that record it, and how a new
 * revision, a rollback to stable and an abort reset them. Values, not increments: a pass over a
 * stale cache repeats a decision instead of taking it twice.
 */
import { PauseReason } from '../api/index.ts';
import type { PauseCondition, RolloutStatus } from '../api/index.ts';

export interface Progress {
  readonly stepIndex: number;
  readonly pauseConditions: readonly PauseCondition[];
  readonly controllerPause: boolean;
  readonly abort: boolean;
  readonly abortedAt?: string;
  readonly promoteFull: boolean;
  readonly stableHash: string;
}

export function readProgress(status: RolloutStatus, stableHash: string): Progress {
  return {
    stepIndex: status.currentStepIndex ?? 0,
    pauseConditions: status.pauseConditions ?? [],
    controllerPause: status.controllerPause === true,
    abort: status.abort === true,
    abortedAt: status.abortedAt,
    promoteFull: status.promoteFull === true,
    stableHash,
  };
}

/** A person's pause (`kubectl stepwise pause`): held until they resume, across new revisions. */
export function pausedByUser(p: Progress): boolean {
  return p.pauseConditions.some((c) => c.reason === PauseReason.PausedByUser);
}

const userPauses = (p: Progress): PauseCondition[] =>
  p.pauseConditions.filter((c) => c.reason === PauseReason.PausedByUser);

/** A new template (or new steps): start the steps again, forget pauses (but a person's),
 *  abort and promote-full. */
export function restartSteps(p: Progress): Progress {
  return {
    stepIndex: 0,
    pauseConditions: userPauses(p),
    controllerPause: false,
    abort: false,
    promoteFull: false,
    stableHash: p.stableHash,
  };
}

/** Template equals the stable one (steady state, or rolled back): nothing left to do; a
 *  person's pause stays (it holds the next update, as spec.paused would) until they resume. */
export function settled(p: Progress, stepCount: number): Progress {
  return {
    stepIndex: stepCount,
    pauseConditions: userPauses(p),
    controllerPause: false,
    abort: false,
    promoteFull: false,
    stableHash: p.stableHash,
  };
}
