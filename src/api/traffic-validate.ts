/**
 * What makes a Rollout's traffic routing impossible to act on, found from its spec alone, as far
 * as it holds for every router: steps and fields that need a router, plugins we do not serve,
 * the Services a router weighs. Each router's own rules (and the steps only some routers carry)
 * are its module's, in src/traffic (`routingProblems`), and the objects it names are checked by
 * the router that reads them. Each problem names the field and says what must hold (Argo's
 * rules, where it has one).
 */
import { ARGO_GATEWAY_API_PLUGIN, ROUTER_KEYS } from './traffic.ts';
import type { RouterKey, TrafficRouting } from './traffic.ts';
import type { CanaryStrategy } from './rollout.ts';

const AT = 'spec.strategy.canary';

/** The routers a routing names, in ROUTER_KEYS order; Argo's Gateway API plugin key names ours. */
export function namedRouters(routing: TrafficRouting): RouterKey[] {
  const plugins = Object.keys(routing.plugins ?? {});
  return ROUTER_KEYS.filter(
    (key) =>
      routing[key] !== undefined ||
      (key === 'gatewayAPI' && plugins.includes(ARGO_GATEWAY_API_PLUGIN)),
  );
}

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
  if (namedRouters(routing).length === 0) {
    problems.push(`${at}: must name a router (${ROUTER_KEYS.join(', ')})`);
  }
  if (routing.gatewayAPI !== undefined && plugins.includes(ARGO_GATEWAY_API_PLUGIN)) {
    problems.push(
      `${at}: gatewayAPI and plugins["${ARGO_GATEWAY_API_PLUGIN}"] must not both be set`,
    );
  }
  if (canary.canaryService === undefined || canary.stableService === undefined) {
    problems.push(`${at}: requires canaryService and stableService`);
  }
  return problems;
}
