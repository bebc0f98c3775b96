/**
 * Traffic routing in the Rollout API (`spec.strategy.canary.trafficRouting` and the
 * `setHeaderRoute` / `setMirrorRoute` steps), Argo Rollouts' fields for Istio, NGINX and SMI,
 * plus our built-in Gateway API router with the keys of Argo's Gateway API plugin. Also the
 * traffic state the planner decides and the routers observe, shared by src/rollout and
 * src/traffic.
 */
import Type, { type Static, type TOptional, type TSchema } from 'typebox';
import { Described, Opaque, StringMap, Strict } from './schema.ts';

const Name = Type.String({ minLength: 1 });
const named = (description: string) => Described(Name, description);

const GatewayHttpRouteSchema = Strict(
  {
    name: named("The HTTPRoute's name."),
    useHeaderRoutes: Type.Optional(
      Type.Boolean({ description: 'Header routes of setHeaderRoute steps go into this route.' }),
    ),
  },
  { description: 'An HTTPRoute whose stable and canary backendRefs get the weights.' },
);

/** Gateway API HTTPRoute(s): weights on their rules' stable and canary backendRefs. */
export const GatewayApiRoutingSchema = Strict(
  {
    httpRoute: Type.Optional(
      named('The HTTPRoute whose stable and canary backendRefs get the weights.'),
    ),
    httpRoutes: Type.Optional(
      Type.Array(GatewayHttpRouteSchema, {
        minItems: 1,
        description: 'Several HTTPRoutes, instead of httpRoute.',
      }),
    ),
    namespace: Type.Optional(
      Type.String({ description: "The routes' namespace; default the Rollout's." }),
    ),
  },
  {
    description:
      "Gateway API: weights on the backendRefs of HTTPRoutes (the keys of Argo's Gateway API plugin).",
  },
);

const IstioVirtualServiceSchema = Strict(
  {
    name: named("The VirtualService's name, in the Rollout's namespace."),
    routes: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Named HTTP routes to set weights on; may be omitted when there is only one.',
      }),
    ),
    tlsRoutes: Type.Optional(
      Type.Array(
        Strict(
          {
            port: Type.Optional(
              Type.Integer({ format: 'int64', description: 'The port the route matches.' }),
            ),
            sniHosts: Type.Optional(
              Type.Array(Type.String(), { description: 'The SNI hosts the route matches.' }),
            ),
          },
          { description: 'A TLS route, found by its port and SNI hosts.' },
        ),
        { description: 'TLS routes to set weights on.' },
      ),
    ),
    tcpRoutes: Type.Optional(
      Type.Array(
        Strict(
          {
            port: Type.Optional(
              Type.Integer({ format: 'int64', description: 'The port the route matches.' }),
            ),
          },
          { description: 'A TCP route, found by its port.' },
        ),
        { description: 'TCP routes to set weights on.' },
      ),
    ),
  },
  { description: 'An Istio VirtualService whose routes get the weights.' },
);

export const IstioRoutingSchema = Strict(
  {
    virtualService: Type.Optional(IstioVirtualServiceSchema),
    virtualServices: Type.Optional(
      Type.Array(IstioVirtualServiceSchema, {
        minItems: 1,
        description: 'Several VirtualServices, instead of virtualService.',
      }),
    ),
    destinationRule: Type.Optional(
      Strict(
        {
          name: named("The DestinationRule's name."),
          canarySubsetName: named('The subset the controller points at the canary pods.'),
          stableSubsetName: named('The subset the controller points at the stable pods.'),
          additionalSubsetNames: Type.Optional(
            Type.Array(Type.String(), {
              description:
                'Other subsets in the routes: their weights stay as written; canary and stable share the rest.',
            }),
          ),
        },
        {
          description:
            'Split by subset of one host: the controller pins the two subsets to the canary and stable pod-template hashes.',
        },
      ),
    ),
  },
  { description: 'Istio: weights on the routes of VirtualServices.' },
);

export const NginxRoutingSchema = Strict(
  {
    stableIngress: Type.Optional(
      named('The Ingress to the stable Service; the controller makes its canary copy.'),
    ),
    stableIngresses: Type.Optional(
      Type.Array(Name, {
        minItems: 1,
        description: 'Several Ingresses, instead of stableIngress.',
      }),
    ),
    annotationPrefix: Type.Optional(
      Type.String({ description: 'Default nginx.ingress.kubernetes.io.' }),
    ),
    additionalIngressAnnotations: Type.Optional(
      Described(
        StringMap,
        'More canary annotations (e.g. canary-by-header) on the canary Ingress, under annotationPrefix.',
      ),
    ),
    canaryIngressAnnotations: Type.Optional(
      Described(StringMap, 'Annotations on the canary Ingress, as written (no prefix added).'),
    ),
  },
  {
    description:
      'NGINX Ingress: a canary copy of the stable Ingress whose canary-weight annotation carries the weight.',
  },
);

export const SmiRoutingSchema = Strict(
  {
    rootService: Type.Optional(
      Type.String({
        description:
          'The Service clients call, split between stable and canary. Default stableService.',
      }),
    ),
    trafficSplitName: Type.Optional(Type.String({ description: "Default the Rollout's name." })),
  },
  { description: 'SMI: a TrafficSplit the controller writes.' },
);

/** The plugin key of Argo's Gateway API router, accepted as our built-in one. */
export const ARGO_GATEWAY_API_PLUGIN = 'argoproj-labs/gatewayAPI';

/**
 * Each router's schema fragment, under its key in `trafficRouting`, in the CRD's order. The rest
 * of a router (the kinds it watches, its own rules, how it reads and writes them) is its module
 * in src/traffic, registered there under the same key.
 */
