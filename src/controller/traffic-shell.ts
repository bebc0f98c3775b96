/**
 * The shell's half of traffic routing: read a Rollout's router objects from the caches into
 * the planner's observation, and apply the bodies a router builds for a planned state
 * (server-side apply, forced, under stepwise-controller: the fields are atomic, see
 * src/traffic/router.ts). No routing logic here.
 *
 * The observation also carries the routers' own rules on the spec (src/traffic
 * `routingProblems`): the planner may import only src/api, so the routers' verdict on the spec
 * reaches it the way their verdict on their objects does, as problems that make it InvalidSpec.
 */
import { rolloutSpecProblems } from '../api/index.ts';
import type { ReplicaSet, Rollout, TrafficObservation, TrafficState } from '../api/index.ts';
import { type KubeApi, type KubeObject, type ResourceType } from '../kube/index.ts';
import { templateHash } from '../rollout/index.ts';
import { combine, refKey, routersFor, routingProblems } from '../traffic/index.ts';
import type { RouterContext, TrafficRouter } from '../traffic/index.ts';

export interface TrafficObjectCache {
  /** False when the type is not served by the cluster (its CRDs are not installed). */
  watches(type: ResourceType): boolean;
  object(type: ResourceType, namespace: string, name: string): KubeObject | undefined;
  /** The objects carrying the mark of the Rollout `namespace/name`, existing or not. */
  managedBy?(key: string): readonly MarkedTrafficObject[];
  /** Every object carrying a Rollout's mark. */
  marked?(): readonly MarkedTrafficObject[];
}

export interface MarkedTrafficObject {
  readonly type: ResourceType;
  readonly object: KubeObject;
}

export interface TrafficView {
  readonly routers: readonly TrafficRouter[];
  readonly ctx: RouterContext;
  readonly observation: TrafficObservation;
}

/** What the Rollout's routers read now; undefined without trafficRouting. */
export function observeTraffic(
  rollout: Rollout,
  cache: TrafficObjectCache,
  replicaSets: readonly ReplicaSet[],
): TrafficView | undefined {
  const canary = rollout.spec.strategy?.canary;
  const routers = routersFor(canary);
  const rules = specRules(rollout);
  if ((routers.length === 0 && rules.length === 0) || canary === undefined) return undefined;
  const objects = new Map<string, KubeObject>();
  const unserved: string[] = [];
  for (const router of routers) {
    for (const ref of router.refs(rollout)) {
      if (!cache.watches(ref.type)) {
        const gv = `${ref.type.group}/${ref.type.version}`;
        unserved.push(
          `spec.strategy.canary.trafficRouting.${router.name}: ${ref.type.plural}.${gv} is not served by this cluster (install its CRDs, then restart the controller)`,
        );
        continue;
      }
      const obj = cache.object(ref.type, ref.namespace, ref.name);
      if (obj !== undefined) objects.set(refKey(ref), obj);
    }
  }
  const status = rollout.status ?? {};
  // The planner's hash (an undone template is its old ReplicaSet's).
  const canaryHash = templateHash({ rollout, replicaSets });
  const ctx: RouterContext = {
    rollout,
    canaryService: canary.canaryService ?? '',
    stableService: canary.stableService ?? '',
    maxWeight: canary.trafficRouting?.maxTrafficWeight ?? 100,
    canaryHash,
    stableHash: status.stableRS ?? canaryHash,
    objects,
  };
  if (unserved.length > 0)
    return { routers, ctx, observation: { problems: [...rules, ...new Set(unserved)] } };
  const observation = combine(routers.map((r) => r.observe(ctx)));
  return {
    routers,
    ctx,
    observation:
      rules.length === 0
        ? observation
        : { ...observation, problems: [...rules, ...observation.problems] },
  };
}

/** The routers' rules on the spec, once its schema holds (as the planner checks the rest). */
function specRules(rollout: Rollout): string[] {
  const canary = rollout.spec.strategy?.canary;
  if (canary?.trafficRouting === undefined) return [];
  return rolloutSpecProblems(rollout.spec).length === 0 ? routingProblems(canary) : [];
}

/** Applies every router's bodies for `state` with the hashes the planner decided. */
export async function applyTraffic(
  api: KubeApi,
  view: TrafficView,
  state: TrafficState,
  hashes: { readonly canary: string; readonly stable: string },
): Promise<void> {
  const ctx = { ...view.ctx, canaryHash: hashes.canary, stableHash: hashes.stable };
  for (const router of view.routers) {
    for (const body of router.applies(ctx, state)) {
      await api.apply(body as KubeObject & { metadata: object });
    }
  }
}
