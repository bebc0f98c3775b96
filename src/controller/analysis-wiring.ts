/**
 * The one place that plugs the analysis modules into the AnalysisRun controller: the providers
 * (built from the registry, src/analysis/providers/registry.ts) and the condition language.
 */
import type { ConditionEvaluator } from '../analysis/evaluate/index.ts';
import { createConditionEvaluator } from '../analysis/expr/index.ts';
import { createProviders, EgressPolicy } from '../analysis/providers/index.ts';
import type { ProviderRegistry } from '../analysis/providers/index.ts';
import { type KubeApi } from '../kube/index.ts';

/** Every provider of the registry, by name: Jobs are made through the controller's client, the
 *  environment (e.g. STEPWISE_PROMETHEUS_ADDRESS) is read here, once, and web and Prometheus
 *  requests go only where the administrator's allow and deny lists let them. */
export function analysisProviders(
  api: KubeApi,
  hosts: { readonly allowed: readonly string[]; readonly denied: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): ProviderRegistry {
  return createProviders({ api, env, egress: new EgressPolicy(hosts) });
}

/** Conditions in our expr-lang compatible language, compiled once per distinct text. */
export function conditionEvaluator(): ConditionEvaluator {
  return createConditionEvaluator();
}
