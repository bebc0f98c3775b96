/**
 * The one place that plugs the analysis modules into the AnalysisRun controller: the providers
 * by name and the condition language. Nothing else in the shell names them.
 */
import type { ConditionEvaluator } from '../analysis/evaluate/index.ts';
import { createConditionEvaluator } from '../analysis/expr/index.ts';
import { minimalWebProvider } from '../analysis/providers/index.ts';
import type { ProviderRegistry } from '../analysis/providers/index.ts';

/** `prometheus` and `job` are absent until their providers land: their metrics measure Error. */
export function analysisProviders(): ProviderRegistry {
  return { web: minimalWebProvider };
}

/** Conditions in our expr-lang compatible language, compiled once per distinct text. */
export function conditionEvaluator(): ConditionEvaluator {
  return createConditionEvaluator();
}
