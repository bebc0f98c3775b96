/**
 * Analysis in a rollout, as Argo Rollouts runs it: an `analysis` step waits for its AnalysisRun
 * (Successful: next step; Failed or Error: abort, saying which metric and value; Inconclusive:
 * pause for a person), and background analysis runs beside the steps from `startingStep` on with
 * the same verdicts. Runs that are no longer current (a new revision, an abort, a promote past the
 * step, a finished rollout) are terminated; finished ones beyond the history limits are deleted.
 * Pure: runs in, decisions and writes out.
 */
import { Reason } from '../api/index.ts';
import type {
  AnalysisRun,
  BackgroundAnalysis,
  RolloutAnalysis,
  RolloutAnalysisRunStatus,
} from '../api/index.ts';
import { baseRunName, buildRun, freshRunName } from '../api/analysis-run.ts';
import type { AnalysisKind, RunContext } from '../api/analysis-run.ts';
import type { AnalysisTemplate } from '../api/index.ts';
import { normal } from './events.ts';
import type { Observed, Write } from './types.ts';

const DEFAULT_HISTORY_LIMIT = 5;
const COMPLETED = new Set(['Successful', 'Failed', 'Error', 'Inconclusive']);

/** Where one run stands for the rollout this pass. */
export type Verdict = 'wait' | 'passed' | 'failed' | 'inconclusive';

export interface Tracked {
  readonly status: RolloutAnalysisRunStatus;
  readonly verdict: Verdict;
  /** Set when the run has just become Inconclusive (the stored status said otherwise). */
  readonly newlyInconclusive: boolean;
  /** The run's phase as the stored status recorded it (absent: status named no run, or
   *  another one). */
  readonly previous?: string;
  /** For a failed run: which metric, why, and its last value. */
  readonly failure?: string;
  readonly writes: readonly Write[];
}

/**
 * The run for this rollout revision's step (or background) analysis: the one status names, else
 * one of this revision and kind still running and not terminated (status that lags behind, or a
 * status write held back, must not start a second run), else a new one. A named run missing
 * from the cache is applied again under the same name (the apply is idempotent, so a cache that
 * has not seen it yet costs nothing).
 */
export function trackRun(
  ctx: RunContext,
  runs: readonly AnalysisRun[],
  analysis: RolloutAnalysis | BackgroundAnalysis,
  kind: AnalysisKind,
  stored: RolloutAnalysisRunStatus | undefined,
  stepIndex?: number,
): Tracked | { readonly error: string } {
  const base = baseRunName(ctx, kind, stepIndex);
  const ours = stored !== undefined && (stored.name === base || stored.name.startsWith(`${base}.`));
  const name = ours
    ? stored.name
    : (unfinishedRun(runs, base) ??
      freshRunName(base, new Set(runs.map((r) => r.metadata.name ?? ''))));
  const run = runs.find((r) => r.metadata.name === name);
  if (run === undefined) {
    const built = buildRun(ctx, analysis, kind, name, stepIndex);
    if (!built.ok) return { error: built.error };
    return {
      status: { name, status: 'Pending' },
      verdict: 'wait',
      newlyInconclusive: false,
      writes: [{ kind: 'applyAnalysisRun', body: built.run }],
    };
  }
  const phase = run.status?.phase ?? 'Pending';
  const message = run.status?.message;
  const status = { name, status: phase, ...(message ? { message } : {}) };
  const verdict: Verdict =
    phase === 'Successful'
      ? 'passed'
      : phase === 'Failed' || phase === 'Error'
        ? 'failed'
        : phase === 'Inconclusive'
          ? 'inconclusive'
          : 'wait';
  return {
    status,
    verdict,
    newlyInconclusive: verdict === 'inconclusive' && stored?.status !== 'Inconclusive',
    ...(ours ? { previous: stored.status } : {}),
    ...(verdict === 'failed' ? { failure: failureOf(run) } : {}),
    writes: [],
  };
}

/** `AnalysisRun "x" Failed: Metric "m" assessed Failed due to … (last value [0.42])`. */
function failureOf(run: AnalysisRun): string {
  const phase = run.status?.phase ?? 'Failed';
  const metric = run.status?.metricResults?.find((r) => r.phase === phase && r.dryRun !== true);
  const last = metric?.measurements?.at(-1);
  const detail = run.status?.message ?? metric?.message ?? '';
  const value =
    last?.value !== undefined
      ? ` (last value ${last.value})`
      : last?.message !== undefined
        ? ` (${last.message})`
        : '';
  return `AnalysisRun "${run.metadata.name}" ${phase}: ${detail}${value}`.trimEnd();
}

const ANALYSIS_NAMES: Readonly<Record<AnalysisKind, string>> = {
  Step: 'Step analysis',
  Background: 'Background analysis',
  PrePromotion: 'Blue/green pre-promotion analysis',
  PostPromotion: 'Blue/green post-promotion analysis',
};

