/**
 * A blue-green's two analyses: pre-promotion (once the preview is up, before the switch) and
 * post-promotion (once the active Service serves the new version, before it becomes stable).
 * Each gives a verdict; Failed or Error aborts, Inconclusive pauses for a person (a promote then
 * counts it as passed). Runs no longer wanted are terminated, old ones deleted by the history
 * limits. Pure.
 */
import type { BlueGreenStrategy, RolloutAnalysisRunStatus } from '../../api/index.ts';
import type { AnalysisRun, RolloutStatus } from '../../api/index.ts';
import type { RunContext } from '../../api/analysis-run.ts';
import { baseRunName } from '../../api/analysis-run.ts';
import { runEvent, tidyRuns, trackRun } from '../analysis.ts';
import type { HistoryLimits, Verdict } from '../analysis.ts';
import { pauseForInconclusive, resumedByPerson } from '../analysis-steps.ts';
import { warning } from '../events.ts';
import { Reason } from '../../api/index.ts';
import type { Fragment } from '../order.ts';
import type { Progress } from '../progress.ts';
import type { Write } from '../types.ts';

export type PromotionRun = 'pre' | 'post';

export interface PromotionStatuses {
  readonly pre?: RolloutAnalysisRunStatus;
  readonly post?: RolloutAnalysisRunStatus;
}

export interface PromotionAnalysisInput {
  readonly bg: BlueGreenStrategy;
  readonly ctx: RunContext;
  readonly runs: readonly AnalysisRun[];
  readonly progress: Progress;
  /** Which runs this pass wants running (or judged); the others are terminated. */
  readonly wanted: { readonly pre: boolean; readonly post: boolean };
  /** This pass retries an aborted update: earlier runs are history, not verdicts. */
  readonly retrying: boolean;
  readonly stored: PromotionStatuses;
  readonly limits: HistoryLimits;
  readonly now: number;
}

export interface PromotionAnalysis {
  readonly progress: Progress;
  readonly verdicts: { readonly pre?: Verdict; readonly post?: Verdict };
  readonly abortMessage?: string;
  readonly statuses: PromotionStatuses;
  readonly fragment: Fragment;
}

const KINDS = { pre: 'PrePromotion', post: 'PostPromotion' } as const;
const FIELDS = { pre: 'prePromotionAnalysis', post: 'postPromotionAnalysis' } as const;

export function storedPromotionStatuses(status: RolloutStatus | undefined): PromotionStatuses {
  return {
    pre: status?.blueGreen?.prePromotionAnalysisRunStatus,
    post: status?.blueGreen?.postPromotionAnalysisRunStatus,
  };
}

/** The stored status names a run of this revision (not an earlier revision's). */
export function ofThisRevision(
  status: RolloutAnalysisRunStatus | undefined,
  ctx: RunContext,
  which: PromotionRun,
): boolean {
  if (status === undefined) return false;
  const base = baseRunName(ctx, KINDS[which]);
  return status.name === base || status.name.startsWith(`${base}.`);
}

export function planPromotionAnalysis(i: PromotionAnalysisInput): PromotionAnalysis {
  const stored: PromotionStatuses = i.retrying ? {} : i.stored;
  let progress = i.progress;
  const writes: Write[] = [];
  const events: Write[] = [];
  const statuses: { pre?: RolloutAnalysisRunStatus; post?: RolloutAnalysisRunStatus } = {};
  const verdicts: { pre?: Verdict; post?: Verdict } = {};
  let abortMessage: string | undefined;
  for (const which of ['pre', 'post'] as const) {
    const analysis = i.bg[FIELDS[which]];
    if (!i.wanted[which] || analysis === undefined || progress.abort) continue;
    const tracked = trackRun(i.ctx, i.runs, analysis, KINDS[which], stored[which]);
    if ('error' in tracked) {
      abortMessage = `${KINDS[which]} analysis cannot start: ${tracked.error}`;
      events.push(warning(Reason.AnalysisRunError, abortMessage));
      progress = { ...progress, abort: true };
      continue;
    }
    writes.push(...tracked.writes);
    const event = runEvent(KINDS[which], tracked);
    if (event) events.push(event);
    statuses[which] = tracked.status;
    let verdict = tracked.verdict;
    if (verdict === 'failed') {
      abortMessage = tracked.failure;
      progress = { ...progress, abort: true };
    } else if (tracked.newlyInconclusive) {
      progress = pauseForInconclusive(progress, i.now);
    } else if (verdict === 'inconclusive' && resumedByPerson(progress)) {
      // A person promoted past the Inconclusive run (Argo's promote of an Inconclusive run).
      verdict = 'passed';
      progress = { ...progress, controllerPause: false };
    }
    verdicts[which] = verdict;
  }
  // Runs of an aborted update, or judged earlier in this update, stay in status; nothing that
  // is not wanted keeps running.
  const shown: PromotionStatuses = {
    pre: statuses.pre ?? stored.pre,
    post: statuses.post ?? stored.post,
  };
  const active = new Set(
    progress.abort
      ? []
      : [statuses.pre?.name, statuses.post?.name].filter((n): n is string => n !== undefined),
  );
  const kept = new Set(
    [...active, shown.pre?.name, shown.post?.name].filter((n): n is string => n !== undefined),
  );
  writes.push(...tidyRuns(i.runs, active, kept, i.limits));
  return {
    progress,
    verdicts,
    ...(abortMessage === undefined ? {} : { abortMessage }),
    statuses: shown,
    fragment: { writes: { analysisRuns: writes }, events },
  };
}
