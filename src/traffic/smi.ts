/**
 * The SMI router: a TrafficSplit (split.smi-spec.io/v1alpha4) that we generate and own, named
 * `trafficSplitName` or after the Rollout, splitting the root Service (default the stable
 * Service) between the canary and the stable, as Argo's SMI router does. Nothing of the user's
 * is written, so the only problem is a TrafficSplit of that name that is not ours.
 */
import type { Rollout, SmiRouting, TrafficObservation, TrafficState } from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import { apiVersionOf, Resources, watched } from '../kube/resources.ts';
import { controlledBy, describe, generatedMeta } from './objects.ts';
import { refKey } from './router.ts';
import type { RouterContext, RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

interface Backend {
  readonly service?: string;
  readonly weight?: number;
}
interface TrafficSplit extends KubeObject {
  readonly spec?: {
    readonly service?: string;
    readonly backends?: readonly Backend[];
    readonly [field: string]: unknown;
  };
}

/** The TrafficSplit is ours (created, patched); its spec has no rules beyond the schema. */
export const smi: RouterModule = {
  key: 'smi',
  kinds: [watched(Resources.TrafficSplit, 'create', 'patch')],
  managedRoutes: false,
  fromSpec: (routing) => (routing.smi === undefined ? undefined : smiRouter(routing.smi)),
  validate: () => [],
};

export function smiRouter(routing: SmiRouting): TrafficRouter {
  // Argo treats an empty name as unset, hence `||`.
  const refOf = (rollout: Rollout): TrafficObjectRef => ({
    type: Resources.TrafficSplit,
    namespace: rollout.metadata.namespace ?? '',
    name: routing.trafficSplitName || (rollout.metadata.name ?? ''),
  });
  const rootService = (ctx: RouterContext): string => routing.rootService || ctx.stableService;
  return {
    name: 'smi',
    refs: (rollout) => [refOf(rollout)],
    observe(ctx): TrafficObservation {
      const ref = refOf(ctx.rollout);
      const live: TrafficSplit | undefined = ctx.objects.get(refKey(ref));
      if (live === undefined) return { problems: [] }; // we create it
      if (!controlledBy(live, ctx.rollout)) {
        const what = describe('TrafficSplit', ref.namespace, ref.name);
        return {
          problems: [`${what} exists and is not owned by Rollout "${ctx.rollout.metadata.name}"`],
        };
      }
      const canaryWeight = live.spec?.backends?.[0]?.weight;
      if (canaryWeight === undefined) return { problems: [] };
      const want = splitSpec(ctx, rootService(ctx), canaryWeight);
      const same =
        live.spec?.service === want.service &&
        JSON.stringify(live.spec?.backends?.map(backendOf)) === JSON.stringify(want.backends);
      const state: TrafficState = { canaryWeight, headerRoutes: [], mirrorRoutes: [] };
      return same ? { state, problems: [] } : { problems: [] };
    },
    applies(ctx, state) {
      const ref = refOf(ctx.rollout);
      const body: TrafficSplit = {
        apiVersion: apiVersionOf(Resources.TrafficSplit),
        kind: Resources.TrafficSplit.kind,
        metadata: generatedMeta(ctx.rollout, ref.name, ref.namespace),
        spec: splitSpec(ctx, rootService(ctx), state.canaryWeight),
      };
      return [body];
    },
  };
}

/** Argo's layout: the canary first, then the stable with the rest of maxTrafficWeight. */
function splitSpec(
  ctx: RouterContext,
  service: string,
  canaryWeight: number,
): { service: string; backends: Backend[] } {
  return {
    service,
    backends: [
      { service: ctx.canaryService, weight: canaryWeight },
      { service: ctx.stableService, weight: ctx.maxWeight - canaryWeight },
    ],
  };
}

/** The two fields we write, in our key order, so a backend compares by value. */
const backendOf = (b: Backend): Backend => ({ service: b.service, weight: b.weight });
