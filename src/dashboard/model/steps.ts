/**
 * PURE: the canary's steps as the Rollout view lists them: each step's label (the controller's
 * own vocabulary, src/rollout), which are done, the current one, and the time left on a timed
 * pause there.
 */
import type { Rollout } from '../../api/rollout.ts';
import { isFullyPromoted } from '../../cli/render/info.ts';
import { stepLabel } from '../../rollout/index.ts';
import { canaryPauseEndsAt } from './pauses.ts';
import type { StepView } from './wire.ts';

export function canarySteps(ro: Rollout): StepView[] {
  const steps = ro.spec.strategy.canary?.steps ?? [];
  const st = ro.status ?? {};
  // Before the controller has set an index, a promoted Rollout has done them all.
  const current = st.currentStepIndex ?? (isFullyPromoted(ro) ? steps.length : 0);
  const paused = (st.pauseConditions?.length ?? 0) > 0;
  const endsAt = canaryPauseEndsAt(ro);
  return steps.map((step, i): StepView => {
    const state = i < current ? 'done' : i === current ? 'current' : 'pending';
    const here = state === 'current';
    const waits =
      here &&
      paused &&
      ((step.pause !== undefined && step.pause.duration === undefined) ||
        step.approval !== undefined);
    return {
      label: stepLabel(step),
      state,
      ...(here && endsAt !== undefined ? { endsAt } : {}),
      ...(waits ? { waitsForPerson: true } : {}),
    };
  });
}
