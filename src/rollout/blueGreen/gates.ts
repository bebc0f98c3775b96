/**
 * The gates between a blue-green's preview and its switch, in Argo's order: the preview saturated
 * at its count → pre-promotion analysis passed → the BlueGreenPause (auto-promotion off, or
 * autoPromotionSeconds > 0) promoted by a person or its timer → the new version may run all its
 * pods → once every one is available the active Service switches → post-promotion analysis
 * passed → the new version becomes stable. A fast track (first deploy, promote --full, a return
 * to a version still inside its scale-down delay) skips the pause and both analyses. Pure.
 */
import { PauseReason, Reason } from '../../api/index.ts';
import type { BlueGreenStrategy, PauseCondition } from '../../api/index.ts';
import type { Verdict } from '../analysis.ts';
import { normal } from '../events.ts';
import type { EventWrite } from '../types.ts';
import type { Progress } from '../progress.ts';

export interface PauseInput {
  readonly bg: BlueGreenStrategy;
  readonly progress: Progress;
  readonly fastTrack: boolean;
  /** The preview runs its count, all available. */
  readonly previewReady: boolean;
  /** Pre-promotion analysis passed, or there is none. */
  readonly prePassed: boolean;
  /** Held by Git (spec.paused) or a person's pause: nothing starts. */
  readonly held: boolean;
  readonly revision: number;
  readonly now: number;
}

export interface PauseOutcome {
  readonly progress: Progress;
  /** Every gate before the switch is behind. */
  readonly promoted: boolean;
  readonly events: readonly EventWrite[];
  readonly requeueAt: readonly number[];
  readonly pausedMessage?: string;
}

/** Argo's: auto-promotion off, or a timed auto-promotion. */
export function pauseWanted(bg: BlueGreenStrategy): boolean {
  return bg.autoPromotionEnabled === false || (bg.autoPromotionSeconds ?? 0) > 0;
}

export function blueGreenPauseOf(p: Progress): PauseCondition | undefined {
  return p.pauseConditions.find((c) => c.reason === PauseReason.BlueGreenPause);
}

/** The pause was taken and then cleared (a promote, or the timer): Argo's
 *  CompletedBlueGreenPause. */
function pauseCompleted(p: Progress): boolean {
  return p.controllerPause && blueGreenPauseOf(p) === undefined;
}

export function blueGreenPause(i: PauseInput): PauseOutcome {
  const { bg, now } = i;
  let progress = i.progress;
  if (i.fastTrack) return { progress, promoted: true, events: [], requeueAt: [] };
  if (!i.prePassed) return { progress, promoted: false, events: [], requeueAt: [] };
  if (!pauseWanted(bg) || pauseCompleted(progress)) {
    return { progress, promoted: true, events: [], requeueAt: [] };
  }
  const pause = blueGreenPauseOf(progress);
  const seconds = bg.autoPromotionEnabled === false ? 0 : (bg.autoPromotionSeconds ?? 0);
  const pausedMessage =
    seconds > 0
      ? `Rollout is paused: the preview of revision ${i.revision} is ready; promoted automatically ${seconds}s after the pause began, or by 'promote'`
      : `Rollout is paused: the preview of revision ${i.revision} is ready; 'promote' switches the active Service`;
  if (pause === undefined) {
    if (!i.previewReady || i.held) return { progress, promoted: false, events: [], requeueAt: [] };
    progress = {
      ...progress,
      controllerPause: true,
      pauseConditions: [
        ...progress.pauseConditions,
        { reason: PauseReason.BlueGreenPause, startTime: new Date(now).toISOString() },
      ],
    };
    const events = [normal(Reason.RolloutPaused, pausedMessage)];
    const requeueAt = seconds > 0 ? [now + seconds * 1000] : [];
    return { progress, promoted: false, events, requeueAt, pausedMessage };
  }
  if (seconds > 0) {
    const ends = Date.parse(pause.startTime) + seconds * 1000;
    if (now >= ends) {
      // The timer promotes: the pause goes, controllerPause stays (the pause is completed).
      progress = {
        ...progress,
        pauseConditions: progress.pauseConditions.filter((c) => c !== pause),
      };
      const resumed = normal(
        Reason.RolloutResumed,
        `Rollout is resumed: promoted automatically after autoPromotionSeconds (${seconds}s)`,
      );
      return {
        progress,
        promoted: progress.pauseConditions.length === 0,
        events: [resumed],
        requeueAt: [],
      };
    }
    return { progress, promoted: false, events: [], requeueAt: [ends], pausedMessage };
  }
  return { progress, promoted: false, events: [], requeueAt: [], pausedMessage };
}

/** Pre-promotion analysis is over for this revision: passed, or none asked for. */
export function passedOrNone(wanted: boolean, verdict: Verdict | undefined): boolean {
  return !wanted || verdict === 'passed';
}
