/**
 * What makes a Rollout impossible to act on, beyond its schema: every problem found, each one
 * line naming the field and what must hold. Non-empty → InvalidSpec condition, no other action.
 * Without a cluster (the plugin's lint runs these offline): the rules every Rollout meets
 * (src/api/rollout-rules.ts), then its strategy's own (through the dispatch table). With the
 * cluster: the Services the spec names (by role, servicesOf) exist and are not another's.
 */
import { MANAGED_BY_ANNOTATION, rolloutSpecProblems } from '../api/index.ts';
import type { Rollout, Service } from '../api/index.ts';
import { commonRuleProblems, type TemplateMaps } from '../api/rollout-rules.ts';
import { servicesOf } from './services.ts';
import { STRATEGIES, strategyOf } from './strategies.ts';
import type { StrategyTable } from './strategies.ts';

export type { TemplateMaps };

const NO_TEMPLATES: TemplateMaps = { templates: new Map(), clusterTemplates: new Map() };

/**
 * The rules a Rollout's spec must meet that need no cluster: everything the controller checks
 * except the Services it names. `templates` undefined: analyses are not checked (the plugin's
 * offline lint checks them only against the templates it was given). Assumes the schema holds
 * (rolloutSpecProblems first).
 */
export function rolloutRuleProblems(
  rollout: Rollout,
  templates?: TemplateMaps,
  strategies: StrategyTable = STRATEGIES,
): string[] {
  const problems = commonRuleProblems(rollout);
  const strategy = strategyOf(rollout.spec.strategy, strategies);
  if (strategy === undefined) {
    return [...problems, 'spec.strategy: must set canary or blueGreen'];
  }
  return [...problems, ...strategy.specProblems(rollout, templates)];
}

export function specProblems(
  rollout: Rollout,
  services: ReadonlyMap<string, Service>,
  templates: TemplateMaps = NO_TEMPLATES,
  strategies: StrategyTable = STRATEGIES,
): readonly string[] {
  const schema = rolloutSpecProblems(rollout.spec);
  if (schema.length > 0) return schema;
  const problems = rolloutRuleProblems(rollout, templates, strategies);
  for (const { name, field } of servicesOf(rollout)) {
    const service = services.get(name);
    const owner = service?.metadata?.annotations?.[MANAGED_BY_ANNOTATION];
    if (service === undefined) {
      problems.push(`${field}: Service "${name}" not found`);
    } else if (owner !== undefined && owner !== rollout.metadata.name) {
      problems.push(`${field}: Service "${name}" is managed by Rollout "${owner}"`);
    }
  }
  return problems;
}
