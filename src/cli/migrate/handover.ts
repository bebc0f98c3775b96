/**
 * PURE: the part of an Argo Rollout's status a Stepwise Rollout takes over. Argo's status
 * contract is ours, field for field, so these are copied as they are; the controller checks them
 * against the live ReplicaSets when it adopts them (src/rollout/adoption/). Left out: Argo's
 * `currentStepHash` and `collisionCount` (its Go hashes, not ours), counts and conditions (the
 * controller observes them again), and anything our status schema does not have.
 */
import type { RolloutStatus } from '../../api/rollout.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined =>
  Number.isSafeInteger(v) ? (v as number) : undefined;
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

function weight(
  v: unknown,
): { weight: number; serviceName?: string; podTemplateHash?: string } | undefined {
  if (!isObj(v)) return undefined;
  const w = int(v.weight);
  if (w === undefined) return undefined;
  return compact({
    weight: w,
    serviceName: str(v.serviceName),
    podTemplateHash: str(v.podTemplateHash),
  });
}

/** Undefined when Argo wrote nothing worth taking over (no stableRS yet). */
export function handedOverStatus(argoStatus: unknown): RolloutStatus | undefined {
  if (!isObj(argoStatus) || str(argoStatus.stableRS) === undefined) return undefined;
  const pauseConditions = Array.isArray(argoStatus.pauseConditions)
    ? argoStatus.pauseConditions
        .filter(isObj)
        .map((c) => ({ reason: str(c.reason) ?? '', startTime: str(c.startTime) ?? '' }))
        .filter((c) => c.reason !== '' && c.startTime !== '')
    : [];
  const weights = at(argoStatus, 'canary', 'weights');
  const canary = weight(at(weights, 'canary'));
  const stable = weight(at(weights, 'stable'));
  const bg = isObj(argoStatus.blueGreen) ? argoStatus.blueGreen : {};
  const blueGreen = compact({
    activeSelector: str(bg.activeSelector),
    previewSelector: str(bg.previewSelector),
  });
  return compact({
    stableRS: str(argoStatus.stableRS),
    currentPodHash: str(argoStatus.currentPodHash),
    currentStepIndex: int(argoStatus.currentStepIndex),
    pauseConditions: pauseConditions.length > 0 ? pauseConditions : undefined,
    controllerPause: bool(argoStatus.controllerPause),
    abort: bool(argoStatus.abort),
    abortedAt: str(argoStatus.abortedAt),
    promoteFull: bool(argoStatus.promoteFull),
    restartedAt: str(argoStatus.restartedAt),
    canary: canary && stable ? { weights: { canary, stable } } : undefined,
    blueGreen: Object.keys(blueGreen).length > 0 ? blueGreen : undefined,
  });
}

function at(o: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);
}

function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