export const ROUTER_SCHEMAS = {
  gatewayAPI: GatewayApiRoutingSchema,
  istio: IstioRoutingSchema,
  nginx: NginxRoutingSchema,
  smi: SmiRoutingSchema,
} as const;

/** A router's key under `trafficRouting`. */
export type RouterKey = keyof typeof ROUTER_SCHEMAS;
export const ROUTER_KEYS = Object.keys(ROUTER_SCHEMAS) as readonly RouterKey[];

function optional<T extends Record<string, TSchema>>(
  schemas: T,
): { [K in keyof T]: TOptional<T[K]> } {
  const entries = Object.entries(schemas).map(([key, schema]) => [key, Type.Optional(schema)]);
  return Object.fromEntries(entries) as { [K in keyof T]: TOptional<T[K]> };
}

export const TrafficRoutingSchema = Strict(
  {
    ...optional(ROUTER_SCHEMAS),
    plugins: Type.Optional(
      Opaque<Record<string, unknown>>({
        description: `Argo's traffic-router plugins; "${ARGO_GATEWAY_API_PLUGIN}" is served built in.`,
      }),
    ),
    managedRoutes: Type.Optional(
      Type.Array(
        Strict(
          { name: named('A route name setHeaderRoute and setMirrorRoute steps may use.') },
          { description: 'A route the controller owns.' },
        ),
        { description: 'Routes the controller owns, in precedence order; removed at the end.' },
      ),
    ),
    maxTrafficWeight: Type.Optional(
      Type.Integer({ minimum: 1, format: 'int32', description: 'Total weight. Default 100.' }),
    ),
  },
  {
    description:
      'Shift traffic by weight through a router (a mesh, an ingress or the Gateway API) instead of by pod counts.',
  },
);

const StringMatchSchema = Strict(
  {
    exact: Type.Optional(Type.String({ description: 'Matches exactly this value.' })),
    prefix: Type.Optional(Type.String({ description: 'Matches values starting with this.' })),
    regex: Type.Optional(Type.String({ description: 'Matches this regular expression.' })),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of exact, prefix, regex.' },
);

export const SetHeaderRouteSchema = Strict(
  {
    name: named('The route, one of trafficRouting.managedRoutes.'),
    match: Type.Optional(
      Type.Array(
        Strict(
          {
            headerName: named('The HTTP header.'),
            headerValue: Described(StringMatchSchema, "The header's value."),
          },
          { description: 'A header a request must carry.' },
        ),
        {
          description: 'Requests matching these headers go to the canary. Empty: remove the route.',
        },
      ),
    ),
  },
  { description: 'Send requests with matching headers to the canary, whatever the weight.' },
);

export const SetMirrorRouteSchema = Strict(
  {
    name: named('The route, one of trafficRouting.managedRoutes.'),
    match: Type.Optional(
      Type.Array(
        Strict(
          {
            method: Type.Optional(Described(StringMatchSchema, 'The HTTP method.')),
            path: Type.Optional(Described(StringMatchSchema, 'The request path.')),
            headers: Type.Optional(
              Type.Unsafe<Record<string, StringMatch>>({
                type: 'object',
                additionalProperties: StringMatchSchema,
                description: 'HTTP headers by name, and how their values must match.',
              }),
            ),
          },
          { description: 'A request matches when it matches every field set.' },
        ),
        { description: 'Requests to mirror to the canary. Empty: remove the route.' },
      ),
    ),
    percentage: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        format: 'int32',
        description: 'The percentage of matching requests mirrored. Default 100.',
      }),
    ),
  },
  {
    description:
      'Copy matching requests to the canary; the responses are discarded and the stable still answers.',
  },
);

export type StringMatch = Static<typeof StringMatchSchema>;
export type GatewayApiRouting = Static<typeof GatewayApiRoutingSchema>;
export type IstioRouting = Static<typeof IstioRoutingSchema>;
export type NginxRouting = Static<typeof NginxRoutingSchema>;
export type SmiRouting = Static<typeof SmiRoutingSchema>;
export type TrafficRouting = Static<typeof TrafficRoutingSchema>;
export type SetHeaderRoute = Static<typeof SetHeaderRouteSchema>;
export type SetMirrorRoute = Static<typeof SetMirrorRouteSchema>;

/** A header route the planner wants: matching requests go to the canary. As Argo writes them,
 *  Istio gets one match block per header (any of them matches); Gateway API one match with all
 *  the headers (all must match). */
export interface HeaderRoute {
  readonly name: string;
  readonly match: readonly { readonly headerName: string; readonly headerValue: StringMatch }[];
}

/** A mirror route the planner wants: matching requests are copied to the canary. */
export interface MirrorRoute {
  readonly name: string;
  readonly match: NonNullable<SetMirrorRoute['match']>;
  readonly percentage: number;
}

/**
 * What traffic should look like (the planner's decision) or does look like (a router's
 * reading of its objects): the canary's share of maxTrafficWeight, and the managed routes in
 * managedRoutes order. The stable gets the rest.
 */
export interface TrafficState {
  readonly canaryWeight: number;
  readonly headerRoutes: readonly HeaderRoute[];
  readonly mirrorRoutes: readonly MirrorRoute[];
}

/** What the shell read of a Rollout's traffic objects through its router(s). */
export interface TrafficObservation {
  /** Undefined while an object is missing or unreadable (see problems). */
  readonly state?: TrafficState;
  /** Why the objects cannot carry the weights, each naming the object: InvalidSpec. */
  readonly problems: readonly string[];
}