/** The newest run named `base` or `base.N` that is neither finished nor terminated. */
function unfinishedRun(runs: readonly AnalysisRun[], base: string): string | undefined {
  return runs
    .filter((r) => {
      const name = r.metadata.name ?? '';
      return (
        (name === base || name.startsWith(`${base}.`)) &&
        r.spec.terminate !== true &&
        !COMPLETED.has(r.status?.phase ?? '')
      );
    })
    .map((r) => r.metadata.name ?? '')
    .sort((a, b) => suffixOf(b) - suffixOf(a))[0];
}

const suffixOf = (name: string): number => Number(/\.(\d+)$/.exec(name)?.[1] ?? 0);

export function runEvent(kind: AnalysisKind, tracked: Tracked): Write | undefined {
  const what = ANALYSIS_NAMES[kind];
  if (tracked.verdict === 'failed') {
    const reason =
      tracked.status.status === 'Error' ? Reason.AnalysisRunError : Reason.AnalysisRunFailed;
    return { kind: 'event', type: 'Warning', reason, message: `${what}: ${tracked.failure ?? ''}` };
  }
  if (tracked.newlyInconclusive) {
    return {
      kind: 'event',
      type: 'Warning',
      reason: Reason.AnalysisRunInconclusive,
      message: `${what}: AnalysisRun "${tracked.status.name}" is Inconclusive; the rollout waits for a person (promote to go on, abort to roll back)`,
    };
  }
  return progressEvent(kind, tracked);
}

const PROGRESS_REASONS: Readonly<Record<string, Reason>> = {
  Running: Reason.AnalysisRunRunning,
  Successful: Reason.AnalysisRunSuccessful,
};

/**
 * Argo's event on the Rollout when a run it tracks starts running or succeeds, with Argo's
 * message. Once: it goes out with the status write that records the new phase (order.ts), and
 * the next pass reads that phase back as `previous`.
 */
function progressEvent(kind: AnalysisKind, tracked: Tracked): Write | undefined {
  const { name, status: phase } = tracked.status;
  const reason = PROGRESS_REASONS[phase];
  if (reason === undefined || phase === tracked.previous) return undefined;
  const previous = tracked.previous ?? 'NoPreviousStatus';
  return normal(
    reason,
    `${kind} Analysis Run '${name}' Status New: '${phase}' Previous: '${previous}'`,
  );
}

export interface HistoryLimits {
  readonly successful?: number;
  readonly unsuccessful?: number;
}

/**
 * Runs that are not `active` are terminated if unfinished (once); finished ones not `kept` (what
 * status still shows) are deleted beyond the history limits, oldest first.
 */
export function tidyRuns(
  runs: readonly AnalysisRun[],
  active: ReadonlySet<string>,
  kept: ReadonlySet<string>,
  limits: HistoryLimits,
): Write[] {
  const writes: Write[] = [];
  const finished: AnalysisRun[] = [];
  for (const run of runs) {
    const name = run.metadata.name ?? '';
    if (COMPLETED.has(run.status?.phase ?? '')) {
      if (!kept.has(name)) finished.push(run);
    } else if (!active.has(name) && run.spec.terminate !== true) {
      writes.push({ kind: 'terminateAnalysisRun', name });
    }
  }
  const newestFirst = finished.sort(
    (a, b) =>
      created(b) - created(a) || (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''),
  );
  const keep = {
    successful: limits.successful ?? DEFAULT_HISTORY_LIMIT,
    unsuccessful: limits.unsuccessful ?? DEFAULT_HISTORY_LIMIT,
  };
  const seen = { successful: 0, unsuccessful: 0 };
  for (const run of newestFirst) {
    const side = run.status?.phase === 'Successful' ? 'successful' : 'unsuccessful';
    seen[side] += 1;
    if (seen[side] > keep[side]) {
      writes.push({ kind: 'deleteAnalysisRun', name: run.metadata.name ?? '' });
    }
  }
  return writes;
}

function created(run: AnalysisRun): number {
  const t = Date.parse(String(run.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? 0 : t;
}

const NO_TEMPLATES: ReadonlyMap<string, AnalysisTemplate> = new Map<string, AnalysisTemplate>();

/** What a run is built from this pass: the Rollout, its revision and hashes, the templates. */
export function runContext(
  o: Observed,
  where: { readonly hash: string; readonly revision: number },
  stableHash: string,
): RunContext {
  return {
    rollout: o.rollout,
    hash: where.hash,
    stableHash,
    revision: where.revision,
    templates: o.analysisTemplates ?? NO_TEMPLATES,
    clusterTemplates: o.clusterAnalysisTemplates ?? NO_TEMPLATES,
  };
}
