/** Reading canary steps: the weight and canary scale in force at a step index, the steps' hash.
 *  What each kind of step means is step-kinds.ts. */
import type { CanaryStep } from '../../api/index.ts';
import { podTemplateHash } from '../hash.ts';
import type { CanaryScale } from './replicas.ts';

/**
 * The one "setWeight at index" (Argo's GetCurrentSetWeight over the steps): the last setWeight
 * at or before `index`, 0 if none is; 100 once `index` is past the last step (every step is
 * behind: all of it). Callers with another rule for the end say so at the call site: traffic
 * wants the last weight the steps set (`setWeightAt(steps, steps.length - 1)`), the plugin 0 for
 * an aborted Rollout.
 */
export function setWeightAt(steps: readonly CanaryStep[], index: number): number {
  if (index >= steps.length) return 100;
  for (let i = index; i >= 0; i--) {
    const weight = steps[i]?.setWeight;
    if (weight !== undefined) return weight;
  }
  return 0;
}

/** The setCanaryScale in force at `index` (the last one at or before it), unless it says
 *  matchTrafficWeight or the steps are done. */
export function canaryScaleAt(
  steps: readonly CanaryStep[],
  index: number,
): CanaryScale | undefined {
  if (index >= steps.length) return undefined;
  for (let i = index; i >= 0; i--) {
    const scale = steps[i]?.setCanaryScale;
    if (scale !== undefined) return scale.matchTrafficWeight === true ? undefined : scale;
  }
  return undefined;
}

/** Hash of the step list; a change restarts the steps (as in Argo). */
export function stepsHash(steps: readonly CanaryStep[]): string {
  return podTemplateHash(steps);
}
