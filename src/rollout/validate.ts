/**
 * What makes a Rollout impossible to act on, beyond its schema: every problem found, each one
 * line naming the field and what must hold. Non-empty → InvalidSpec condition, no other action.
 * The rules that need no cluster live in src/api/rollout-rules.ts (the plugin's lint runs them
 * offline); the Services the spec names are checked here.
 */
import { MANAGED_BY_ANNOTATION, rolloutSpecProblems } from '../api/index.ts';
import type { Rollout, Service } from '../api/index.ts';
import { rolloutRuleProblems, type TemplateMaps } from '../api/rollout-rules.ts';

export type { TemplateMaps };

const NO_TEMPLATES: TemplateMaps = { templates: new Map(), clusterTemplates: new Map() };

export function specProblems(
  rollout: Rollout,
  services: ReadonlyMap<string, Service>,
  templates: TemplateMaps = NO_TEMPLATES,
): readonly string[] {
  const schema = rolloutSpecProblems(rollout.spec);
  if (schema.length > 0) return schema;
  const problems = rolloutRuleProblems(rollout, templates);
  const canary = rollout.spec.strategy.canary;
  if (canary === undefined) return problems;
  for (const field of ['canaryService', 'stableService'] as const) {
    const name = canary[field];
    if (name === undefined) continue;
    const service = services.get(name);
    const owner = service?.metadata?.annotations?.[MANAGED_BY_ANNOTATION];
    if (service === undefined) {
      problems.push(`spec.strategy.canary.${field}: Service "${name}" not found`);
    } else if (owner !== undefined && owner !== rollout.metadata.name) {
      problems.push(
        `spec.strategy.canary.${field}: Service "${name}" is managed by Rollout "${owner}"`,
      );
    }
  }
  return problems;
}
