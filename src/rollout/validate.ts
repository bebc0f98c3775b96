/**
 * What makes a Rollout impossible to act on, beyond its schema: every problem found, each one
 * line naming the field and what must hold. Non-empty → InvalidSpec condition, no other action.
 * The rules that need no cluster live in src/api/rollout-rules.ts (the plugin's lint runs them
 * offline); the Services the spec names (by role, servicesOf) are checked here.
 */
import { MANAGED_BY_ANNOTATION, rolloutSpecProblems } from '../api/index.ts';
import type { Rollout, Service } from '../api/index.ts';
import { rolloutRuleProblems, type TemplateMaps } from '../api/rollout-rules.ts';
import { servicesOf } from './services.ts';

export type { TemplateMaps };
/** The rules that need no cluster, for the plugin's offline lint (index.ts). */
export { rolloutRuleProblems };

const NO_TEMPLATES: TemplateMaps = { templates: new Map(), clusterTemplates: new Map() };

export function specProblems(
  rollout: Rollout,
  services: ReadonlyMap<string, Service>,
  templates: TemplateMaps = NO_TEMPLATES,
): readonly string[] {
  const schema = rolloutSpecProblems(rollout.spec);
  if (schema.length > 0) return schema;
  const problems = rolloutRuleProblems(rollout, templates);
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
