/**
 * The status a Rollout takes over from Argo Rollouts, with the ReplicaSets it adopts
 * (adoption/) or serving Argo's own object in place (in-place/). Argo's status contract is
 * ours, so what Argo wrote (handed over by `kubectl stepwise migrate --adopt` as this Rollout's
 * status, or still on the argoproj.io Rollout) is read as is: `stableRS`, `currentPodHash`, `currentStepIndex`, `pauseConditions`,
 * `controllerPause`, `abort`, `canary.weights`, `blueGreen.activeSelector`/`previewSelector`.
 * Where nothing was handed over (a Rollout applied by hand), they are read off the live
 * objects: the stable is the hash the stable (active) Service selects, else the newest other
 * ReplicaSet with available pods; the canary's step is the one after the last `setWeight` its
 * replica share has reached, so no pod moves. Two fields are never Argo's: `currentStepHash` is
 * our hash of the steps (Argo's is Go's, and a mismatch would restart them), and
 * `collisionCount` is left out (it feeds our hash, not Argo's). Pure.
 */
import { POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';
import type { CanaryStep, ReplicaSet, Rollout, RolloutStatus, Service } from '../api/index.ts';
import { hashOf, revisionOf } from './replicasets.ts';
import { servicesOf } from './services.ts';

export interface TakeoverInput {
  readonly rollout: Rollout;
  /** Every live ReplicaSet the Rollout will own: those it owns and those it adopts. */
  readonly replicaSets: readonly ReplicaSet[];
  /** The one running the Rollout's template. */
  readonly current: ReplicaSet;
  readonly services: ReadonlyMap<string, Service>;
  /** Our hash of the canary's steps; absent for a strategy without steps. */
  readonly stepsHash?: string;
}

export type Takeover =
  | { readonly kind: 'status'; readonly status: RolloutStatus; readonly stable: string }
  /** The handed-over stableRS names no live ReplicaSet. */
  | { readonly kind: 'stableMissing'; readonly stable: string };

export function takeover(i: TakeoverInput): Takeover {
  const prev = i.rollout.status ?? {};
  const current = hashOf(i.current) ?? '';
  const hashes = new Set(i.replicaSets.map(hashOf));
  const handedOver = prev.stableRS !== undefined;
  if (handedOver && !hashes.has(prev.stableRS)) {
    return { kind: 'stableMissing', stable: prev.stableRS ?? '' };
  }
  const stable = prev.stableRS ?? inferredStable(i, current);
  const steps = i.rollout.spec.strategy.canary?.steps ?? [];
  const sameRevision = prev.currentPodHash === current;
  const settled = stable === current;
  const stepIndex = settled
    ? steps.length
    : sameRevision && prev.currentStepIndex !== undefined
      ? prev.currentStepIndex
      : inferredStep(steps, i.current, i.rollout.spec.replicas ?? 1);
  const keep = sameRevision && !settled;
  const status: RolloutStatus = {
    ...prev,
    // What a refusal said before Argo let go; the strategy's pass right after says what holds.
    phase: undefined,
    message: undefined,
    stableRS: stable,
    currentPodHash: current,
    ...(i.rollout.spec.strategy.canary === undefined ? {} : { currentStepIndex: stepIndex }),
    currentStepHash: i.stepsHash,
    pauseConditions: keep ? prev.pauseConditions : undefined,
    controllerPause: keep ? prev.controllerPause : undefined,
    abort: keep ? prev.abort : undefined,
    canary: prev.canary?.weights === undefined ? undefined : { weights: prev.canary.weights },
    blueGreen: blueGreenSelectors(i, prev),
    collisionCount: undefined,
  };
  return { kind: 'status', status: compact(status), stable };
}

/** The hash a Service of `role` selects, when a live ReplicaSet has it. */
function selectedBy(i: TakeoverInput, role: 'stable' | 'active' | 'preview'): string | undefined {
  const ref = servicesOf(i.rollout).find((s) => s.role === role);
  const hash = ref && i.services.get(ref.name)?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];
  return hash !== undefined && i.replicaSets.some((rs) => hashOf(rs) === hash) ? hash : undefined;
}

function inferredStable(i: TakeoverInput, current: string): string {
  const served = selectedBy(i, 'stable') ?? selectedBy(i, 'active');
  if (served !== undefined) return served;
  const others = i.replicaSets
    .filter((rs) => hashOf(rs) !== current && (rs.status?.availableReplicas ?? 0) > 0)
    .sort((a, b) => revisionOf(b) - revisionOf(a));
  return (others[0] && hashOf(others[0])) ?? current;
}

/** The step after the last setWeight the canary's share of replicas has reached. */
function inferredStep(steps: readonly CanaryStep[], canary: ReplicaSet, replicas: number): number {
  const share = ((canary.spec?.replicas ?? 0) * 100) / Math.max(replicas, 1);
  let index = 0;
  for (const [i, step] of steps.entries()) {
    if (step.setWeight === undefined) continue;
    if (step.setWeight > share) break;
    index = i + 1;
  }
  return index;
}

function blueGreenSelectors(
  i: TakeoverInput,
  prev: RolloutStatus,
): RolloutStatus['blueGreen'] | undefined {
  if (i.rollout.spec.strategy.blueGreen === undefined) return undefined;
  const activeSelector = prev.blueGreen?.activeSelector ?? selectedBy(i, 'active');
  const previewSelector = prev.blueGreen?.previewSelector ?? selectedBy(i, 'preview');
  return compact({ ...prev.blueGreen, activeSelector, previewSelector });
}

function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
