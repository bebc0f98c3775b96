/**
 * What makes a Rollout's traffic routing impossible to act on, found from its spec alone (the
 * objects it names are checked by the router that reads them). Each problem names the field
 * and says what must hold (Argo's rules, where it has one).
 */
import { ARGO_GATEWAY_API_PLUGIN } from './traffic.ts';
import type { CanaryStrategy } from './rollout.ts';

const AT = 'spec.strategy.canary';
const GATEWAY_API_MAX_WEIGHT = 1_000_000;

/** Routers that can carry setHeaderRoute / setMirrorRoute (Argo: Istio and the plugins). */
const ROUTE_CAPABLE = ['gatewayAPI', 'istio'] as const;

export function trafficProblems(canary: CanaryStrategy): string[] {
  const routing = canary.trafficRouting;
  const steps = canary.steps ?? [];
  const problems: string[] = [];
  if (routing === undefined) {
    if (canary.dynamicStableScale === true) {
      problems.push(`${AT}.dynamicStableScale: requires trafficRouting`);
    }
    steps.forEach((step, i) => {
      for (const kind of ['setHeaderRoute', 'setMirrorRoute'] as const) {
        if (step[kind] !== undefined) {
          problems.push(`${AT}.steps[${i}].${kind}: requires trafficRouting`);
        }
      }
    });
    return problems;
  }
  const at = `${AT}.trafficRouting`;
  const plugins = Object.keys(routing.plugins ?? {});
  for (const name of plugins) {
    if (name !== ARGO_GATEWAY_API_PLUGIN) {
      problems.push(
        `${at}.plugins["${name}"]: not supported (Stepwise serves "${ARGO_GATEWAY_API_PLUGIN}" built in)`,
      );
    }
  }
  const gateway = routing.gatewayAPI !== undefined || plugins.includes(ARGO_GATEWAY_API_PLUGIN);
  const used = [
    gateway ? 'gatewayAPI' : undefined,
    routing.istio ? 'istio' : undefined,
    routing.nginx ? 'nginx' : undefined,
    routing.smi ? 'smi' : undefined,
  ].filter((r) => r !== undefined);
  if (used.length === 0) problems.push(`${at}: must name a router (gatewayAPI, istio, nginx, smi)`);
  if (routing.gatewayAPI !== undefined && plugins.includes(ARGO_GATEWAY_API_PLUGIN)) {
    problems.push(
      `${at}: gatewayAPI and plugins["${ARGO_GATEWAY_API_PLUGIN}"] must not both be set`,
    );
  }
  if (canary.canaryService === undefined || canary.stableService === undefined) {
    problems.push(`${at}: requires canaryService and stableService`);
  }
  if (routing.nginx && !routing.nginx.stableIngress && !routing.nginx.stableIngresses) {
    problems.push(`${at}.nginx: must set stableIngress or stableIngresses`);
  }
  const istio = routing.istio;
  if (istio && !istio.virtualService && !istio.virtualServices) {
    problems.push(`${at}.istio: must set virtualService or virtualServices`);
  }
  // Weights the routers cannot express: Istio's route weights must add up to 100; a Gateway API
  // backendRef weight is at most 1,000,000.
  const max = routing.maxTrafficWeight;
  if (max !== undefined && istio !== undefined && max !== 100) {
    problems.push(
      `${at}.maxTrafficWeight: must be 100 with istio (Istio route weights add up to 100), got ${max}`,
    );
  }
  if (max !== undefined && gateway && max > GATEWAY_API_MAX_WEIGHT) {
    problems.push(
      `${at}.maxTrafficWeight: must not exceed ${GATEWAY_API_MAX_WEIGHT} with gatewayAPI (the largest backendRef weight), got ${max}`,
    );
  }
  const managed = new Set((routing.managedRoutes ?? []).map((r) => r.name));
  const routeCapable = used.some((r) => (ROUTE_CAPABLE as readonly string[]).includes(r));
  problems.push(...gatewayApiStepProblems(canary, gateway));
  steps.forEach((step, i) => {
    for (const kind of ['setHeaderRoute', 'setMirrorRoute'] as const) {
      const route = step[kind];
      if (route === undefined) continue;
      if (!routeCapable) {
        problems.push(`${AT}.steps[${i}].${kind}: needs the gatewayAPI or istio router`);
      } else if (!managed.has(route.name)) {
        problems.push(
          `${AT}.steps[${i}].${kind}.name: "${route.name}" must be listed in trafficRouting.managedRoutes`,
        );
      }
    }
  });
  return problems;
}

/** What Gateway API cannot express: prefix header matches, methods other than exact, header
 *  routes with no HTTPRoute taking them. */
function gatewayApiStepProblems(canary: CanaryStrategy, gateway: boolean): string[] {
  const routing = canary.trafficRouting;
  if (!gateway || routing === undefined || routing.istio !== undefined) return [];
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
