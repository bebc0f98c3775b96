/**
 * The strategy's part of the Rollout view, one component per strategy, chosen by the `kind` the
 * server sends (src/dashboard/model/strategies.ts builds it). A new strategy adds a module and a
 * line here; the rest of the view stays as it is.
 */
import type { StrategyPart } from '../../model/wire.ts';
import { blueGreenPart } from './blueGreen.ts';
import { canaryPart } from './canary.ts';

type Components = {
  [K in StrategyPart['kind']]: (part: Extract<StrategyPart, { kind: K }>) => HTMLElement;
};

const STRATEGY_COMPONENTS: Components = {
  canary: canaryPart,
  blueGreen: blueGreenPart,
};

export function strategyComponent(part: StrategyPart): HTMLElement {
  const component = STRATEGY_COMPONENTS[part.kind] as (p: StrategyPart) => HTMLElement;
  return component(part);
}
