/**
 * PURE: the parts of Argo Rollouts' API Stepwise has no counterpart for, found in a manifest
 * by where they sit, each named with what it is. The schema check names any other field it does
 * not know; these get a sentence of their own because users will meet them most.
 */

export interface Unconvertible {
  /** `spec.strategy.canary.steps[2].experiment` */
  readonly path: string;
  readonly what: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const at = (o: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);

const STEP_FEATURES: Readonly<Record<string, string>> = {
  experiment: 'Experiment step (Argo Experiments)',
  plugin: 'step plugin (a Go plugin)',
};

const ROUTER_FEATURES: Readonly<Record<string, string>> = {
  plugins:
    'traffic router plugins (Go plugins; Gateway API is built in: trafficRouting.gatewayAPI)',
  alb: 'AWS ALB traffic router',
  ambassador: 'Ambassador traffic router',
  appMesh: 'AWS App Mesh traffic router',
  traefik: 'Traefik traffic router',
  apisix: 'APISIX traffic router',
};

/** Argo features in a Rollout's spec that Stepwise lacks, by path. */
export function unconvertibleInRollout(spec: unknown): Unconvertible[] {
  const found: Unconvertible[] = [];
  const steps = at(spec, 'strategy', 'canary', 'steps');
  if (Array.isArray(steps)) {
    steps.forEach((step, i) => {
      for (const [key, what] of Object.entries(STEP_FEATURES)) {
        if (isObj(step) && key in step) {
          found.push({ path: `spec.strategy.canary.steps[${i}].${key}`, what });
        }
      }
    });
  }
  const routing = at(spec, 'strategy', 'canary', 'trafficRouting');
  for (const [key, what] of Object.entries(ROUTER_FEATURES)) {
    if (isObj(routing) && key in routing) {
      found.push({ path: `spec.strategy.canary.trafficRouting.${key}`, what });
    }
  }
  if (at(spec, 'strategy', 'canary', 'pingPong') !== undefined) {
    found.push({ path: 'spec.strategy.canary.pingPong', what: 'ping-pong canary (ALB only)' });
  }
  return found;
}

/** The same spec without those parts, so the schema check names only what is left. */
export function withoutUnconvertible(spec: unknown): unknown {
  const copy = structuredClone(spec);
  const canary = at(copy, 'strategy', 'canary');
  if (!isObj(canary)) return copy;
  if (Array.isArray(canary.steps)) {
    canary.steps = canary.steps.filter(
      (s) => !(isObj(s) && Object.keys(STEP_FEATURES).some((k) => k in s)),
    );
  }
  if (isObj(canary.trafficRouting)) {
    for (const key of Object.keys(ROUTER_FEATURES)) delete canary.trafficRouting[key];
  }
  delete canary.pingPong;
  return copy;
}
