/**
 * The traffic routers, one line each in `ROUTERS`, and everything derived from that list: the
 * routers a Rollout's `trafficRouting` names (Gateway API also when written as Argo's
 * `plugins["argoproj-labs/gatewayAPI"]`), the objects they read, the rules their specs must meet
 * and the kinds the controller watches (and the RBAC grants). A new router is its module (a
 * RouterModule), its schema fragment in src/api/traffic.ts `ROUTER_SCHEMAS`, a line here and
 * its kinds in deploy/rbac (test/unit/rbac.test.ts fails until they are there). Pure.
 */
import type { CanaryStrategy, Rollout } from '../api/index.ts';
import { namedRouters } from '../api/traffic-validate.ts';
import type { KindAccess } from '../kube/resources.ts';
import { gatewayApi } from './gatewayapi.ts';
import { istio } from './istio.ts';
import { nginx } from './nginx.ts';
import { smi } from './smi.ts';
import { refKey } from './router.ts';
import type { RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

export { combine, refKey } from './router.ts';
export type { RouterContext, RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

/** In the order their routers are read and applied, and their problems reported. */
export const ROUTERS: readonly RouterModule[] = [gatewayApi, istio, nginx, smi];

export function routersFor(canary: CanaryStrategy | undefined): TrafficRouter[] {
  const routing = canary?.trafficRouting;
  if (routing === undefined) return [];
  return ROUTERS.flatMap((r) => r.fromSpec(routing) ?? []);
}

/** Every object a Rollout's routing reads, as index keys (to wake it when one changes). */
export function trafficRefKeys(rollout: Rollout): string[] {
  return routersFor(rollout.spec?.strategy?.canary).flatMap((r) =>
    r.refs(rollout).map((ref: TrafficObjectRef) => refKey(ref)),
  );
}

/** Every kind a router reads or writes, with its verbs, in ROUTERS order. */
export function routerKinds(): readonly KindAccess[] {
  return ROUTERS.flatMap((r) => r.kinds);
}

/**
 * The routers' own rules on a spec whose schema holds (src/api/traffic-validate.ts has those
 * that hold for every router): each named router's, then the header and mirror route steps,
 * which only some routers carry and must be listed in managedRoutes.
 */
export function routingProblems(canary: CanaryStrategy | undefined): string[] {
  const routing = canary?.trafficRouting;
  if (canary === undefined || routing === undefined) return [];
  const named = namedRouters(routing);
  const used = ROUTERS.filter((r) => named.includes(r.key));
  const problems = used.flatMap((r) => r.validate(canary, routing));
  const carriers = ROUTERS.filter((r) => r.managedRoutes).map((r) => r.key);
  const carried = used.some((r) => r.managedRoutes);
  const managed = new Set((routing.managedRoutes ?? []).map((r) => r.name));
  (canary.steps ?? []).forEach((step, i) => {
    for (const kind of ['setHeaderRoute', 'setMirrorRoute'] as const) {
      const route = step[kind];
      if (route === undefined) continue;
      const at = `spec.strategy.canary.steps[${i}].${kind}`;
      if (!carried) {
        problems.push(`${at}: needs the ${carriers.join(' or ')} router`);
      } else if (!managed.has(route.name)) {
        problems.push(`${at}.name: "${route.name}" must be listed in trafficRouting.managedRoutes`);
      }
    }
  });
  return problems;
}
