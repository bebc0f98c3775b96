/**
 * Conditions keyed by type, as in the Kubernetes API conventions and Argo's status:
 * `lastTransitionTime` moves only when `status` flips; an unchanged condition returns the very
 * same list, so a pass that observes nothing new writes nothing.
 */
import type { Condition, ConditionType } from '../api/index.ts';

export interface NewCondition {
  readonly type: ConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

export function getCondition(
  list: readonly Condition[] | undefined,
  type: ConditionType,
): Condition | undefined {
  return list?.find((c) => c.type === type);
}

export function setCondition(
  list: readonly Condition[],
  next: NewCondition,
  now: string,
): readonly Condition[] {
  const prev = list.find((c) => c.type === next.type);
  if (prev?.status === next.status && prev.reason === next.reason && prev.message === next.message)
    return list;
  const lastTransitionTime = prev?.status === next.status ? prev.lastTransitionTime : now;
  const condition: Condition = { ...next, lastTransitionTime, lastUpdateTime: now };
  return prev ? list.map((c) => (c === prev ? condition : c)) : [...list, condition];
}

export function removeCondition(
  list: readonly Condition[],
  type: ConditionType,
): readonly Condition[] {
  return list.some((c) => c.type === type) ? list.filter((c) => c.type !== type) : list;
}
