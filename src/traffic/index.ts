/**
 * The traffic routers a Rollout's `trafficRouting` names: Gateway API (also when written as
 * Argo's `plugins["argoproj-labs/gatewayAPI"]`), Istio, NGINX and SMI. Pure.
 */
import { ARGO_GATEWAY_API_PLUGIN } from '../api/index.ts';
import type { CanaryStrategy, GatewayApiRouting, Rollout } from '../api/index.ts';
import { gatewayApiRouter } from './gatewayapi.ts';
import { istioRouter } from './istio.ts';
import { nginxRouter } from './nginx.ts';
import { smiRouter } from './smi.ts';
import { refKey } from './router.ts';
import type { TrafficObjectRef, TrafficRouter } from './router.ts';

export { combine, refKey } from './router.ts';
export type { RouterContext, TrafficObjectRef, TrafficRouter } from './router.ts';

export function routersFor(canary: CanaryStrategy | undefined): TrafficRouter[] {
  const routing = canary?.trafficRouting;
  if (routing === undefined) return [];
  const routers: TrafficRouter[] = [];
  const gateway = routing.gatewayAPI ?? pluginGatewayApi(routing.plugins);
  if (gateway !== undefined) routers.push(gatewayApiRouter(gateway));
  if (routing.istio !== undefined) routers.push(istioRouter(routing.istio));
  if (routing.nginx !== undefined) routers.push(nginxRouter(routing.nginx));
  if (routing.smi !== undefined) routers.push(smiRouter(routing.smi));
  return routers;
}

/** Argo's Gateway API plugin config, read as ours (the same keys); anything else is ignored. */
function pluginGatewayApi(
  plugins: Record<string, unknown> | undefined,
): GatewayApiRouting | undefined {
  const config = plugins?.[ARGO_GATEWAY_API_PLUGIN];
  if (config === undefined || config === null || typeof config !== 'object') return undefined;
  const c = config as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const routes = Array.isArray(c['httpRoutes'])
    ? c['httpRoutes'].flatMap((r: unknown) => {
        const o = (r ?? {}) as Record<string, unknown>;
        const name = str(o['name']);
        return name === undefined ? [] : [{ name, useHeaderRoutes: o['useHeaderRoutes'] === true }];
      })
    : undefined;
  return {
    ...(str(c['httpRoute']) !== undefined ? { httpRoute: str(c['httpRoute']) } : {}),
    ...(routes !== undefined ? { httpRoutes: routes } : {}),
    ...(str(c['namespace']) !== undefined ? { namespace: str(c['namespace']) } : {}),
  };
}

/** Every object a Rollout's routing reads, as index keys (to wake it when one changes). */
export function trafficRefKeys(rollout: Rollout): string[] {
  return routersFor(rollout.spec?.strategy?.canary).flatMap((r) =>
    r.refs(rollout).map((ref: TrafficObjectRef) => refKey(ref)),
  );
}
