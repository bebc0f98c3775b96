/**
 * What the Gateway API router reads from a Rollout's spec: its routing (the first-class
 * `gatewayAPI` field, or Argo's `plugins["argoproj-labs/gatewayAPI"]` read with the same keys) and
 * the rules a spec must meet for it: what Gateway API cannot express (a total weight over the
 * largest backendRef weight, prefix header matches, methods other than exact, header routes with
 * no HTTPRoute taking them).
 */
import { ARGO_GATEWAY_API_PLUGIN } from '../api/index.ts';
import type { CanaryStrategy, GatewayApiRouting, TrafficRouting } from '../api/index.ts';

const AT = 'spec.strategy.canary';
const GATEWAY_API_MAX_WEIGHT = 1_000_000;

/** The routing the router serves: ours, else Argo's plugin config; anything else is ignored. */
export function gatewayApiRouting(routing: TrafficRouting): GatewayApiRouting | undefined {
  return routing.gatewayAPI ?? pluginGatewayApi(routing.plugins);
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

export function gatewayApiProblems(canary: CanaryStrategy, routing: TrafficRouting): string[] {
  const problems: string[] = [];
  const max = routing.maxTrafficWeight;
  if (max !== undefined && max > GATEWAY_API_MAX_WEIGHT) {
    problems.push(
      `${AT}.trafficRouting.maxTrafficWeight: must not exceed ${GATEWAY_API_MAX_WEIGHT} with gatewayAPI (the largest backendRef weight), got ${max}`,
    );
  }
  return [...problems, ...stepProblems(canary, routing)];
}

/** With Istio beside it, Istio takes the header and mirror routes: nothing to check here. */
function stepProblems(canary: CanaryStrategy, routing: TrafficRouting): string[] {
  if (routing.istio !== undefined) return [];
  const problems: string[] = [];
  const routes = routing.gatewayAPI?.httpRoutes;
  const takesHeaders = routes === undefined || routes.some((r) => r.useHeaderRoutes === true);
  (canary.steps ?? []).forEach((step, i) => {
    const at = `${AT}.steps[${i}]`;
    const header = step.setHeaderRoute;
    if (header !== undefined && (header.match?.length ?? 0) > 0 && !takesHeaders) {
      problems.push(`${at}.setHeaderRoute: no httpRoutes entry has useHeaderRoutes: true`);
    }
    header?.match?.forEach((m, j) => {
      if (m.headerValue.prefix !== undefined) {
        problems.push(
          `${at}.setHeaderRoute.match[${j}].headerValue.prefix: Gateway API matches headers exactly or by regex (use regex: "^${m.headerValue.prefix}.*")`,
        );
      }
    });
    step.setMirrorRoute?.match?.forEach((m, j) => {
      if (m.method !== undefined && m.method.exact === undefined) {
        problems.push(
          `${at}.setMirrorRoute.match[${j}].method: Gateway API matches methods exactly`,
        );
      }
      for (const [name, v] of Object.entries(m.headers ?? {})) {
        if (v.prefix !== undefined) {
          problems.push(
            `${at}.setMirrorRoute.match[${j}].headers.${name}.prefix: Gateway API matches headers exactly or by regex`,
          );
        }
      }
    });
  });
  return problems;
}
