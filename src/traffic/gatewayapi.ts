/**
 * The Gateway API router, built in: weights on the stable and canary backendRefs of an
 * HTTPRoute's rules (every rule that refers to both Services), plus the managed header and
 * mirror routes of setHeaderRoute / setMirrorRoute as rules of their own, named
 * `stepwise-<route>`. `spec.rules` is an atomic list (Gateway API's CRD), so every apply carries
 * the whole list: the user's rules as the server returned them (defaults filled in, so an
 * unchanged rule compares equal) with only our weights changed, and ours after them.
 */
import { MANAGED_ROUTES_ANNOTATION } from '../api/index.ts';
import type {
  GatewayApiRouting,
  HeaderRoute,
  MirrorRoute,
  Rollout,
  StringMatch,
  TrafficObservation,
  TrafficState,
} from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import { Resources, watched } from '../kube/resources.ts';
import { gatewayApiProblems, gatewayApiRouting } from './gatewayapi-spec.ts';
import { claimedByOther, describe, marked, userObjectMeta } from './objects.ts';
import { refKey } from './router.ts';
import type { RouterContext, RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

interface BackendRef {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly port?: number;
  readonly weight?: number;
  readonly [field: string]: unknown;
}
interface HeaderMatch {
  readonly type?: string;
  readonly name: string;
  readonly value: string;
}
interface RouteMatch {
  readonly path?: { readonly type?: string; readonly value?: string };
  readonly headers?: readonly HeaderMatch[];
  readonly method?: string;
  readonly [field: string]: unknown;
}
interface Filter {
  readonly type: string;
  readonly requestMirror?: { readonly backendRef: BackendRef; readonly percent?: number };
  readonly [field: string]: unknown;
}
interface Rule {
  readonly name?: string;
  readonly matches?: readonly RouteMatch[];
  readonly filters?: readonly Filter[];
  readonly backendRefs?: readonly BackendRef[];
  readonly [field: string]: unknown;
}
interface HttpRoute extends KubeObject {
  readonly spec?: { readonly rules?: readonly Rule[]; readonly [field: string]: unknown };
}

export const MANAGED_RULE_PREFIX = 'stepwise-';

interface RouteRef {
  readonly name: string;
  readonly useHeaderRoutes: boolean;
}

function routesOf(routing: GatewayApiRouting): RouteRef[] {
  if (routing.httpRoutes !== undefined) {
    return routing.httpRoutes.map((r) => ({
      name: r.name,
      useHeaderRoutes: r.useHeaderRoutes === true,
    }));
  }
  return routing.httpRoute === undefined
    ? []
    : [{ name: routing.httpRoute, useHeaderRoutes: true }];
}

/** The user's HTTPRoutes: read, and patched (their rules), never created. Also answers to Argo's
 *  Gateway API plugin key (gatewayapi-spec.ts). */
export const gatewayApi: RouterModule = {
  key: 'gatewayAPI',
  kinds: [watched(Resources.HTTPRoute, 'patch')],
  managedRoutes: true,
  fromSpec: (routing) => {
    const gateway = gatewayApiRouting(routing);
    return gateway === undefined ? undefined : gatewayApiRouter(gateway);
  },
  validate: gatewayApiProblems,
};

export function gatewayApiRouter(routing: GatewayApiRouting): TrafficRouter {
  const routes = routesOf(routing);
  const refOf = (rollout: Rollout, name: string): TrafficObjectRef => ({
    type: Resources.HTTPRoute,
    namespace: routing.namespace ?? rollout.metadata.namespace ?? '',
    name,
  });
  return {
    name: 'gatewayAPI',
    refs: (rollout) => routes.map((r) => refOf(rollout, r.name)),
    observe(ctx): TrafficObservation {
      const readings = routes.map((r) => {
        const ref = refOf(ctx.rollout, r.name);
        return {
          route: r,
          ...observeRoute(ctx, ref, ctx.objects.get(refKey(ref))),
        };
      });
      const problems = readings.flatMap((x) => x.problems);
      if (problems.length > 0 || readings.some((x) => x.state === undefined)) return { problems };
      const states = readings.map((x) => x.state as TrafficState);
      const key = (s: TrafficState, headers: boolean) =>
        JSON.stringify([s.canaryWeight, s.mirrorRoutes, headers ? s.headerRoutes : []]);
      const withHeaders = readings.find((x) => x.route.useHeaderRoutes)?.state;
      const [first] = states;
      const agree = readings.every(
        (x) =>
          key(x.state as TrafficState, x.route.useHeaderRoutes) ===
          key(first as TrafficState, x.route.useHeaderRoutes),
      );
      if (!agree || first === undefined) return { problems };
      return { state: { ...first, headerRoutes: withHeaders?.headerRoutes ?? [] }, problems };
    },
    applies(ctx, state) {
      return routes.flatMap((r) => {
        const live = ctx.objects.get(refKey(refOf(ctx.rollout, r.name)));
        return live === undefined ? [] : [routeBody(ctx, r, live, state)];
      });
    },
  };
}

const isService = (ref: BackendRef): boolean =>
  (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service';
const refersTo = (ref: BackendRef, service: string): boolean =>
  isService(ref) && ref.name === service;
const isManaged = (rule: Rule): boolean => rule.name?.startsWith(MANAGED_RULE_PREFIX) === true;

/** The user's rules that carry the split: both Services among their backendRefs. */
function weightedRules(rules: readonly Rule[], ctx: RouterContext): Rule[] {
  return rules.filter(
    (rule) =>
      !isManaged(rule) &&
      rule.backendRefs?.some((b) => refersTo(b, ctx.stableService)) === true &&
      rule.backendRefs.some((b) => refersTo(b, ctx.canaryService)),
  );
}

function observeRoute(
  ctx: RouterContext,
  ref: TrafficObjectRef,
  live: HttpRoute | undefined,
): { state?: TrafficState; problems: string[] } {
  const what = describe('HTTPRoute', ref.namespace, ref.name);
  if (live === undefined) return { problems: [`${what} not found`] };
  const claimed = claimedByOther(live, ctx.rollout, what);
  if (claimed !== undefined) return { problems: [claimed] };
  const rules = live.spec?.rules ?? [];
  const weighted = weightedRules(rules, ctx);
  if (weighted.length === 0) {
    return {
      problems: [
        `${what} has no rule with backendRefs to both Service "${ctx.stableService}" and Service "${ctx.canaryService}"`,
      ],
    };
  }
  // Not yet marked as ours: apply once (same weights) so the route says who manages it and a
  // second Rollout naming it is refused.
  if (!marked(live, ctx.rollout)) return { problems: [] };
  // Gateway API's default weight is 1: a route written without weights splits 50/50.
  const weights = weighted.map((rule) => ({
    canary: rule.backendRefs?.find((b) => refersTo(b, ctx.canaryService))?.weight ?? 1,
    stable: rule.backendRefs?.find((b) => refersTo(b, ctx.stableService))?.weight ?? 1,
  }));
  const [w] = weights;
  const consistent =
    w !== undefined &&
    w.canary + w.stable === ctx.maxWeight &&
    weights.every((x) => x.canary === w.canary && x.stable === w.stable);
  if (!consistent) return { problems: [] };
  // Our routes as we recorded them, each only while its rule is still in the route (a GitOps
  // sync that resets the rules removes them; we put them back).
  const recorded = readRecorded(live);
  const present = new Set(rules.filter(isManaged).map((r) => r.name));
  const kept = <T extends { name: string }>(xs: readonly T[]): T[] =>
    xs.filter((x) => present.has(`${MANAGED_RULE_PREFIX}${x.name}`));
  return {
    state: {
      canaryWeight: w.canary,
      headerRoutes: kept(recorded.headerRoutes),
      mirrorRoutes: kept(recorded.mirrorRoutes),
    },
    problems: [],
  };
}

function readRecorded(live: HttpRoute): Pick<TrafficState, 'headerRoutes' | 'mirrorRoutes'> {
  const text = live.metadata?.annotations?.[MANAGED_ROUTES_ANNOTATION];
  if (text === undefined) return { headerRoutes: [], mirrorRoutes: [] };
  try {
    const parsed = JSON.parse(text) as Partial<TrafficState>;
    return {
      headerRoutes: Array.isArray(parsed.headerRoutes) ? parsed.headerRoutes : [],
      mirrorRoutes: Array.isArray(parsed.mirrorRoutes) ? parsed.mirrorRoutes : [],
    };
  } catch {
    return { headerRoutes: [], mirrorRoutes: [] }; // edited by hand: we apply ours again
  }
}

/** The HTTPRoute as we apply it: the user's rules with our weights, then our managed rules. */
function routeBody(
  ctx: RouterContext,
  route: RouteRef,
  live: HttpRoute,
  state: TrafficState,
): HttpRoute {
  const userRules = (live.spec?.rules ?? []).filter((rule) => !isManaged(rule));
  const weighted = weightedRules(userRules, ctx);
  const withWeight = (b: BackendRef): BackendRef =>
    refersTo(b, ctx.canaryService)
      ? { ...b, weight: state.canaryWeight }
      : refersTo(b, ctx.stableService)
        ? { ...b, weight: ctx.maxWeight - state.canaryWeight }
        : b;
  const rules = userRules.map((rule) =>
    weighted.includes(rule) ? { ...rule, backendRefs: rule.backendRefs?.map(withWeight) } : rule,
  );
  const base = weighted[0];
  const headers = route.useHeaderRoutes ? state.headerRoutes : [];
  const managed = [
    ...headers.map((h) => headerRule(ctx, h, base)),
    ...state.mirrorRoutes.map((m) => mirrorRule(ctx, m, base, withWeight)),
  ];
  const meta = userObjectMeta(live, ctx.rollout);
  const record = JSON.stringify({ headerRoutes: headers, mirrorRoutes: state.mirrorRoutes });
  return {
    apiVersion: live.apiVersion ?? 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: {
      ...meta,
      annotations: { ...meta.annotations, [MANAGED_ROUTES_ANNOTATION]: record },
    },
    spec: { rules: [...rules, ...managed] },
  };
}

function canaryRef(ctx: RouterContext, base: Rule | undefined): BackendRef {
  const ref = base?.backendRefs?.find((b) => refersTo(b, ctx.canaryService));
  return { ...(ref ?? { group: '', kind: 'Service', name: ctx.canaryService }), weight: 1 };
}

/** Requests with every header go to the canary: the base rule's matches, each with the headers. */
function headerRule(ctx: RouterContext, h: HeaderRoute, base: Rule | undefined): Rule {
  const headers = h.match.map((m) => headerMatch(m.headerName, m.headerValue));
  const matches = (base?.matches?.length ? base.matches : [{}]).map((m) => ({
    ...m,
    headers: [...(m.headers ?? []), ...headers],
  }));
  return { name: `${MANAGED_RULE_PREFIX}${h.name}`, matches, backendRefs: [canaryRef(ctx, base)] };
}

/** Matching requests are served as the base rule serves them and copied to the canary. */
function mirrorRule(
  ctx: RouterContext,
  m: MirrorRoute,
  base: Rule | undefined,
  withWeight: (b: BackendRef) => BackendRef,
): Rule {
  const { weight: _weight, ...mirrorRef } = canaryRef(ctx, base);
  return {
    name: `${MANAGED_RULE_PREFIX}${m.name}`,
    matches: m.match.map((x) => ({
      ...(x.path ? { path: pathMatch(x.path) } : {}),
      ...(x.method ? { method: x.method.exact ?? '' } : {}),
      ...(x.headers
        ? { headers: Object.entries(x.headers).map(([name, v]) => headerMatch(name, v)) }
        : {}),
    })),
    filters: [
      { type: 'RequestMirror', requestMirror: { backendRef: mirrorRef, percent: m.percentage } },
    ],
    backendRefs: (base?.backendRefs ?? []).map(withWeight),
  };
}

/** Gateway API matches headers exactly or by regular expression (validation refuses prefix). */
function headerMatch(name: string, v: StringMatch): HeaderMatch {
  return v.regex !== undefined
    ? { type: 'RegularExpression', name, value: v.regex }
    : { type: 'Exact', name, value: v.exact ?? '' };
}

function pathMatch(v: StringMatch): { type: string; value: string } {
  if (v.regex !== undefined) return { type: 'RegularExpression', value: v.regex };
  if (v.prefix !== undefined) return { type: 'PathPrefix', value: v.prefix };
  return { type: 'Exact', value: v.exact ?? '' };
}
