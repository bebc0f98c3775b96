/**
 * PURE: what `get rollout` and `list` show of a Rollout's strategy, one module per strategy. A
 * new strategy adds a module and a line in STRATEGY_VIEWS; the header, the tree and the list
 * table stay as they are.
 */
import type { Rollout } from '../../../api/rollout.ts';
import { blueGreenView } from './blueGreen.ts';
import { canaryView } from './canary.ts';
import type { StrategyView } from './view.ts';

export type { StrategyLine, StrategyView, ListCells, ReplicaSetRef } from './view.ts';

type StrategyKey = keyof Rollout['spec']['strategy'];

const STRATEGY_VIEWS: Record<StrategyKey, StrategyView> = {
  canary: canaryView,
  blueGreen: blueGreenView,
};

/** The view of the strategy the spec names (the schema allows exactly one). */
export function strategyView(ro: Rollout): StrategyView {
  const key = (Object.keys(STRATEGY_VIEWS) as StrategyKey[]).find(
    (k) => ro.spec.strategy?.[k] !== undefined,
  );
  return STRATEGY_VIEWS[key ?? 'canary'];
}
