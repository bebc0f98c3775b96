/**
 * PURE: the pauses a Rollout waits at, read from status as the controller wrote it: when a timed
 * one ends, and whether one waits for a person (the list's "needs me").
 */
import { parsePauseDuration } from '../../api/pause-duration.ts';
import { PauseReason } from '../../api/reasons.ts';
import type { Rollout } from '../../api/rollout.ts';
import { rolloutPhase } from '../../cli/render/info.ts';

const pauseOf = (ro: Rollout, reason: PauseReason) =>
  ro.status?.pauseConditions?.find((c) => c.reason === reason);

/** The canary step the status points at, if it is a pause step. */
function currentPauseStep(ro: Rollout): { duration?: number | string } | undefined {
  const i = ro.status?.currentStepIndex;
  if (i === undefined) return undefined;
  return ro.spec.strategy.canary?.steps?.[i]?.pause;
}

/** When the canary's timed pause at its current step ends (epoch ms); undefined: none running. */
export function canaryPauseEndsAt(ro: Rollout): number | undefined {
  const pause = pauseOf(ro, PauseReason.CanaryPauseStep);
  const duration = currentPauseStep(ro)?.duration;
  if (pause === undefined || duration === undefined) return undefined;
  const parsed = parsePauseDuration(duration);
  const started = Date.parse(pause.startTime);
  return parsed.ok && !Number.isNaN(started) ? started + parsed.value : undefined;
}

/** When the blue-green pause before the switch promotes itself (epoch ms); undefined: it
 *  waits for `promote` (autoPromotionEnabled: false), or there is no such pause. */
export function blueGreenPauseEndsAt(ro: Rollout): number | undefined {
  const pause = pauseOf(ro, PauseReason.BlueGreenPause);
  const bg = ro.spec.strategy.blueGreen;
  const seconds = bg?.autoPromotionSeconds ?? 0;
  if (pause === undefined || bg?.autoPromotionEnabled === false || seconds <= 0) return undefined;
  const started = Date.parse(pause.startTime);
  return Number.isNaN(started) ? undefined : started + seconds * 1000;
}

/**
 * Why the Rollout wants a person, in a few words; undefined when it does not: Degraded, an
 * approval it waits for, a pause a person made, an untimed pause step or blue-green pause (they
 * wait for `promote`), an inconclusive analysis. A timed pause ends by itself: nobody is needed.
 */
export function needsMe(ro: Rollout): string | undefined {
  if (rolloutPhase(ro).phase === 'Degraded') return 'Degraded';
  if (pauseOf(ro, PauseReason.AwaitingApproval)) return 'awaiting approval';
  if (pauseOf(ro, PauseReason.PausedByUser)) return 'paused by a person: resume';
  if (pauseOf(ro, PauseReason.InconclusiveAnalysisRun))
    return 'analysis inconclusive: promote or abort';
  if (pauseOf(ro, PauseReason.CanaryPauseStep) && currentPauseStep(ro)?.duration === undefined) {
    return 'waits for promote';
  }
  if (pauseOf(ro, PauseReason.BlueGreenPause) && blueGreenPauseEndsAt(ro) === undefined) {
    return 'waits for promote';
  }
  return undefined;
}
