/**
 * What a router needs to hand a user's traffic object back once its Rollout is gone: the
 * Rollout's namespace (an HTTPRoute may live in another), its canary and stable Service and its
 * trafficRouting. Recorded on the object
 * (MANAGED_ROUTING_ANNOTATION, canonical JSON) with every apply, so a Rollout deleted while the
 * controller was down is released as exactly as one whose deletion it saw.
 */
import { Compile } from 'typebox/compile';
import { canonicalJson } from './canonical-json.ts';
import { MANAGED_ROUTING_ANNOTATION } from './keys.ts';
import { markOf } from './managed-mark.ts';
import type { Rollout } from './rollout.ts';
import type { TrafficRouting } from './traffic.ts';
import { TrafficRoutingSchema } from './traffic.ts';
import { lazily } from './validate.ts';

export interface ManagedRouting {
  /** The Rollout's namespace. */
  readonly namespace: string;
  readonly canaryService: string;
  readonly stableService: string;
  readonly trafficRouting: TrafficRouting;
}

const trafficRouting = lazily(() => Compile(TrafficRoutingSchema));

type Routed = Pick<Rollout, 'metadata' | 'spec'>;

/** A Rollout's routing as recorded; undefined without trafficRouting. */
export function managedRouting(rollout: Routed): ManagedRouting | undefined {
  const canary = rollout.spec.strategy.canary;
  if (canary?.trafficRouting === undefined) return undefined;
  return {
    namespace: rollout.metadata.namespace ?? '',
    canaryService: canary.canaryService ?? '',
    stableService: canary.stableService ?? '',
    trafficRouting: canary.trafficRouting,
  };
}

/** The annotation's value for a Rollout's routing ('' without one). */
export function routingRecord(rollout: Routed): string {
  const routing = managedRouting(rollout);
  return routing === undefined ? '' : canonicalJson(routing);
}

/** The routing recorded on an object; undefined when absent or not one (edited by hand). */
export function readRoutingRecord(obj: {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
}): ManagedRouting | undefined {
  const text = obj.metadata?.annotations?.[MANAGED_ROUTING_ANNOTATION];
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const r = parsed as Record<string, unknown>;
  const strings = [r.namespace, r.canaryService, r.stableService];
  if (!strings.every((x) => typeof x === 'string')) return undefined;
  if (!trafficRouting().Check(r.trafficRouting)) return undefined;
  return {
    namespace: r.namespace as string,
    canaryService: r.canaryService as string,
    stableService: r.stableService as string,
    trafficRouting: r.trafficRouting as TrafficRouting,
  };
}

/** `namespace/name` of the Rollout whose mark `obj` carries (in the namespace its recorded
 *  routing names, else the object's own); undefined: unmarked. */
export function markedByKey(obj: {
  readonly metadata?: {
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}): `${string}/${string}` | undefined {
  const mark = markOf(obj);
  if (mark === undefined) return undefined;
  const namespace = readRoutingRecord(obj)?.namespace ?? obj.metadata?.namespace ?? '';
  return `${namespace}/${mark.rollout}`;
}
