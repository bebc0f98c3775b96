/**
 * One measurement's phase from the provider's answer, as Argo's `EvaluateResult`
 * (utils/evaluate/evaluate.go) decides it:
 * - no conditions: Successful;
 * - only successCondition: Successful if it holds, else Failed;
 * - only failureCondition: Failed if it holds, else Successful;
 * - both: Failed if failureCondition holds, else Successful if successCondition holds, else
 *   Inconclusive;
 * - a provider error, or a condition that does not evaluate to a boolean: Error, with a message
 *   (Argo's wording: `could not evaluate successCondition "…": …`).
 * The expression language is injected: this module evaluates nothing itself.
 */
import type { AnalysisPhase, Measurement, Metric } from '../../api/index.ts';

/** Evaluates `condition` with `result` bound; returns an Error (never throws) when it cannot. */
export type ConditionEvaluator = (condition: string, result: unknown) => boolean | Error;

export type MeasuredPhase = Extract<
  AnalysisPhase,
  'Successful' | 'Failed' | 'Inconclusive' | 'Error'
>;

export interface Verdict {
  readonly phase: MeasuredPhase;
  readonly message?: string;
}

type Conditions = Pick<Metric, 'successCondition' | 'failureCondition'>;

export function judge(metric: Conditions, result: unknown, evaluate: ConditionEvaluator): Verdict {
  const success = metric.successCondition || undefined;
  const failure = metric.failureCondition || undefined;
  if (success === undefined && failure === undefined) return { phase: 'Successful' };
  let succeeded = false;
  let failed = false;
  if (success !== undefined) {
    const v = holds(evaluate, 'successCondition', success, result);
    if (v instanceof Error) return { phase: 'Error', message: v.message };
    succeeded = v;
  }
  if (failure !== undefined) {
    const v = holds(evaluate, 'failureCondition', failure, result);
    if (v instanceof Error) return { phase: 'Error', message: v.message };
    failed = v;
  }
  if (failure === undefined) failed = !succeeded;
  if (success === undefined) succeeded = !failed;
  if (failed) return { phase: 'Failed' };
  return succeeded ? { phase: 'Successful' } : { phase: 'Inconclusive' };
}

function holds(
  evaluate: ConditionEvaluator,
  which: 'successCondition' | 'failureCondition',
  condition: string,
  result: unknown,
): boolean | Error {
  let out: unknown;
  try {
    out = evaluate(condition, result);
  } catch (err) {
    // The contract says the evaluator returns errors; a throw is still an Error measurement.
    out = err instanceof Error ? err : new Error(`evaluator threw ${describeThrown(err)}`);
  }
  if (typeof out === 'boolean') return out;
  const reason = isNilOrEmpty(result)
    ? 'metric result is nil or empty: no data returned from the metric provider'
    : out instanceof Error
      ? out.message
      : `expected bool, but got ${describeType(out)}`;
  return new Error(`could not evaluate ${which} ${JSON.stringify(condition)}: ${reason}`);
}

/** String() itself throws on objects without a prototype or with a hostile toString. */
function describeThrown(thrown: unknown): string {
  try {
    return String(thrown);
  } catch {
    return describeType(thrown);
  }
}

function isNilOrEmpty(result: unknown): boolean {
  return result === null || result === undefined || (Array.isArray(result) && result.length === 0);
}

function describeType(v: unknown): string {
  if (v === null) return 'nil';
  return Array.isArray(v) ? 'array' : typeof v;
}

/** What a provider reports for one measurement: a result to judge, or an error. */
export type ProviderOutcome =
  | {
      readonly ok: true;
      /** The value the conditions see as `result`. */
      readonly result: unknown;
      /** Its text form for status (`[0.97]`, `NaN`, `[]`). */
      readonly value: string;
      readonly metadata?: Readonly<Record<string, string>>;
      /**
       * The provider's own verdict, for providers whose outcome is the judgement (a Job that
       * completed or failed); conditions are not consulted then.
       */
      readonly phase?: MeasuredPhase;
      readonly message?: string;
    }
  | { readonly ok: false; readonly message: string };

/** A finished measurement, started at `startedAt` and judged at `finishedAt` (epoch ms). */
export function finishMeasurement(
  metric: Conditions,
  outcome: ProviderOutcome,
  evaluate: ConditionEvaluator,
  startedAt: number,
  finishedAt: number,
): Measurement {
  const times = {
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
  };
  if (!outcome.ok) return { phase: 'Error', message: outcome.message, ...times };
  const verdict: Verdict =
    outcome.phase !== undefined
      ? { phase: outcome.phase, ...(outcome.message ? { message: outcome.message } : {}) }
      : judge(metric, outcome.result, evaluate);
  return {
    phase: verdict.phase,
    ...(verdict.message === undefined ? {} : { message: verdict.message }),
    ...times,
    value: outcome.value,
    ...(outcome.metadata ? { metadata: { ...outcome.metadata } } : {}),
  };
}
