/**
 * PURE: each strategy's part of the Rollout view, one function per strategy. A new strategy adds
 * a function and a line in STRATEGY_PARTS (and a component in web/strategies/): the list, the
 * shared parts of the view and the server stay as they are.
 */
import type { Rollout } from '../../api/rollout.ts';
import { actualWeight, setWeight, type RolloutInfo } from '../../cli/render/info.ts';
import type { ReplicaSetLike } from '../../cli/render/objects.ts';
import { blueGreenPauseEndsAt } from './pauses.ts';
import { canarySteps } from './steps.ts';
import type { StrategyPart } from './wire.ts';

type StrategyKey = keyof Rollout['spec']['strategy'];
type PartOf = (ro: Rollout, info: RolloutInfo, rs: readonly ReplicaSetLike[]) => StrategyPart;

const STRATEGY_PARTS: Record<StrategyKey, PartOf> = {
  canary: (ro, info, rs) => ({
    kind: 'canary',
    lines: info.strategyLines,
    steps: canarySteps(ro),
    setWeight: setWeight(ro),
    actualWeight: actualWeight(ro, rs),
  }),
  blueGreen: (ro, info) => {
    const endsAt = blueGreenPauseEndsAt(ro);
    // The header's countdown line is a snapshot; the page counts down from endsAt instead.
    const lines = info.strategyLines.filter(([, value]) => !/promotes itself in/.test(value));
    return { kind: 'blueGreen', lines, ...(endsAt !== undefined ? { endsAt } : {}) };
  },
};

export function strategyPart(
  ro: Rollout,
  info: RolloutInfo,
  replicaSets: readonly ReplicaSetLike[],
): StrategyPart {
  const key = (Object.keys(STRATEGY_PARTS) as StrategyKey[]).find(
    (k) => ro.spec.strategy?.[k] !== undefined,
  );
  return STRATEGY_PARTS[key ?? 'canary'](ro, info, replicaSets);
}
