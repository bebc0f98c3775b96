/**
 * The one place that plugs the analysis modules into the AnalysisRun controller: the providers
 * by name and the condition language. Nothing else in the shell names them.
 */
import type { ConditionEvaluator } from '../analysis/evaluate/index.ts';
import { createConditionEvaluator } from '../analysis/expr/index.ts';
import { jobProvider, prometheusProvider, webProvider } from '../analysis/providers/index.ts';
import type { KubeApi } from '../kube/kube-api.ts';
import type { ProviderRegistry } from '../analysis/providers/index.ts';

/**
 * The providers by name. `STEPWISE_PROMETHEUS_ADDRESS` is the address of metrics that name
 * none (Argo's ARGO_ROLLOUTS_PROMETHEUS_ADDRESS); Jobs are made through the controller's client.
 */
export function analysisProviders(
  api: KubeApi,
  env: NodeJS.ProcessEnv = process.env,
): ProviderRegistry {
  return {
    prometheus: prometheusProvider({ defaultAddress: env['STEPWISE_PROMETHEUS_ADDRESS'] }),
    web: webProvider,
    job: jobProvider(api),
  };
}

/** Conditions in our expr-lang compatible language, compiled once per distinct text. */
export function conditionEvaluator(): ConditionEvaluator {
  return createConditionEvaluator();
}
