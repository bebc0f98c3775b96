/**
 * A blue-green's own rules beyond the schema, without a cluster: two different Services, a
 * revision limit within the history kept, a maxUnavailable that resolves, analyses that build
 * into runs. Each problem one line naming the field and what must hold.
 */
import type { BlueGreenStrategy, Rollout } from '../../api/index.ts';
import { resolveIntOrPercent } from '../../api/intorpercent.ts';
import { analysesProblems } from '../../api/rollout-rules.ts';
import type { TemplateMaps } from '../../api/rollout-rules.ts';
import { approvalProblems } from '../approval-people.ts';

const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** `templates` undefined: analyses are not checked (the plugin's offline lint). */
export function blueGreenProblems(
  rollout: Rollout,
  bg: BlueGreenStrategy,
  templates?: TemplateMaps,
): string[] {
  const spec = rollout.spec;
  const problems: string[] = [];
  if (bg.previewService !== undefined && bg.previewService === bg.activeService) {
    problems.push('spec.strategy.blueGreen: activeService and previewService must differ');
  }
  const limit = bg.scaleDownDelayRevisionLimit;
  if (
    limit !== undefined &&
    (spec.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT) < limit
  ) {
    problems.push(
      'spec.revisionHistoryLimit: must not be less than strategy.blueGreen.scaleDownDelayRevisionLimit',
    );
  }
  const unavailable = resolveIntOrPercent(bg.maxUnavailable, spec.replicas ?? 1, false, '25%');
  if (!unavailable.ok) {
    problems.push(`spec.strategy.blueGreen.maxUnavailable: ${unavailable.error}`);
  }
  if (bg.approval !== undefined) {
    problems.push(...approvalProblems(bg.approval, 'spec.strategy.blueGreen.approval'));
  }
  if (templates !== undefined) problems.push(...analysesProblems(rollout, templates));
  return problems;
}
