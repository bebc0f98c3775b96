/**
 * What makes a Rollout impossible to act on, beyond its schema and without a cluster: each
 * problem one line naming the field and what must hold. The controller adds the checks on the
 * Services it names (src/rollout/validate.ts); the kubectl plugin's `lint` runs these offline.
 */
import { buildRun } from './analysis-run.ts';
import type { AnalysisTemplate } from './analysis.ts';
import type { ApprovalStep } from './approval.ts';
import { resolveSurgeUnavailable } from './intorpercent.ts';
import { parsePauseDuration } from './pause-duration.ts';
import type { Rollout, RolloutAnalysis } from './rollout.ts';
import { selectorIsEmpty, selectorMatches } from './selector.ts';
import { trafficProblems } from './traffic-validate.ts';

export interface TemplateMaps {
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  readonly clusterTemplates: ReadonlyMap<string, AnalysisTemplate>;
}

/** Each analysis of the Rollout with its field path: the steps' in order, then the background. */
export function rolloutAnalyses(rollout: Rollout): [string, RolloutAnalysis][] {
  const canary = rollout.spec.strategy.canary;
  const analyses: [string, RolloutAnalysis][] = (canary?.steps ?? []).flatMap((step, i) =>
    step.analysis
      ? [[`spec.strategy.canary.steps[${i}].analysis`, step.analysis] as [string, RolloutAnalysis]]
      : [],
  );
  if (canary?.analysis) analyses.push(['spec.strategy.canary.analysis', canary.analysis]);
  return analyses;
}

/** An analysis must build into a run now (templates found, metrics and args consistent), not
 *  at the step, hours into a rollout. */
export function analysisProblem(
  rollout: Rollout,
  analysis: RolloutAnalysis,
  maps: TemplateMaps,
): string | undefined {
  const ctx = { rollout, hash: 'hash', stableHash: 'hash', revision: 0, ...maps };
  const built = buildRun(ctx, analysis, 'Step', 'check');
  return built.ok ? undefined : built.error;
}

/** An approval step people can satisfy: a timeout that parses, and enough named approvers. */
function approvalProblems(approval: ApprovalStep | undefined, at: string): string[] {
  if (approval === undefined) return [];
  const problems: string[] = [];
  if (approval.timeout !== undefined) {
    const parsed = parsePauseDuration(approval.timeout);
    if (!parsed.ok) problems.push(`${at}.timeout: ${parsed.error}`);
    else if (parsed.value === 0) problems.push(`${at}.timeout: must be greater than 0`);
  }
  const a = approval.approvers;
  const named = new Set([...(a?.users ?? []), ...(a?.slackUsers ?? [])]).size;
  const needed = approval.minApprovals ?? 1;
  if (a !== undefined && (a.groups ?? []).length === 0 && named > 0 && needed > named) {
    problems.push(
      `${at}.minApprovals: must not exceed the ${named} approvers listed (got ${needed})`,
    );
  }
  return problems;
}

/**
 * The rules a Rollout's spec must meet that need no cluster: everything the controller checks
 * except the Services it names. `templates` undefined: analyses are not checked (the plugin's
 * offline lint checks them only against the templates it was given). Assumes the schema holds
 * (rolloutSpecProblems first).
 */
export function rolloutRuleProblems(rollout: Rollout, templates?: TemplateMaps): string[] {
  const spec = rollout.spec;
  const problems: string[] = [];
  const labels = spec.template.metadata?.labels ?? {};
  if (selectorIsEmpty(spec.selector)) {
    problems.push('spec.selector: must not be empty (it would select all pods)');
  } else if (!selectorMatches(spec.selector, labels)) {
    problems.push('spec.selector: must match spec.template.metadata.labels');
  }
  const replicas = spec.replicas ?? 1;
  const progressDeadline = spec.progressDeadlineSeconds ?? 600;
  if (progressDeadline <= (spec.minReadySeconds ?? 0)) {
    problems.push('spec.progressDeadlineSeconds: must be greater than spec.minReadySeconds');
  }
  const canary = spec.strategy.canary;
  if (canary === undefined) {
    problems.push('spec.strategy.canary: must be set (the only strategy so far)');
    return problems;
  }
  const surge = resolveSurgeUnavailable(canary.maxSurge, canary.maxUnavailable, replicas);
  if (!surge.ok) problems.push(`spec.strategy.canary: ${surge.error}`);
  (canary.steps ?? []).forEach((step, i) => {
    const at = `spec.strategy.canary.steps[${i}]`;
    const maxWeight = canary.trafficRouting?.maxTrafficWeight ?? 100;
    if (step.setWeight !== undefined && (step.setWeight < 0 || step.setWeight > maxWeight)) {
      problems.push(`${at}.setWeight: must be between 0 and ${maxWeight}, got ${step.setWeight}`);
    }
    const duration = step.pause?.duration;
    if (duration !== undefined) {
      const parsed = parsePauseDuration(duration);
      if (!parsed.ok) problems.push(`${at}.pause.duration: ${parsed.error}`);
    }
    problems.push(...approvalProblems(step.approval, `${at}.approval`));
    const scale = step.setCanaryScale;
    if (scale !== undefined) {
      const set = [scale.replicas, scale.weight, scale.matchTrafficWeight].filter(
        (v) => v !== undefined,
      );
      if (set.length !== 1) {
        problems.push(
          `${at}.setCanaryScale: must set exactly one of replicas, weight, matchTrafficWeight`,
        );
      }
      if (scale.replicas !== undefined && scale.replicas < 0) {
        problems.push(`${at}.setCanaryScale.replicas: must not be negative`);
      }
      if (scale.weight !== undefined && (scale.weight < 0 || scale.weight > 100)) {
        problems.push(`${at}.setCanaryScale.weight: must be between 0 and 100`);
      }
    }
  });
  if (templates !== undefined) {
    for (const [at, analysis] of rolloutAnalyses(rollout)) {
      const problem = analysisProblem(rollout, analysis, templates);
      if (problem !== undefined) problems.push(`${at}: ${problem}`);
    }
  }
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
