/**
 * Traffic routing in the Rollout API (`spec.strategy.canary.trafficRouting` and the
 * `setHeaderRoute` / `setMirrorRoute` steps), Argo Rollouts' fields for Istio, NGINX and SMI,
 * plus our built-in Gateway API router with the keys of Argo's Gateway API plugin. Also the
 * traffic state the planner decides and the routers observe, shared by src/rollout and
 * src/traffic.
 */
import Type, { type Static, type TOptional, type TSchema } from 'typebox';
import { Opaque, StringMap, Strict } from './schema.ts';

const Name = Type.String({ minLength: 1 });

const GatewayHttpRouteSchema = Strict({
  name: Name,
  useHeaderRoutes: Type.Optional(
    Type.Boolean({ description: 'Header routes of setHeaderRoute steps go into this route.' }),
  ),
});

/** Gateway API HTTPRoute(s): weights on their rules' stable and canary backendRefs. */
export const GatewayApiRoutingSchema = Strict({
  httpRoute: Type.Optional(Name),
  httpRoutes: Type.Optional(Type.Array(GatewayHttpRouteSchema, { minItems: 1 })),
  namespace: Type.Optional(
    Type.String({ description: "The routes' namespace; default the Rollout's." }),
  ),
});

const IstioVirtualServiceSchema = Strict({
  name: Name,
  routes: Type.Optional(Type.Array(Type.String(), { description: 'Named HTTP routes.' })),
  tlsRoutes: Type.Optional(
    Type.Array(
      Strict({
        port: Type.Optional(Type.Integer({ format: 'int64' })),
        sniHosts: Type.Optional(Type.Array(Type.String())),
      }),
    ),
  ),
  tcpRoutes: Type.Optional(
    Type.Array(Strict({ port: Type.Optional(Type.Integer({ format: 'int64' })) })),
  ),
});

export const IstioRoutingSchema = Strict({
  virtualService: Type.Optional(IstioVirtualServiceSchema),
  virtualServices: Type.Optional(Type.Array(IstioVirtualServiceSchema, { minItems: 1 })),
  destinationRule: Type.Optional(
    Strict({
      name: Name,
      canarySubsetName: Name,
      stableSubsetName: Name,
      additionalSubsetNames: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});

export const NginxRoutingSchema = Strict({
  stableIngress: Type.Optional(Name),
  stableIngresses: Type.Optional(Type.Array(Name, { minItems: 1 })),
  annotationPrefix: Type.Optional(
    Type.String({ description: 'Default nginx.ingress.kubernetes.io.' }),
  ),
  additionalIngressAnnotations: Type.Optional(StringMap),
  canaryIngressAnnotations: Type.Optional(StringMap),
});

export const SmiRoutingSchema = Strict({
  rootService: Type.Optional(Type.String()),
  trafficSplitName: Type.Optional(Type.String({ description: "Default the Rollout's name." })),
});

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

export const TrafficRoutingSchema = Strict({
  ...optional(ROUTER_SCHEMAS),
  plugins: Type.Optional(
    Opaque<Record<string, unknown>>({
      description: `Argo's traffic-router plugins; "${ARGO_GATEWAY_API_PLUGIN}" is served built in.`,
    }),
  ),
  managedRoutes: Type.Optional(
    Type.Array(Strict({ name: Name }), {
      description: 'Routes the controller owns, in precedence order; removed at the end.',
    }),
  ),
  maxTrafficWeight: Type.Optional(
    Type.Integer({ minimum: 1, format: 'int32', description: 'Total weight. Default 100.' }),
  ),
});

const StringMatchSchema = Strict(
  {
    exact: Type.Optional(Type.String()),
    prefix: Type.Optional(Type.String()),
    regex: Type.Optional(Type.String()),
  },
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of exact, prefix, regex.' },
);

export const SetHeaderRouteSchema = Strict({
  name: Name,
  match: Type.Optional(
    Type.Array(Strict({ headerName: Name, headerValue: StringMatchSchema }), {
      description: 'Requests matching these headers go to the canary. Empty: remove the route.',
    }),
  ),
});

export const SetMirrorRouteSchema = Strict({
  name: Name,
  match: Type.Optional(
    Type.Array(
      Strict({
        method: Type.Optional(StringMatchSchema),
        path: Type.Optional(StringMatchSchema),
        headers: Type.Optional(
          Type.Unsafe<Record<string, StringMatch>>({
            type: 'object',
            additionalProperties: StringMatchSchema,
          }),
        ),
      }),
      { description: 'Requests to mirror to the canary. Empty: remove the route.' },
    ),
  ),
  percentage: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, format: 'int32' })),
});

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
