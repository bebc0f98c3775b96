/**
 * The Istio router's DestinationRule half (subset-level split): the canary and stable subsets
 * pinned to the pod-template hashes. `spec.subsets` is an atomic list, so the body carries
 * every subset as the user wrote it with only our hash labels changed.
 */
import { POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';
import type { IstioRouting } from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import { apiVersionOf, Resources } from '../kube/resources.ts';
import { claimedByOther, describe, marked, sameJson, userObjectMeta } from './objects.ts';
import type { RouterContext, TrafficObjectRef } from './router.ts';

interface Subset {
  readonly name?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}
export interface DestinationRule extends KubeObject {
  readonly spec?: {
    readonly host?: string;
    readonly subsets?: readonly Subset[];
    readonly [field: string]: unknown;
  };
}
export type DrConfig = NonNullable<IstioRouting['destinationRule']>;

export function readDestinationRule(
  ctx: RouterContext,
  dr: DrConfig,
  r: TrafficObjectRef,
  rule: DestinationRule | undefined,
): { problems: string[]; current: boolean } {
  const what = describe('DestinationRule', r.namespace, r.name);
  if (rule === undefined) return { problems: [`${what} not found`], current: false };
  const claimed = claimedByOther(rule, ctx.rollout, what);
  if (claimed !== undefined) return { problems: [claimed], current: false };
  const subsets = rule.spec?.subsets ?? [];
  const problems = [dr.canarySubsetName, dr.stableSubsetName]
    .filter((name) => !subsets.some((s) => s.name === name))
    .map((name) => `${what} has no subset named "${name}"`);
  return {
    problems,
    current: marked(rule, ctx.rollout) && sameJson(pinned(ctx, dr, subsets), subsets),
  };
}

/** The subsets with the canary's and the stable's hash label; Argo drops the label for an
 *  empty hash. Every other subset and label is the user's, unchanged. */
function pinned(ctx: RouterContext, dr: DrConfig, subsets: readonly Subset[]): Subset[] {
  const hashOf = (s: Subset) =>
    s.name === dr.canarySubsetName
      ? ctx.canaryHash
      : s.name === dr.stableSubsetName
        ? ctx.stableHash
        : undefined;
  return subsets.map((s) => {
    const hash = hashOf(s);
    if (hash === undefined) return s;
    const labels: Record<string, string> = { ...s.labels };
    delete labels[POD_TEMPLATE_HASH_LABEL];
    if (hash !== '') labels[POD_TEMPLATE_HASH_LABEL] = hash;
    if (s.labels === undefined && hash === '') return s;
    return { ...s, labels };
  });
}

export function drBody(ctx: RouterContext, dr: DrConfig, rule: DestinationRule): DestinationRule {
  return {
    apiVersion: rule.apiVersion ?? apiVersionOf(Resources.DestinationRule),
    kind: Resources.DestinationRule.kind,
    metadata: userObjectMeta(rule, ctx.rollout),
    spec: { subsets: pinned(ctx, dr, rule.spec?.subsets ?? []) },
  };
}
