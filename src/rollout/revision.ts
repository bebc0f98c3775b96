/**
 * Where a canary pass starts from: the template's hash and revision, the ReplicaSets sorted into
 * current, stable and others, and the step progress this pass begins with (a new template or
 * steps restart them, a fresh abort or retry is recorded, a return to stable settles them), with
 * the events that say so. Pure.
 */
import { PauseReason, Reason } from '../api/index.ts';
import type { ReplicaSet } from '../api/index.ts';
import { podTemplateHash } from './hash.ts';
import { normal, warning } from './pass.ts';
import type { Pass } from './pass.ts';
import { readProgress, restartSteps, settled } from './progress.ts';
import type { Progress } from './progress.ts';
import { classify, hashOf, nextRevision, revisionOf } from './replicasets.ts';
import { stepsHash } from './steps.ts';

export interface Revision {
  readonly hash: string;
  readonly stepsHash: string;
  readonly revision: number;
  /** The template is the stable one: nothing to walk. */
  readonly steady: boolean;
  readonly current?: ReplicaSet;
  readonly stable?: ReplicaSet;
  readonly others: readonly ReplicaSet[];
}

export function locate(pass: Pass): { where: Revision; progress: Progress } {
  const { rollout, replicaSets } = pass.o;
  const status = rollout.status ?? {};
  const steps = pass.canary.steps ?? [];
  const hash = podTemplateHash(rollout.spec.template, status.collisionCount ?? 0);
  const progress = readProgress(status, status.stableRS ?? initialStable(replicaSets, hash));
  const steady = hash === progress.stableHash;
  const { current, stable, others } = classify(
    replicaSets,
    hash,
    steady ? undefined : progress.stableHash,
  );
  const where: Revision = {
    hash,
    stepsHash: stepsHash(steps),
    revision: current ? revisionOf(current) : nextRevision(replicaSets),
    steady,
    current,
    stable,
    others,
  };
  return { where, progress: startingProgress(pass, where, progress) };
}

/** The progress this pass starts from, and the event for a transition it records. */
function startingProgress(pass: Pass, where: Revision, progress: Progress): Progress {
  const status = pass.o.rollout.status ?? {};
  const steps = pass.canary.steps ?? [];
  const { hash, revision } = where;
  if (where.steady) {
    if (status.currentPodHash !== undefined && status.currentPodHash !== hash) {
      pass.after.push(
        normal(
          Reason.RolloutUpdated,
          `Rollout went back to the stable revision ${revision} (${hash}): steps skipped`,
        ),
      );
    }
    return settled(progress, steps.length);
  }
  if (status.currentPodHash !== hash || status.currentStepHash !== where.stepsHash) {
    pass.after.push(normal(Reason.RolloutUpdated, `Rollout updated to revision ${revision}`));
    return restartSteps(progress);
  }
  if (progress.abort && progress.abortedAt === undefined) {
    pass.after.push(
      warning(Reason.RolloutAborted, `Rollout aborted update to revision ${revision}`),
    );
    return {
      ...progress,
      stepIndex: 0,
      // Our pauses go with the steps; a person's pause holds until they resume.
      pauseConditions: progress.pauseConditions.filter(
        (c) => c.reason === PauseReason.PausedByUser,
      ),
      controllerPause: false,
      abortedAt: new Date(pass.o.now).toISOString(),
    };
  }
  if (!progress.abort && status.abortedAt !== undefined) {
    pass.after.push(normal(Reason.RolloutRetry, `Rollout retrying update to revision ${revision}`));
  }
  return progress;
}

/** No stableRS yet: the first template is stable at once (a first deploy has no steps); if
 *  status was lost, the newest other ReplicaSet with available pods is. */
function initialStable(replicaSets: readonly ReplicaSet[], hash: string): string {
  const candidates = replicaSets
    .filter((rs) => hashOf(rs) !== hash && available(rs) > 0)
    .sort((a, b) => revisionOf(b) - revisionOf(a));
  return (candidates[0] && hashOf(candidates[0])) ?? hash;
}

export function available(rs: ReplicaSet): number {
  return rs.status?.availableReplicas ?? 0;
}
