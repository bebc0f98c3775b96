/**
 * Handing a user's traffic object back once the Rollout that managed it is gone: the body each
 * router applies for "no canary" (the stable Service at the full weight, no managed header or
 * mirror routes, DestinationRule subsets without our hash labels), without our annotations. The
 * fields stay atomic and ours until GitOps applies them again; our mark and recorded routing
 * leave (an apply that omits an annotation we own removes it). Objects we generated (the NGINX
 * canary Ingress, the SMI TrafficSplit) are not handed back: their ownerReference lets the
 * garbage collector delete them with the Rollout. Pure.
 */
import { API_VERSION, ROLLOUT_KIND } from '../api/index.ts';
import type { ManagedRouting, Rollout, TrafficState } from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import type { ResourceType } from '../kube/resources.ts';
import { routersFor } from './index.ts';
import { refKey } from './router.ts';
import type { RouterContext } from './router.ts';

const RELEASED: TrafficState = { canaryWeight: 0, headerRoutes: [], mirrorRoutes: [] };

/** The gone Rollout as the routers need it: its name, and its routing (with its namespace). */
export interface GoneRollout {
  readonly name: string;
  readonly routing: ManagedRouting;
}

/** The apply that hands `live` (of `type`) back; undefined when no router of the routing
 *  writes it, or it is one we generated. */
export function releaseBody(
  gone: GoneRollout,
  type: ResourceType,
  live: KubeObject,
): KubeObject | undefined {
  if (generatedBy(live, gone)) return undefined;
  const rollout = asRollout(gone);
  const key = refKey({
    type,
    namespace: live.metadata?.namespace ?? '',
    name: live.metadata?.name ?? '',
  });
  const ctx: RouterContext = {
    rollout,
    canaryService: gone.routing.canaryService,
    stableService: gone.routing.stableService,
    maxWeight: gone.routing.trafficRouting.maxTrafficWeight ?? 100,
    // No hash: subsets select by the user's labels alone, as before the Rollout.
    canaryHash: '',
    stableHash: '',
    objects: new Map([[key, live]]),
  };
  for (const router of routersFor(rollout.spec.strategy.canary)) {
    if (!router.refs(rollout).some((ref) => refKey(ref) === key)) continue;
    const body = router
      .applies(ctx, RELEASED)
      .find((b) => b.kind === live.kind && b.metadata?.name === live.metadata?.name);
    if (body === undefined) return undefined;
    const { name, namespace } = body.metadata ?? {};
    return { ...body, metadata: { name, namespace } };
  }
  return undefined;
}

/** Whether a Rollout of that name controls it: only the garbage collector removes those. */
function generatedBy(live: KubeObject, gone: GoneRollout): boolean {
  return (live.metadata?.ownerReferences ?? []).some(
    (o) => o.kind === ROLLOUT_KIND && o.name === gone.name && o.controller === true,
  );
}

/** Enough of a Rollout for the routers: they read its name, namespace and canary routing. */
function asRollout(gone: GoneRollout): Rollout {
  return {
    apiVersion: API_VERSION,
    kind: ROLLOUT_KIND,
    metadata: { name: gone.name, namespace: gone.routing.namespace },
    spec: {
      selector: {},
      template: {},
      strategy: {
        canary: {
          canaryService: gone.routing.canaryService,
          stableService: gone.routing.stableService,
          trafficRouting: gone.routing.trafficRouting,
        },
      },
    },
  };
}
