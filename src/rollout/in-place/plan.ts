/**
 * Serving Argo Rollouts' objects in place (`--api-group=argoproj.io`): the first pass over a
 * Rollout whose status Argo's controller wrote takes that status over, once, before any strategy
 * plans. The ReplicaSets are already the Rollout's (same object, same owner UID) and keep Argo's
 * hashes (the template match finds them), so nothing is created, scaled or deleted; only the one
 * field whose spelling is Argo's own must change: `currentStepHash` is a Go hash of the steps, and
 * a strategy reading it against ours would restart the steps and move pods. takeover.ts keeps
 * the step, pauses and abort of the revision Argo was on and puts our steps hash in. The
 * `Adopted` condition (reason TakenOverInPlace) records that it happened: from then on a steps
 * hash that differs is a change of the steps, and restarts them as usual. A Rollout that Stepwise
 * served from its start gets the condition, and nothing else, on its first pass with a status.
 * While Argo's own controller still runs (argo-controller.ts), nothing is taken over or planned:
 * the condition says so, and the pass looks again when Argo's Lease would lapse. Pure.
 */
import { ConditionType, Reason } from '../../api/index.ts';
import { argoControllerRunning, type ArgoControllerRunning } from '../argo-controller.ts';
import type { RolloutStatus } from '../../api/index.ts';
import { takeover } from '../takeover.ts';
import { getCondition, setCondition } from '../conditions.ts';
import { normal, warning } from '../events.ts';
import { hashOf } from '../replicasets.ts';
import { sameStatus } from '../same-status.ts';
import { replicaSetOfTemplate } from '../template-match.ts';
import type { Observed, Plan } from '../types.ts';

/** The takeover pass, or undefined when there is nothing to take over (the strategy plans). */
export function planInPlaceTakeover(o: Observed, stepsHash?: string): Plan | undefined {
  if (o.inPlaceArgo !== true) return undefined;
  const argo = argoControllerRunning(o.argoController, o.now);
  if (argo !== undefined) return standAside(o, argo);
  const prev = o.rollout.status;
  if (prev === undefined || prev.currentPodHash === undefined) return undefined;
  // Taken over already; a refusal (False, ours: nothing else sets it in place) is looked at again.
  if (getCondition(prev.conditions ?? [], ConditionType.Adopted)?.status === 'True') {
    return undefined;
  }
  const current = replicaSetOfTemplate(o.replicaSets, o.rollout);
  const argoMidRevision =
    stepsHash !== undefined &&
    prev.currentStepHash !== undefined &&
    prev.currentStepHash !== stepsHash &&
    current !== undefined &&
    hashOf(current) === prev.currentPodHash;
  const taken =
    argoMidRevision && current !== undefined
      ? takeover({
          rollout: o.rollout,
          replicaSets: o.replicaSets,
          current,
          services: o.services,
          stepsHash,
        })
      : undefined;
  if (taken?.kind === 'stableMissing') return refuseStableMissing(o, taken.stable);
  const status: RolloutStatus =
    taken?.kind === 'status' ? { ...taken.status, phase: prev.phase, message: prev.message } : prev;
  const step = status.currentStepIndex;
  const message =
    taken?.kind === 'status'
      ? `took over from Argo Rollouts in place at ${step === undefined ? 'its step' : `step index ${step}`} of revision ${prev.currentPodHash}: ReplicaSets, pods and Services as they were`
      : `served in place as argoproj.io; ReplicaSets, pods and Services as they were`;
  const conditions = setCondition(
    status.conditions ?? [],
    { type: ConditionType.Adopted, status: 'True', reason: Reason.TakenOverInPlace, message },
    new Date(o.now).toISOString(),
  );
  return {
    writes: [
      { kind: 'applyStatus', status: { ...status, conditions: [...conditions] } },
      normal(Reason.TakenOverInPlace, message),
    ],
  };
}

/** Margin past the Lease's lapse before looking again: Argo's renewal may be on its way. */
const LAPSE_MARGIN_MS = 1000;

/**
 * Argo's controller holds its Lease: the Rollout gets the condition naming it and an event, and
 * nothing else (no takeover, no strategy pass: two controllers would scale the same ReplicaSets).
 * Phase and message stay Argo's, which it keeps writing. Looked at again when the Lease would
 * lapse; a renewal seen meanwhile wakes nothing, a release does.
 */
function standAside(o: Observed, argo: ArgoControllerRunning): Plan {
  const message = `Argo Rollouts' controller is running: it holds its leader Lease ${argo.lease} (holder ${argo.holder}), and two controllers would write the same Rollout, ReplicaSets and Services; nothing taken over or written until it stops (scale it to 0)`;
  const requeueAfterMs = argo.heldUntil - o.now + LAPSE_MARGIN_MS;
  return { ...refusal(o, Reason.ArgoRolloutsControllerRunning, message), requeueAfterMs };
}

/** Argo's stableRS names no live ReplicaSet: nothing planned from a stable that is not there. */
function refuseStableMissing(o: Observed, stable: string): Plan {
  const message = `status.stableRS ${stable} (as Argo Rollouts left it) names no live ReplicaSet of this Rollout; nothing taken over, nothing scaled`;
  return refusal(o, Reason.StableReplicaSetMissing, message, { phase: 'Degraded' });
}

/** Adopted False with `reason`, and a warning, when that is news; else nothing written. */
function refusal(
  o: Observed,
  reason: Reason,
  message: string,
  also: { phase?: 'Degraded' } = {},
): Plan {
  const prev = o.rollout.status ?? {};
  const conditions = setCondition(
    prev.conditions ?? [],
    { type: ConditionType.Adopted, status: 'False', reason, message },
    new Date(o.now).toISOString(),
  );
  const status: RolloutStatus = {
    ...prev,
    ...(also.phase === undefined ? {} : { phase: also.phase, message: `${reason}: ${message}` }),
    conditions: [...conditions],
  };
  if (sameStatus(status, prev)) return { writes: [] };
  return { writes: [{ kind: 'applyStatus', status }, warning(reason, message)] };
}
