/**
 * What a router needs to hand a user's traffic object back once its Rollout is gone: the
 * Rollout's canary and stable Service and its trafficRouting. Recorded on the object
 * (MANAGED_ROUTING_ANNOTATION, canonical JSON) with every apply, so a Rollout deleted while the
 * controller was down is released as exactly as one whose deletion it saw.
 */
import { Compile } from 'typebox/compile';
import { canonicalJson } from './canonical-json.ts';
import { MANAGED_ROUTING_ANNOTATION } from './keys.ts';
import type { CanaryStrategy } from './rollout.ts';
import type { TrafficRouting } from './traffic.ts';
import { TrafficRoutingSchema } from './traffic.ts';
import { lazily } from './validate.ts';

export interface ManagedRouting {
  readonly canaryService: string;
  readonly stableService: string;
  readonly trafficRouting: TrafficRouting;
}

const trafficRouting = lazily(() => Compile(TrafficRoutingSchema));

/** A canary's routing as recorded; undefined without trafficRouting. */
export function managedRouting(canary: CanaryStrategy | undefined): ManagedRouting | undefined {
  if (canary?.trafficRouting === undefined) return undefined;
  return {
    canaryService: canary.canaryService ?? '',
    stableService: canary.stableService ?? '',
    trafficRouting: canary.trafficRouting,
  };
}

/** The annotation's value for a canary's routing ('' without one). */
export function routingRecord(canary: CanaryStrategy | undefined): string {
  const routing = managedRouting(canary);
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
  if (typeof r.canaryService !== 'string' || typeof r.stableService !== 'string') return undefined;
  if (!trafficRouting().Check(r.trafficRouting)) return undefined;
  return {
    canaryService: r.canaryService,
    stableService: r.stableService,
    trafficRouting: r.trafficRouting as TrafficRouting,
  };
}
