/**
 * Where a canary pass starts from: the template's hash and revision, the ReplicaSets sorted into
 * current, stable and others, and the step progress this pass begins with (a new template or
 * steps restart them, a fresh abort or retry is recorded, a return to stable settles them), with
 * the events that say so. Strategy-neutral: the strategy gives its step count and steps hash
 * (none for a strategy without steps). Pure.
 */
import { PauseReason, Reason } from '../api/index.ts';
import type { ReplicaSet } from '../api/index.ts';
import { podTemplateHash } from './hash.ts';
import { normal, warning } from './events.ts';
import type { Fragment } from './order.ts';
import { readProgress, restartSteps, settled } from './progress.ts';
import type { Progress } from './progress.ts';
import { classify, hashOf, nextRevision, revisionOf } from './replicasets.ts';
import { replicaSetOfTemplate } from './template-match.ts';
import type { EventWrite, Observed } from './types.ts';

export interface Revision {
  readonly hash: string;
  /** Absent for a strategy without steps. */
  readonly stepsHash?: string;
  readonly revision: number;
  /** The template is the stable one: nothing to walk. */
  readonly steady: boolean;
  readonly current?: ReplicaSet;
  readonly stable?: ReplicaSet;
  readonly others: readonly ReplicaSet[];
}

/** The strategy's steps, as far as where a pass starts from is concerned. */
export interface StepsShape {
  readonly count: number;
  /** A change of steps restarts them (as a new template does); absent: no steps. */
  readonly hash?: string;
}

export interface Located {
  readonly where: Revision;
  readonly progress: Progress;
  readonly fragment: Fragment;
}

export function locate(o: Observed, steps: StepsShape): Located {
  const { rollout, replicaSets } = o;
  const status = rollout.status ?? {};
  const hash = templateHash(o);
  const progress = readProgress(status, status.stableRS ?? initialStable(replicaSets, hash));
  const steady = hash === progress.stableHash;
  const { current, stable, others } = classify(
    replicaSets,
    hash,
    steady ? undefined : progress.stableHash,
  );
  const where: Revision = {
    hash,
    ...(steps.hash === undefined ? {} : { stepsHash: steps.hash }),
    revision: current ? revisionOf(current) : nextRevision(replicaSets),
    steady,
    current,
    stable,
    others,
  };
  const start = startingProgress(o, where, progress, steps.count);
  return { where, progress: start.progress, fragment: { events: start.events } };
}

/** The progress this pass starts from, and the event for a transition it records. */
function startingProgress(
  o: Observed,
  where: Revision,
  progress: Progress,
  stepCount: number,
): { progress: Progress; events: readonly EventWrite[] } {
  const status = o.rollout.status ?? {};
  const { hash, revision } = where;
  if (where.steady) {
    const back =
      status.currentPodHash !== undefined && status.currentPodHash !== hash
        ? [
            normal(
              Reason.RolloutUpdated,
              `Rollout went back to the stable revision ${revision} (${hash}): steps skipped`,
            ),
          ]
        : [];
    return { progress: settled(progress, stepCount), events: back };
  }
  if (status.currentPodHash !== hash || status.currentStepHash !== where.stepsHash) {
    return {
      progress: restartSteps(progress),
      events: [normal(Reason.RolloutUpdated, `Rollout updated to revision ${revision}`)],
    };
  }
  if (progress.abort && progress.abortedAt === undefined) {
    const aborted = warning(
      Reason.RolloutAborted,
      `Rollout aborted update to revision ${revision}`,
    );
    const next: Progress = {
      ...progress,
      stepIndex: 0,
      // Our pauses go with the steps; a person's pause holds until they resume.
      pauseConditions: progress.pauseConditions.filter(
        (c) => c.reason === PauseReason.PausedByUser,
      ),
      controllerPause: false,
      abortedAt: new Date(o.now).toISOString(),
    };
    return { progress: next, events: [aborted] };
  }
  if (!progress.abort && status.abortedAt !== undefined) {
    const retry = normal(Reason.RolloutRetry, `Rollout retrying update to revision ${revision}`);
    return { progress, events: [retry] };
  }
  return { progress, events: [] };
}

/** The template's hash; or, when no ReplicaSet has it, the hash of the one whose template it is
 *  all the same (an undo wrote back a template with the API server's defaults filled in). */
export function templateHash(o: Pick<Observed, 'rollout' | 'replicaSets'>): string {
  const { rollout, replicaSets } = o;
  const hash = podTemplateHash(rollout.spec.template, rollout.status?.collisionCount ?? 0);
  if (replicaSets.some((rs) => hashOf(rs) === hash)) return hash;
  const same = replicaSetOfTemplate(replicaSets, rollout);
  return (same && hashOf(same)) ?? hash;
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
