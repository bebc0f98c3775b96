/**
 * This pass's analysis decisions for an update in flight: the step run's verdict (the step
 * decision reads it), an abort when a step or background run failed, a pause when one turned
 * Inconclusive (a promote then goes on), the runs to create, terminate and delete (stage
 * analysisRuns), and the run statuses the strategy reports in its status. Strategy-neutral: the
 * strategy says which analysis the step in force asks for and which runs its status holds. Pure.
 */
import { PauseReason, Reason } from '../api/index.ts';
import type {
  AnalysisRun,
  BackgroundAnalysis,
  RolloutAnalysis,
  RolloutAnalysisRunStatus,
} from '../api/index.ts';
import type { HistoryLimits, Tracked, Verdict } from './analysis.ts';
import { runEvent, tidyRuns, trackRun } from './analysis.ts';
import type { RunContext } from '../api/analysis-run.ts';
import { warning } from './events.ts';
import type { Fragment } from './order.ts';
import type { Progress } from './progress.ts';
import type { Write } from './types.ts';

export interface AnalysisStatuses {
  readonly step?: RolloutAnalysisRunStatus;
  readonly background?: RolloutAnalysisRunStatus;
}

export interface AnalysisPlanInput {
  readonly ctx: RunContext;
  readonly runs: readonly AnalysisRun[];
  readonly progress: Progress;
  /** The analysis the step at progress.stepIndex asks for, if it is an analysis step. */
  readonly stepAnalysis?: RolloutAnalysis;
  readonly background?: BackgroundAnalysis;
  /** Steps are being walked: not steady, not aborted, not done, not paused by spec. */
  readonly inFlight: boolean;
  /** This pass retries an aborted update: earlier runs are history, not verdicts. */
  readonly retrying: boolean;
  /** The run statuses stored in status by the last pass. */
  readonly stored: AnalysisStatuses;
  readonly limits: HistoryLimits;
  readonly now: number;
}

export interface AnalysisPlan {
  readonly progress: Progress;
  /** The verdict on the analysis step at progress.stepIndex, if it is one. */
  readonly stepVerdict?: Verdict;
  readonly abortMessage?: string;
  readonly statuses: AnalysisStatuses;
  /** The run writes (stage analysisRuns) and the events about the runs. */
  readonly fragment: Fragment;
}

export function planAnalysis(i: AnalysisPlanInput): AnalysisPlan {
  const storedStatuses: AnalysisStatuses = i.retrying ? {} : i.stored;
  let progress = i.progress;
  const writes: Write[] = [];
  const events: Write[] = [];
  const statuses: { step?: RolloutAnalysisRunStatus; background?: RolloutAnalysisRunStatus } = {};
  let abortMessage: string | undefined;
  let stepVerdict: Verdict | undefined;

  const judge = (
    tracked: Tracked | { error: string },
    kind: 'Step' | 'Background',
  ): Tracked | undefined => {
    if ('error' in tracked) {
      abortMessage ??= `${kind} analysis cannot start: ${tracked.error}`;
      progress = { ...progress, abort: true };
      return undefined;
    }
    writes.push(...tracked.writes);
    const event = runEvent(kind, tracked);
    if (event) events.push(event);
    if (tracked.verdict === 'failed') {
      abortMessage ??= tracked.failure;
      progress = { ...progress, abort: true };
    } else if (tracked.newlyInconclusive) {
      progress = pauseForInconclusive(progress, i.now);
    }
    return tracked;
  };

  if (i.inFlight) {
    const index = progress.stepIndex;
    const stepAnalysis = i.stepAnalysis;
    if (stepAnalysis !== undefined) {
      const tracked = judge(
        trackRun(i.ctx, i.runs, stepAnalysis, 'Step', storedStatuses.step, index),
        'Step',
      );
      if (tracked) statuses.step = tracked.status;
      stepVerdict = tracked?.verdict;
      if (
        tracked?.verdict === 'inconclusive' &&
        !tracked.newlyInconclusive &&
        resumedByPerson(progress)
      ) {
        // A person promoted past the inconclusive step (Argo's promote of an Inconclusive run).
        stepVerdict = 'passed';
        progress = { ...progress, controllerPause: false };
      }
    }
    if (i.background !== undefined && index >= (i.background.startingStep ?? 0)) {
      const tracked = judge(
        trackRun(i.ctx, i.runs, i.background, 'Background', storedStatuses.background),
        'Background',
      );
      if (tracked) statuses.background = tracked.status;
      if (
        tracked?.verdict === 'inconclusive' &&
        !tracked.newlyInconclusive &&
        resumedByPerson(progress)
      ) {
        progress = { ...progress, controllerPause: false };
      }
    }
  }
  // Runs of an aborted update stay in status (people look at why), but nothing keeps running.
  const shown: AnalysisStatuses = i.inFlight ? statuses : progress.abort ? storedStatuses : {};
  const active = new Set(
    progress.abort ? [] : [statuses.step?.name, statuses.background?.name].filter(isString),
  );
  const kept = new Set([...active, ...[shown.step?.name, shown.background?.name].filter(isString)]);
  writes.push(...tidyRuns(i.runs, active, kept, i.limits));
  return {
    progress,
    ...(stepVerdict !== undefined ? { stepVerdict } : {}),
    ...(abortMessage !== undefined ? { abortMessage } : {}),
    statuses: shown,
    fragment: {
      writes: { analysisRuns: writes },
      // An abort always says why: a run that cannot start has no verdict event of its own.
      events:
        abortMessage !== undefined &&
        !events.some((e) => e.kind === 'event' && e.type === 'Warning')
          ? [...events, warning(Reason.AnalysisRunError, abortMessage)]
          : events,
    },
  };
}

/** An Inconclusive run pauses the rollout for a person (once). */
export function pauseForInconclusive(p: Progress, now: number): Progress {
  if (p.pauseConditions.some((c) => c.reason === PauseReason.InconclusiveAnalysisRun)) return p;
  return {
    ...p,
    controllerPause: true,
    pauseConditions: [
      ...p.pauseConditions,
      { reason: PauseReason.InconclusiveAnalysisRun, startTime: new Date(now).toISOString() },
    ],
  };
}

/** We paused, and a person cleared the pause conditions. */
export function resumedByPerson(p: Progress): boolean {
  return p.controllerPause && p.pauseConditions.length === 0;
}

function isString(s: string | undefined): s is string {
  return s !== undefined;
}
