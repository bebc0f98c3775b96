/**
 * `status.canary`, the canary's own block of the status: the router's weights with the Services
 * that carry them (with traffic routing; a basic canary has none), and the analysis runs of the
 * step and the background.
 */
import type { CanaryStrategy, RolloutStatus } from '../../api/index.ts';
import type { AnalysisStatuses } from '../analysis-steps.ts';
import { compact } from '../status.ts';

export interface CanaryStatusInput {
  readonly names: Pick<CanaryStrategy, 'canaryService' | 'stableService'>;
  /** Pod-template hashes of the canary and the stable after this pass. */
  readonly hash: string;
  readonly stableHash: string;
  /** The router's weights (canary, stable); absent for a basic canary. */
  readonly weights?: { readonly canary: number; readonly stable: number };
  readonly analysisStatuses?: AnalysisStatuses;
}

/** What the stored status.canary says about the runs (the analysis planner starts from it). */
export function storedAnalysisStatuses(status: RolloutStatus | undefined): AnalysisStatuses {
  return {
    step: status?.canary?.currentStepAnalysisRunStatus,
    background: status?.canary?.currentBackgroundAnalysisRunStatus,
  };
}

/** status.canary: the router's weights (with traffic routing) and the analysis runs. */
export function canaryStatus(i: CanaryStatusInput): Pick<RolloutStatus, 'canary'> {
  const { canaryService, stableService } = i.names;
  const weights =
    i.weights === undefined
      ? undefined
      : {
          canary: compact({
            weight: i.weights.canary,
            podTemplateHash: i.hash,
            serviceName: canaryService,
          }),
          stable: compact({
            weight: i.weights.stable,
            podTemplateHash: i.stableHash,
            serviceName: stableService,
          }),
        };
  const out = compact({
    weights,
    currentStepAnalysisRunStatus: i.analysisStatuses?.step,
    currentBackgroundAnalysisRunStatus: i.analysisStatuses?.background,
  });
  return { canary: Object.keys(out).length === 0 ? undefined : out };
}
