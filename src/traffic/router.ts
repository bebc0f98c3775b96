/**
 * One interface for every traffic router. A router is pure: it names the objects a Rollout's
 * routing uses, reads the traffic state they carry (or says why they cannot carry one), and
 * builds the server-side apply bodies that bring them to a state the planner decided. The shell
 * (src/controller) reads the objects from its caches and applies the bodies with force under
 * our field manager: the fields we must write are atomic (HTTPRoute `spec.rules`, VirtualService
 * `spec.http`, DestinationRule `spec.subsets`, TrafficSplit `spec.backends`: one owner each, as
 * the API server decides), so each body carries the user's values unchanged around ours.
 */
import type {
  CanaryStrategy,
  Rollout,
  RouterKey,
  TrafficObservation,
  TrafficRouting,
  TrafficState,
} from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import type { KindAccess, ResourceType } from '../kube/resources.ts';

export interface TrafficObjectRef {
  readonly type: ResourceType;
  readonly namespace: string;
  readonly name: string;
}

export const refKey = (r: TrafficObjectRef): string =>
  `${r.type.group}/${r.type.kind}/${r.namespace}/${r.name}`;

export interface RouterContext {
  readonly rollout: Rollout;
  readonly canaryService: string;
  readonly stableService: string;
  /** trafficRouting.maxTrafficWeight (default 100): the stable gets max − canary. */
  readonly maxWeight: number;
  /** Pod-template hashes of the canary and the stable (DestinationRule subsets). */
  readonly canaryHash: string;
  readonly stableHash: string;
  /** The live objects of `refs`, by refKey; absent: not found. */
  readonly objects: ReadonlyMap<string, KubeObject>;
}

export interface TrafficRouter {
  /** The spec key, for messages: "gatewayAPI", "istio", "nginx", "smi". */
  readonly name: string;
  /** Every object the routing reads (user's objects that must exist, and objects we generate). */
  refs(rollout: Rollout): readonly TrafficObjectRef[];
  /**
   * The state the objects carry. `state` is undefined when they do not carry a whole one we
   * would write (an object we generate is missing, a subset label is off, weights disagree
   * between rules): the planner then writes. `problems` name the object and make the spec
   * InvalidSpec (a user's object missing, no backends to weigh, claimed by another Rollout).
   */
  observe(ctx: RouterContext): TrafficObservation;
  /** The bodies to apply (forced). Objects we generate carry an ownerReference to the Rollout
   *  and no GitOps tracking keys; user's objects get the managed-by annotation. */
  applies(ctx: RouterContext, state: TrafficState): readonly KubeObject[];
}

/**
 * A router as the registry (src/traffic/index.ts `ROUTERS`) knows it: everything the rest of
 * Stepwise derives from it. Its schema fragment is `ROUTER_SCHEMAS[key]` in src/api/traffic.ts.
 */
export interface RouterModule {
  /** Its field under `spec.strategy.canary.trafficRouting`. */
  readonly key: RouterKey;
  /** The kinds its routers read, each watched (get, list, watch) and written with the verbs
   *  listed: the controller's informers and the RBAC in deploy/ follow from these. */
  readonly kinds: readonly KindAccess[];
  /** Whether setHeaderRoute / setMirrorRoute steps can go through it (managedRoutes). */
  readonly managedRoutes: boolean;
  /** Its router for this routing; undefined when the routing does not name it. */
  fromSpec(routing: TrafficRouting): TrafficRouter | undefined;
  /** Its own rules on a spec that names it (the schema holds), each problem naming the field. */
  validate(canary: CanaryStrategy, routing: TrafficRouting): string[];
}

/** Combines the readings of several routers (Argo allows more than one): all must agree. */
export function combine(readings: readonly TrafficObservation[]): TrafficObservation {
  const problems = readings.flatMap((r) => r.problems);
  const [first, ...rest] = readings.map((r) => r.state);
  const same = first !== undefined && rest.every((s) => s !== undefined && sameState(s, first));
  return same ? { state: first, problems } : { problems };
}

function sameState(a: TrafficState, b: TrafficState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
