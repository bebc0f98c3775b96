/**
 * The dispatch table: `spec.strategy.<key>` → the strategy that plans it. The only module
 * outside a strategy's folder that imports it (besides index.ts, the public surface); the
 * architecture test holds that.
 */
import type { RolloutSpec } from '../api/index.ts';
import { blueGreenStrategy } from './blueGreen/index.ts';
import { canaryStrategy } from './canary/index.ts';
import type { Strategy } from './strategy.ts';

type RolloutStrategy = RolloutSpec['strategy'];

/** The strategies the schema has (`spec.strategy` sets one of them). */
export type StrategyKey = keyof RolloutStrategy;

export type StrategyTable = Readonly<Record<StrategyKey, Strategy>>;

export const STRATEGIES: StrategyTable = { canary: canaryStrategy, blueGreen: blueGreenStrategy };

/** The strategy a Rollout names (the first key of the table its spec sets), if any. */
export function strategyOf(
  strategy: RolloutStrategy,
  table: StrategyTable = STRATEGIES,
): Strategy | undefined {
  const key = strategyKeyOf(strategy, table);
  return key === undefined ? undefined : table[key];
}

/** The key of the strategy a spec sets (`canary`, `blueGreen`), as Argo's metrics label it. */
export function strategyKeyOf(
  strategy: RolloutStrategy | undefined,
  table: StrategyTable = STRATEGIES,
): StrategyKey | undefined {
  return (Object.keys(table) as StrategyKey[]).find((k) => strategy?.[k] !== undefined);
}
