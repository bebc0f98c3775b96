/**
 * The blue-green strategy's surface (for the dispatch table). Placeholder while its planner is
 * written: a blue-green Rollout is refused with a clear InvalidSpec.
 */
import type { Strategy } from '../strategy.ts';

export const blueGreenStrategy: Strategy = {
  specProblems: () => ['spec.strategy.blueGreen: not supported by this build yet'],
  observedProblems: () => [],
  plan: () => {
    throw new Error('blue-green has no planner yet');
  },
};
