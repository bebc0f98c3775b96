/**
 * The Istio router, as Argo's: weights on the canary and stable destinations of a VirtualService's
 * named HTTP routes (and of the TLS/TCP routes the Rollout names), between the two Services
 * (host-level) or between two subsets of one host (subset-level), whose DestinationRule subsets
 * we pin to the pod-template hashes. Header and mirror routes are HTTP routes of their own, named
 * after the managed route and placed first in managedRoutes order (precedence over the user's).
 * `spec.http`, `spec.tls`, `spec.tcp` and the DestinationRule's `spec.subsets` are atomic lists,
 * so a body carries the whole list: the user's entries as the server returned them, with only
 * our weights, labels and managed routes changed.
 */

import type {
  HeaderRoute,
  IstioRouting,
  MirrorRoute,
  Rollout,
  StringMatch,
  TrafficObservation,
  TrafficState,
} from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import { apiVersionOf, Resources, watched } from '../kube/resources.ts';
import { claimedByOther, describe, marked, sameJson, userObjectMeta } from './objects.ts';
import { drBody, readDestinationRule } from './istio-subsets.ts';
import type { DestinationRule, DrConfig } from './istio-subsets.ts';
import { refKey } from './router.ts';
import type { RouterContext, RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

type Fields = Readonly<Record<string, unknown>>;
interface Destination {
  readonly host?: string;
  readonly subset?: string;
  readonly [field: string]: unknown;
}
interface Weighted {
  readonly destination?: Destination;
  readonly weight?: number;
  readonly [field: string]: unknown;
}
interface Route {
  readonly name?: string;
  readonly match?: readonly Fields[];
  readonly route?: readonly Weighted[];
  readonly mirror?: Destination;
  readonly mirrorPercentage?: { readonly value?: number };
  readonly [field: string]: unknown;
}
type ListKey = 'http' | 'tls' | 'tcp';
interface VirtualService extends KubeObject {
  readonly spec?: { readonly [K in ListKey]?: readonly Route[] } & Fields;
}
type VsConfig = NonNullable<IstioRouting['virtualService']>;

/** A route whose destinations we weigh: its list, index and how messages name it. */
interface Target {
  readonly list: ListKey;
  readonly index: number;
  readonly label: string;
}
/** One VirtualService as the Rollout sees it: the user's HTTP routes (managed ones left out),
 *  the routes to weigh, and why some cannot be found. */
interface View {
  readonly vs: VirtualService;
  readonly names: readonly string[];
  readonly http: readonly Route[];
  readonly targets: readonly Target[];
  readonly problems: readonly string[];
}
/** Which destinations are ours, for the host-level or the subset-level split. */
interface Split {
  role(w: Weighted): 'canary' | 'stable' | undefined;
  /** Weight the stable leaves to additionalSubsetNames destinations (Argo). */
  reserved(route: Route): number;
  readonly canaryName: string;
  readonly stableName: string;
}

const AT = 'spec.strategy.canary.trafficRouting';

/** The user's VirtualServices and DestinationRule: read, and patched, never created. */
export const istio: RouterModule = {
  key: 'istio',
  kinds: [watched(Resources.VirtualService, 'patch'), watched(Resources.DestinationRule, 'patch')],
  managedRoutes: true,
  fromSpec: (routing) => (routing.istio === undefined ? undefined : istioRouter(routing.istio)),
  validate(_canary, routing) {
    const problems: string[] = [];
    if (routing.istio && !routing.istio.virtualService && !routing.istio.virtualServices) {
      problems.push(`${AT}.istio: must set virtualService or virtualServices`);
    }
    // Istio's route weights must add up to 100.
    const max = routing.maxTrafficWeight;
    if (max !== undefined && max !== 100) {
      problems.push(
        `${AT}.maxTrafficWeight: must be 100 with istio (Istio route weights add up to 100), got ${max}`,
      );
    }
    return problems;
  },
};

export function istioRouter(routing: IstioRouting): TrafficRouter {
  const configs =
    routing.virtualServices ?? (routing.virtualService ? [routing.virtualService] : []);
  const dr = routing.destinationRule;
  const ref = (rollout: Rollout, type: TrafficObjectRef['type'], name: string) => ({
    type,
    namespace: rollout.metadata.namespace ?? '',
    name,
  });
  const refs = (rollout: Rollout) => [
    ...configs.map((c) => ref(rollout, Resources.VirtualService, c.name)),
    ...(dr === undefined ? [] : [ref(rollout, Resources.DestinationRule, dr.name)]),
  ];
  const views = (ctx: RouterContext) =>
    configs.map((cfg) => {
      const r = ref(ctx.rollout, Resources.VirtualService, cfg.name);
      const vs: VirtualService | undefined = ctx.objects.get(refKey(r));
      return { r, cfg, view: vs === undefined ? undefined : viewOf(ctx, cfg, vs) };
    });
  const ruleOf = (ctx: RouterContext) => {
    if (dr === undefined) return undefined;
    const r = ref(ctx.rollout, Resources.DestinationRule, dr.name);
    const rule: DestinationRule | undefined = ctx.objects.get(refKey(r));
    return { r, dr, rule };
  };
  return {
    name: 'istio',
    refs,
    observe(ctx): TrafficObservation {
      const split = splitOf(ctx, dr);
      const readings = views(ctx).map(({ r, view }) => readVirtualService(ctx, split, r, view));
      const d = ruleOf(ctx);
      const rule = d && readDestinationRule(ctx, d.dr, d.r, d.rule);
      const problems = [...readings.flatMap((x) => x.problems), ...(rule?.problems ?? [])];
      const [first] = readings.map((x) => x.state);
      const agree = readings.every((x) => x.state !== undefined && sameJson(x.state, first));
      if (problems.length > 0 || !agree || rule?.current === false) return { problems };
      return { state: first, problems };
    },
    applies(ctx, state) {
      const split = splitOf(ctx, dr);
      // The subsets first, as Argo (UpdateHash before SetWeight): at the stable switch the
      // stable subset selects the new pods before the weight goes back to it.
      const d = ruleOf(ctx);
      const bodies: KubeObject[] = d?.rule === undefined ? [] : [drBody(ctx, d.dr, d.rule)];
      for (const { view } of views(ctx)) if (view) bodies.push(vsBody(ctx, split, view, state));
      return bodies;
    },
  };
}

function splitOf(ctx: RouterContext, dr: DrConfig | undefined): Split {
  const roleBy =
    (key: (w: Weighted) => string | undefined, canary: string, stable: string) => (w: Weighted) =>
      key(w) === canary ? 'canary' : key(w) === stable ? 'stable' : undefined;
  if (dr !== undefined) {
    const extra = dr.additionalSubsetNames ?? [];
    return {
      role: roleBy((w) => w.destination?.subset, dr.canarySubsetName, dr.stableSubsetName),
      reserved: (route) =>
        (route.route ?? [])
          .filter((w) => extra.includes(w.destination?.subset ?? ''))
          .reduce((sum, w) => sum + (w.weight ?? 0), 0),
      canaryName: `subset "${dr.canarySubsetName}"`,
      stableName: `subset "${dr.stableSubsetName}"`,
    };
  }
  // A host is the short name or an FQDN (`web.ns.svc.cluster.local`): Argo matches its first label.
  const service = (w: Weighted) => (w.destination?.host ?? '').split('.')[0];
  return {
    role: roleBy(service, ctx.canaryService, ctx.stableService),
    reserved: () => 0,
    canaryName: `Service "${ctx.canaryService}"`,
    stableName: `Service "${ctx.stableService}"`,
  };
}

const managedNames = (rollout: Rollout): string[] =>
  (rollout.spec.strategy.canary?.trafficRouting?.managedRoutes ?? []).map((r) => r.name);
const isManaged = (names: readonly string[]) => (r: Route) =>
  r.name !== undefined && names.includes(r.name);

function viewOf(ctx: RouterContext, cfg: VsConfig, vs: VirtualService): View {
  const names = managedNames(ctx.rollout);
  const problems: string[] = [];
  const targets: Target[] = [];
  const http = (vs.spec?.http ?? []).filter((r) => !isManaged(names)(r));
  const l4Only = (cfg.tlsRoutes?.length ?? 0) + (cfg.tcpRoutes?.length ?? 0) > 0;
  if (cfg.routes !== undefined && cfg.routes.length > 0) {
    for (const name of cfg.routes) {
      const index = http.findIndex((r) => r.name === name);
      if (index < 0) problems.push(`has no HTTP route named "${name}"`);
      else targets.push({ list: 'http', index, label: `route "${name}"` });
    }
  } else if (http.length === 1) {
    targets.push({ list: 'http', index: 0, label: 'HTTP route 0' });
  } else if (http.length > 1) {
    problems.push(`has ${http.length} HTTP routes: name the ones to weigh in routes`);
  } else if (!l4Only) {
    problems.push('has no HTTP route');
  }
  const l4 = (list: 'tls' | 'tcp', port = 0, sni?: readonly string[]) => {
    const label = list.toUpperCase();
    const found = (vs.spec?.[list] ?? []).flatMap((r, index) =>
      l4Matches(r, port, sni) ? [{ list, index, label: `${label} route ${index}` }] : [],
    );
    const sniText = sni === undefined ? '' : ` and sniHosts [${sni.join(', ')}]`;
    if (found.length === 0) problems.push(`has no ${label} route for port ${port}${sniText}`);
    targets.push(...found);
  };
  for (const t of cfg.tlsRoutes ?? []) l4('tls', t.port, t.sniHosts ?? []);
  for (const t of cfg.tcpRoutes ?? []) l4('tcp', t.port);
  return { vs, names, http, targets, problems };
}

/** Argo's TLS/TCP route search: one port across the route's matches, the same SNI host set. */
function l4Matches(route: Route, port: number, sni: readonly string[] | undefined): boolean {
  const matches = route.match ?? [];
  const ports = new Set(matches.map((m) => (typeof m.port === 'number' ? m.port : 0)));
  if (ports.size > 1 || (ports.values().next().value ?? 0) !== port) return false;
  if (sni === undefined) return true;
  const hosts = new Set(
    matches.flatMap((m) => (Array.isArray(m.sniHosts) ? (m.sniHosts as string[]) : [])),
  );
  return hosts.size === new Set(sni).size && sni.every((h) => hosts.has(h));
}

const routeAt = (v: View, t: Target): Route =>
  (t.list === 'http' ? v.http[t.index] : v.vs.spec?.[t.list]?.[t.index]) ?? {};

function readVirtualService(
  ctx: RouterContext,
  split: Split,
  r: TrafficObjectRef,
  view: View | undefined,
): { state?: TrafficState; problems: string[] } {
  const what = describe('VirtualService', r.namespace, r.name);
  if (view === undefined) return { problems: [`${what} not found`] };
  const claimed = claimedByOther(view.vs, ctx.rollout, what);
  if (claimed !== undefined) return { problems: [claimed] };
  const problems = view.problems.map((p) => `${what} ${p}`);
  for (const t of view.targets) {
    const dests = routeAt(view, t).route ?? [];
    if (!dests.some((w) => split.role(w) === 'canary')) {
      problems.push(`${what} ${t.label} has no destination for ${split.canaryName}`);
    }
    if (!dests.some((w) => split.role(w) === 'stable')) {
      problems.push(`${what} ${t.label} has no destination for ${split.stableName}`);
    }
  }
  const steps = ctx.rollout.spec.strategy.canary?.steps ?? [];
  const routed = steps.some(
    (s) => s.setHeaderRoute !== undefined || s.setMirrorRoute !== undefined,
  );
  if (routed && !view.targets.some((t) => t.list === 'http')) {
    problems.push(`${what} has no weighted HTTP route to carry header and mirror routes`);
  }
  if (problems.length > 0) return { problems };
  if (!marked(view.vs, ctx.rollout)) return { problems: [] }; // apply once so a second Rollout is refused
  const weights = view.targets.map((t) => weightOf(ctx, split, routeAt(view, t)));
  const [canaryWeight] = weights;
  if (canaryWeight === undefined || weights.some((w) => w !== canaryWeight)) {
    return { problems: [] };
  }
  const routes = readManagedRoutes(ctx, split, view, canaryWeight);
  return { ...(routes && { state: { canaryWeight, ...routes } }), problems: [] };
}

/** The canary's weight when every canary and stable destination carries the split we write. */
function weightOf(ctx: RouterContext, split: Split, route: Route): number | undefined {
  const canary = route.route?.find((w) => split.role(w) === 'canary')?.weight ?? 0;
  return sameJson(weigh(ctx, split, route, canary), route) ? canary : undefined;
}

function weigh(ctx: RouterContext, split: Split, route: Route, canary: number): Route {
  const stable = Math.max(0, ctx.maxWeight - canary - split.reserved(route));
  const weightFor = (w: Weighted) => {
    const role = split.role(w);
    return role === undefined ? w : { ...w, weight: role === 'canary' ? canary : stable };
  };
  return route.route === undefined ? route : { ...route, route: route.route.map(weightFor) };
}

/**
 * The managed routes the VirtualService carries, or undefined when they are not exactly what we
 * would write (out of managedRoutes order, behind a user's route, edited, weights behind): the
 * planner then writes them again.
 */
function readManagedRoutes(
  ctx: RouterContext,
  split: Split,
  view: View,
  canaryWeight: number,
): Pick<TrafficState, 'headerRoutes' | 'mirrorRoutes'> | undefined {
  const all = view.vs.spec?.http ?? [];
  const managed = all.filter(isManaged(view.names));
  const rank = (r: Route | undefined) => view.names.indexOf(r?.name ?? '');
  if (!managed.every((r, i) => all[i] === r && (i === 0 || rank(r) > rank(managed[i - 1])))) {
    return undefined;
  }
  const headerRoutes: HeaderRoute[] = [];
  const mirrorRoutes: MirrorRoute[] = [];
  for (const entry of managed) {
    const name = entry.name ?? '';
    const match = entry.match ?? [];
    if (entry.mirror !== undefined) {
      const percentage = entry.mirrorPercentage?.value;
      if (typeof percentage !== 'number') return undefined;
      mirrorRoutes.push({ name, match: match.map(fromIstioMatch), percentage });
    } else {
      const headers = match.flatMap((m) => Object.entries((m.headers ?? {}) as Fields));
      headerRoutes.push({
        name,
        match: headers.map(([headerName, v]) => ({ headerName, headerValue: v as StringMatch })),
      });
    }
  }
  const rebuilt = managedRoutes(ctx, split, view, { canaryWeight, headerRoutes, mirrorRoutes });
  return sameJson(rebuilt, managed) ? { headerRoutes, mirrorRoutes } : undefined;
}

/** The managed HTTP routes of a state, in managedRoutes order. As Argo: a header route sends
 *  its matches to the canary destination of the first weighted HTTP route; a mirror route
 *  serves as that route does (same destinations, same weights) and mirrors to its canary. */
function managedRoutes(ctx: RouterContext, split: Split, view: View, state: TrafficState): Route[] {
  const first = view.targets.find((t) => t.list === 'http');
  const base =
    first === undefined ? {} : weigh(ctx, split, routeAt(view, first), state.canaryWeight);
  const canary = base.route?.find((w) => split.role(w) === 'canary')?.destination ?? {
    host: ctx.canaryService,
  };
  const headers = state.headerRoutes.map((h): Route => ({
    name: h.name,
    match: h.match.map((m) => ({ headers: { [m.headerName]: m.headerValue } })),
    route: [{ destination: canary, weight: 100 }],
  }));
  const mirrors = state.mirrorRoutes.map((m): Route => ({
    name: m.name,
    match: m.match.map(toIstioMatch),
    route: base.route ?? [],
    mirror: canary,
    mirrorPercentage: { value: m.percentage },
  }));
  const rank = (r: Route) => view.names.indexOf(r.name ?? '');
  return [...headers, ...mirrors].sort((a, b) => rank(a) - rank(b));
}

type MirrorMatch = MirrorRoute['match'][number];
/** Istio calls the path `uri`. */
function toIstioMatch(m: MirrorMatch): Fields {
  const { path, ...rest } = m;
  return path === undefined ? rest : { ...rest, uri: path };
}
function fromIstioMatch(m: Fields): MirrorMatch {
  const { uri, ...rest } = m as MirrorMatch & { readonly uri?: MirrorMatch['path'] };
  return uri === undefined ? rest : { ...rest, path: uri };
}

function vsBody(ctx: RouterContext, split: Split, view: View, state: TrafficState): VirtualService {
  const { vs, targets } = view;
  const weighed = (list: ListKey, routes: readonly Route[]) =>
    routes.map((route, index) =>
      targets.some((t) => t.list === list && t.index === index)
        ? weigh(ctx, split, route, state.canaryWeight)
        : route,
    );
  const managed = managedRoutes(ctx, split, view, state);
  const hadManaged = (vs.spec?.http ?? []).some(isManaged(view.names));
  const spec: Record<string, unknown> = {};
  // Only the lists we change: sending another would take it from its owner for nothing.
  if (targets.some((t) => t.list === 'http') || managed.length > 0 || hadManaged) {
    spec.http = [...managed, ...weighed('http', view.http)];
  }
  for (const list of ['tls', 'tcp'] as const) {
    if (targets.some((t) => t.list === list)) spec[list] = weighed(list, vs.spec?.[list] ?? []);
  }
  return {
    apiVersion: vs.apiVersion ?? apiVersionOf(Resources.VirtualService),
    kind: Resources.VirtualService.kind,
    metadata: userObjectMeta(vs, ctx.rollout),
    spec,
  };
}
