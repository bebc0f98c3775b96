/**
 * What makes a Rollout impossible to act on, beyond its schema and without a cluster, as far as
 * every strategy is concerned: each problem one line naming the field and what must hold; and
 * the analyses a Rollout names, which must build into runs. The strategy's own rules (a canary's
 * steps, surge, routing) are its folder's (src/rollout/canary/validate.ts); src/rollout/validate.ts
 * puts them together, and the kubectl plugin's `lint` runs them offline from src/rollout.
 */
import { buildRun } from './analysis-run.ts';
import type { AnalysisTemplate } from './analysis.ts';
import type { Rollout, RolloutAnalysis } from './rollout.ts';
import { selectorIsEmpty, selectorMatches } from './selector.ts';
import { workloadSourceProblem } from './workload-ref.ts';

export interface TemplateMaps {
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  readonly clusterTemplates: ReadonlyMap<string, AnalysisTemplate>;
}

/** Each analysis of the Rollout with its field path: a canary's steps in order, then its
 *  background; a blue-green's pre- then post-promotion. */
export function rolloutAnalyses(rollout: Rollout): [string, RolloutAnalysis][] {
  // Optional chaining: the controller's cache indexes objects the schema has not vetted.
  const canary = rollout.spec?.strategy?.canary;
  const analyses: [string, RolloutAnalysis][] = (canary?.steps ?? []).flatMap((step, i) =>
    step.analysis
      ? [[`spec.strategy.canary.steps[${i}].analysis`, step.analysis] as [string, RolloutAnalysis]]
      : [],
  );
  if (canary?.analysis) analyses.push(['spec.strategy.canary.analysis', canary.analysis]);
  const blueGreen = rollout.spec?.strategy?.blueGreen;
  for (const key of ['prePromotionAnalysis', 'postPromotionAnalysis'] as const) {
    const analysis = blueGreen?.[key];
    if (analysis) analyses.push([`spec.strategy.blueGreen.${key}`, analysis]);
  }
  return analyses;
}

/** Each analysis of the Rollout that cannot build into a run, as `<field>: <why>`. */
export function analysesProblems(rollout: Rollout, maps: TemplateMaps): string[] {
  return rolloutAnalyses(rollout).flatMap(([at, analysis]) => {
    const problem = analysisProblem(rollout, analysis, maps);
    return problem === undefined ? [] : [`${at}: ${problem}`];
  });
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

/**
 * The rules every Rollout's spec must meet, whatever its strategy, that need no cluster.
 * Assumes the schema holds (rolloutSpecProblems first). A Rollout whose template comes from a
 * workloadRef is checked against that template by the planner (src/rollout/workload-ref/);
 * offline, only what it declares itself.
 */
export function commonRuleProblems(rollout: Rollout): string[] {
  const spec = rollout.spec;
  const source = workloadSourceProblem(spec);
  if (source !== undefined) return [source];
  const problems: string[] = [];
  if (spec.selector === undefined) {
    if (spec.template !== undefined) problems.push('spec.selector: must be set');
  } else if (selectorIsEmpty(spec.selector)) {
    problems.push('spec.selector: must not be empty (it would select all pods)');
  } else if (
    spec.template !== undefined &&
    !selectorMatches(spec.selector, spec.template.metadata?.labels ?? {})
  ) {
    problems.push('spec.selector: must match spec.template.metadata.labels');
  }
  const progressDeadline = spec.progressDeadlineSeconds ?? 600;
  if (progressDeadline <= (spec.minReadySeconds ?? 0)) {
    problems.push('spec.progressDeadlineSeconds: must be greater than spec.minReadySeconds');
  }
  return problems;
}
