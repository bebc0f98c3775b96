/** Reading canary steps: the weight and canary scale in force at a step index, step labels. */
import type { CanaryStep } from '../../api/index.ts';
import type { CanaryScale } from './replicas.ts';
import { podTemplateHash } from '../hash.ts';

/** Argo's GetCurrentSetWeight: the last setWeight at or before `index`; 100 past the end. */
export function weightAt(steps: readonly CanaryStep[], index: number): number {
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

/** Human label for events and the plugin: "setWeight: 20", "pause: 30s", "pause". */
export function stepLabel(step: CanaryStep | undefined): string {
  if (step === undefined) return 'done';
  if (step.setWeight !== undefined) return `setWeight: ${step.setWeight}`;
  if (step.pause !== undefined) {
    const d = step.pause.duration;
    return d === undefined ? 'pause' : `pause: ${typeof d === 'number' ? `${d}s` : d}`;
  }
  if (step.setCanaryScale !== undefined) {
    const s = step.setCanaryScale;
    if (s.replicas !== undefined) return `setCanaryScale: replicas ${s.replicas}`;
    if (s.weight !== undefined) return `setCanaryScale: weight ${s.weight}`;
    return 'setCanaryScale: matchTrafficWeight';
  }
  if (step.analysis !== undefined) {
    return `analysis: ${step.analysis.templates.map((t) => t.templateName).join(', ')}`;
  }
  if (step.approval !== undefined) {
    const n = step.approval.minApprovals ?? 1;
    return n === 1 ? 'approval' : `approval: ${n} approvers`;
  }
  return 'unknown';
}

/** Hash of the step list; a change restarts the steps (as in Argo). */
export function stepsHash(steps: readonly CanaryStep[]): string {
  return podTemplateHash(steps);
}
