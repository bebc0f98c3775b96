/**
 * Argo's `assessRunStatus` (analysis/analysis.go) without its clock and recorder: each metric's
 * phase (and the events for those that completed), the run's phase and message, and the run and
 * dry-run summaries.
 */
import type { AnalysisPhase, AnalysisRunSpec, MetricResult, RunSummary } from '../../api/index.ts';
import { assessMetric, isCompleted, isWorse, limitBreached } from './metric.ts';
import { withMessage } from './message.ts';

export interface RunEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: `Metric${AnalysisPhase}` | `AnalysisRun${AnalysisPhase}`;
  readonly message: string;
}

export interface RunAssessment {
  readonly phase: AnalysisPhase;
  readonly message: string;
  readonly results: readonly MetricResult[];
  readonly runSummary: Required<RunSummary>;
  readonly dryRunSummary: Required<RunSummary>;
  readonly events: readonly RunEvent[];
}

type Tally = { -readonly [K in keyof Required<RunSummary>]: number };

const eventType = (phase: AnalysisPhase): RunEvent['type'] =>
  phase === 'Error' || phase === 'Failed' ? 'Warning' : 'Normal';

export function completionEvent(phase: AnalysisPhase): RunEvent {
  return {
    type: eventType(phase),
    reason: `AnalysisRun${phase}`,
    message: `Analysis Completed. Result: ${phase}`,
  };
}

/**
 * Argo counts a completed metric in a summary by the limit it breached; one completed any other
 * way (count reached, consecutiveSuccessLimit met or missed, run terminated) as successful.
 */
function tallyKey(breach: AnalysisPhase | undefined): Exclude<keyof Tally, 'count'> {
  if (breach === 'Failed') return 'failed';
  if (breach === 'Inconclusive') return 'inconclusive';
  if (breach === 'Error') return 'error';
  return 'successful';
}

export function assessRun(
  spec: AnalysisRunSpec,
  results: readonly MetricResult[],
  dryRun: ReadonlySet<string>,
  terminating: boolean,
): RunAssessment {
  let worst: AnalysisPhase | undefined;
  let message = spec.terminate === true ? 'Run Terminated' : '';
  let everythingCompleted = true;
  const runSummary: Tally = { count: 0, successful: 0, failed: 0, inconclusive: 0, error: 0 };
  const dryRunSummary: Tally = { ...runSummary };
  const events: RunEvent[] = [];
  const out = [...results];
  for (const metric of spec.metrics) {
    const isDry = dryRun.has(metric.name);
    const tally = isDry ? dryRunSummary : runSummary;
    tally.count++;
    const i = out.findIndex((r) => r.name === metric.name);
    let result = out[i];
    if (result === undefined) {
      everythingCompleted = false; // not started yet (e.g. waiting for its initialDelay)
      continue;
    }
    const { phase } = assessMetric(metric, result, terminating);
    if (result.phase !== phase) {
      if (isCompleted(phase)) {
        events.push({
          type: eventType(phase),
          reason: `Metric${phase}`,
          message: `Metric '${metric.name}' Completed. Result: ${phase}`,
        });
      }
      // Argo copies the last measurement's message (an error, "Metric Terminated") onto it.
      const last = result.measurements?.at(-1);
      result = last ? withMessage({ ...result, phase }, last.message) : { ...result, phase };
    }
    if (!isCompleted(phase)) {
      everythingCompleted = false;
    } else {
      const breach = limitBreached(metric, result);
      if (isDry) {
        worst ??= 'Successful'; // a dry run never makes the run worse
        if (breach?.reason) {
          result = { ...result, message: `Metric assessed ${phase} due to ${breach.reason}` };
        }
      } else if (worst === undefined || isWorse(worst, phase)) {
        worst = phase;
        if (breach?.reason) {
          message = `Metric "${metric.name}" assessed ${phase} due to ${breach.reason}`;
          if (result.message) message += `: "Error Message: ${result.message}"`;
        }
      }
      tally[tallyKey(breach?.phase)]++;
    }
    out[i] = result;
  }
  message = message.trim();
  let phase: AnalysisPhase;
  if (terminating) {
    phase = worst ?? 'Successful'; // told to stop before anything was measured
  } else if (!everythingCompleted || worst === undefined) {
    phase = 'Running';
    message = '';
  } else {
    phase = worst;
  }
  return { phase, message, results: out, runSummary, dryRunSummary, events };
}
