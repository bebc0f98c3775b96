/**
 * Where a Rollout's spec asks people to approve: the one place that knows which field holds an
 * approval gate in each strategy (as services.ts does for Services). A gate is named by the
 * index people's decisions carry: a canary's step index; blue-green's single gate, before the
 * switch of the active Service, is 0. The planner, the approval endpoints, notifications and
 * the plugin read gates from here, never from a strategy's own fields.
 */
import type { ApprovalStep } from '../api/index.ts';

export interface ApprovalGate {
  readonly index: number;
  readonly approval: ApprovalStep;
  /** The spec field, for messages (`spec.strategy.canary.steps[2].approval`). */
  readonly field: string;
}

/** The part of a Rollout the gates are read from (the plugin's and the cache's objects). */
export interface GatedRollout {
  readonly spec?: {
    readonly strategy?: {
      readonly canary?: { readonly steps?: readonly { readonly approval?: ApprovalStep }[] };
      readonly blueGreen?: { readonly approval?: ApprovalStep };
    };
  };
}

export function approvalGates(rollout: GatedRollout): readonly ApprovalGate[] {
  const strategy = rollout.spec?.strategy;
  const gates: ApprovalGate[] = [];
  (strategy?.canary?.steps ?? []).forEach((step, index) => {
    if (step.approval !== undefined) {
      gates.push({
        index,
        approval: step.approval,
        field: `spec.strategy.canary.steps[${index}].approval`,
      });
    }
  });
  const blueGreen = strategy?.blueGreen?.approval;
  if (blueGreen !== undefined) {
    gates.push({ index: 0, approval: blueGreen, field: 'spec.strategy.blueGreen.approval' });
  }
  return gates;
}

/** The approval gate at `index`, if there is one. */
export function approvalGateAt(rollout: GatedRollout, index: number): ApprovalStep | undefined {
  return approvalGates(rollout).find((g) => g.index === index)?.approval;
}

/** How people are told where a gate is: `step 2/4`, or `the switch` for blue-green. */
export function gatePlace(rollout: GatedRollout, index: number): string {
  if (rollout.spec?.strategy?.blueGreen !== undefined) return 'the switch to the new version';
  return `step ${index + 1}/${stepCountOf(rollout)}`;
}

/** How many steps people are told a Rollout has (`step 2/4`): a canary's steps; blue-green's
 *  approval gate, if it has one. */
export function stepCountOf(rollout: GatedRollout): number {
  const strategy = rollout.spec?.strategy;
  if (strategy?.blueGreen !== undefined) return strategy.blueGreen.approval === undefined ? 0 : 1;
  return strategy?.canary?.steps?.length ?? 0;
}
