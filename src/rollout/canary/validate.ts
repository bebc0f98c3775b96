/**
 * A canary's own rules beyond the schema, without a cluster: surge and unavailability that
 * resolve, each step's rules (step-kinds.ts), analyses that build into runs, a trafficRouting
 * the routers accept, and Services and limits that agree. Each problem one line naming the field
 * and what must hold.
 */
import type { CanaryStrategy, Rollout } from '../../api/index.ts';
import { resolveSurgeUnavailable } from '../../api/intorpercent.ts';
import { analysesProblems } from '../../api/rollout-rules.ts';
import type { TemplateMaps } from '../../api/rollout-rules.ts';
import { trafficProblems } from '../../api/traffic-validate.ts';
import { stepProblems } from './step-kinds.ts';

/** `templates` undefined: analyses are not checked (the plugin's offline lint checks them only
 *  against the templates it was given). */
export function canaryProblems(
  rollout: Rollout,
  canary: CanaryStrategy,
  templates?: TemplateMaps,
): string[] {
  const spec = rollout.spec;
  const problems: string[] = [];
  const surge = resolveSurgeUnavailable(canary.maxSurge, canary.maxUnavailable, spec.replicas ?? 1);
  if (!surge.ok) problems.push(`spec.strategy.canary: ${surge.error}`);
  const maxWeight = canary.trafficRouting?.maxTrafficWeight ?? 100;
  (canary.steps ?? []).forEach((step, i) => {
    problems.push(...stepProblems(step, `spec.strategy.canary.steps[${i}]`, { maxWeight }));
  });
  if (templates !== undefined) problems.push(...analysesProblems(rollout, templates));
  problems.push(...trafficProblems(canary));
  if (
    canary.scaleDownDelayRevisionLimit !== undefined &&
    (spec.revisionHistoryLimit ?? 10) < canary.scaleDownDelayRevisionLimit
  ) {
    problems.push(
      'spec.revisionHistoryLimit: must not be less than strategy.canary.scaleDownDelayRevisionLimit',
    );
  }
  if (canary.canaryService !== undefined && canary.canaryService === canary.stableService) {
    problems.push('spec.strategy.canary: canaryService and stableService must differ');
  }
  return problems;
}
