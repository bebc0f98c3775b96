/** PURE: the canary's part of `get rollout` and `list`: step i/n, set and actual weight. */
import type { Rollout } from '../../../api/rollout.ts';
import { setWeightAt } from '../../../rollout/index.ts';
import type { ReplicaSetRef, StrategyView } from './view.ts';

export const stepsOf = (ro: Rollout): number => ro.spec.strategy.canary?.steps?.length ?? 0;

/** stableRS == currentPodHash: the current template is the stable one. */
export const isFullyPromoted = (ro: Rollout): boolean =>
  !!ro.status?.stableRS && ro.status.stableRS === ro.status.currentPodHash;

/** `i/n` for a canary with steps, else undefined. */
export function stepText(ro: Rollout): string | undefined {
  const n = stepsOf(ro);
  if (n === 0) return undefined;
  const i = ro.status?.currentStepIndex;
  return `${i === undefined ? 0 : Math.min(Math.max(i, 0), n)}/${n}`;
}

/** The weight the current step asks for (Argo's GetCurrentSetWeight): the planner's rule for
 *  a step index, plus what only the plugin sees: an aborted Rollout asks for none, one without
 *  steps for all, and before the controller has set an index, a promoted one for all. */
export function setWeight(ro: Rollout): number {
  if (ro.status?.abort) return 0;
  const steps = ro.spec.strategy.canary?.steps ?? [];
  const i = ro.status?.currentStepIndex;
  if (steps.length === 0) return 100;
  if (i === undefined) return isFullyPromoted(ro) ? 100 : 0;
  return setWeightAt(steps, i);
}

/** The weight actually served: the router's canary weight, else the canary's share of pods. */
export function actualWeight(ro: Rollout, replicaSets: readonly ReplicaSetRef[]): number {
  const routed = ro.status?.canary?.weights?.canary.weight;
  if (routed !== undefined) return routed;
  const total = ro.status?.availableReplicas ?? 0;
  if (total <= 0) return 0;
  const canary = replicaSets.find((rs) => rs.hash === ro.status?.currentPodHash);
  const available = canary?.available ?? 0;
  return Math.min(100, Math.floor((available * 100) / total));
}

export const canaryView: StrategyView = {
  name: 'Canary',
  tags(ro, hash) {
    const st = ro.status ?? {};
    const tags: string[] = [];
    if (hash === undefined) return tags;
    if (hash === st.stableRS) tags.push('stable');
    if (hash === st.currentPodHash && !isFullyPromoted(ro)) tags.push('canary');
    return tags;
  },
  header(ro, replicaSets) {
    const step = stepText(ro);
    return [
      ...(step !== undefined ? [['Step:', step] as const] : []),
      ['SetWeight:', String(setWeight(ro))],
      ['ActualWeight:', String(actualWeight(ro, replicaSets))],
    ];
  },
  listCells(ro) {
    return {
      step: stepText(ro) ?? '-',
      setWeight:
        stepsOf(ro) > 0 || ro.status?.currentPodHash !== undefined ? String(setWeight(ro)) : '-',
    };
  },
};
