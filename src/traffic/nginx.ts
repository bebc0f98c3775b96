/**
 * The NGINX router: for each stable Ingress of the user's, a canary Ingress that we generate and
 * own, `<rollout>-<stableIngress>-canary` (Argo's name), whose `canary-weight` annotation gives
 * ingress-nginx the canary's share. Built as Argo's nginx router builds it: the stable Ingress's
 * rules that route to the stable Service, with those backends pointed at the canary Service,
 * its TLS and ingress class, and the canary annotations. The stable Ingress is only read.
 */
import type { NginxRouting, Rollout, TrafficObservation, TrafficState } from '../api/index.ts';
import type { KubeObject } from '../kube/objects.ts';
import { apiVersionOf, Resources, watched } from '../kube/resources.ts';
import { controlledBy, describe, generatedMeta, sameJson } from './objects.ts';
import { refKey } from './router.ts';
import type { RouterContext, RouterModule, TrafficObjectRef, TrafficRouter } from './router.ts';

interface Path {
  readonly backend?: {
    readonly service?: { readonly name?: string; readonly [f: string]: unknown };
  };
  readonly [field: string]: unknown;
}
interface Rule {
  readonly http?: { readonly paths?: readonly Path[]; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}
interface IngressSpec {
  readonly ingressClassName?: string;
  readonly rules?: readonly Rule[];
  readonly tls?: readonly unknown[];
  readonly [field: string]: unknown;
}
interface Ingress extends KubeObject {
  readonly spec?: IngressSpec;
}

export const DEFAULT_NGINX_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io';
const CANARY_SUFFIX = '-canary';
const MAX_NAME_LENGTH = 253;
/** Argo copies this one annotation of the stable Ingress: ingress-nginx must see the class. */
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** Argo's GetCanaryIngressName: `<rollout>-<stable>` cut to fit 253 characters, `-canary`. */
export function canaryIngressName(rolloutName: string, stableIngress: string): string {
  const prefix = `${rolloutName}-${stableIngress}`.slice(0, MAX_NAME_LENGTH - CANARY_SUFFIX.length);
  return `${prefix}${CANARY_SUFFIX}`;
}

/** The user's stable Ingresses are only read; the canary Ingresses are ours (created, patched). */
export const nginx: RouterModule = {
  key: 'nginx',
  kinds: [watched(Resources.Ingress, 'create', 'patch')],
  managedRoutes: false,
  fromSpec: (routing) => (routing.nginx === undefined ? undefined : nginxRouter(routing.nginx)),
  validate(_canary, routing) {
    return routing.nginx && !routing.nginx.stableIngress && !routing.nginx.stableIngresses
      ? ['spec.strategy.canary.trafficRouting.nginx: must set stableIngress or stableIngresses']
      : [];
  },
};

export function nginxRouter(routing: NginxRouting): TrafficRouter {
  const stables = routing.stableIngresses ?? (routing.stableIngress ? [routing.stableIngress] : []);
  const prefix = routing.annotationPrefix || DEFAULT_NGINX_ANNOTATION_PREFIX;
  const ingressRef = (rollout: Rollout, name: string): TrafficObjectRef => ({
    type: Resources.Ingress,
    namespace: rollout.metadata.namespace ?? '',
    name,
  });
  const pairs = (rollout: Rollout) =>
    stables.map((stable) => ({
      stable: ingressRef(rollout, stable),
      canary: ingressRef(rollout, canaryIngressName(rollout.metadata.name ?? '', stable)),
    }));
  const build = (ctx: RouterContext, stable: Ingress, name: string, weight: number) =>
    canaryIngress(ctx, routing, prefix, stable, name, weight);
  return {
    name: 'nginx',
    refs: (rollout) => pairs(rollout).flatMap((p) => [p.stable, p.canary]),
    observe(ctx): TrafficObservation {
      const problems: string[] = [];
      const weights: (number | undefined)[] = [];
      for (const { stable, canary } of pairs(ctx.rollout)) {
        const stableLive: Ingress | undefined = ctx.objects.get(refKey(stable));
        const what = describe('Ingress', stable.namespace, stable.name);
        if (stableLive === undefined) {
          problems.push(`${what} not found`);
          continue;
        }
        if (canaryRules(stableLive, ctx).length === 0) {
          problems.push(`${what} has no backend for Service "${ctx.stableService}"`);
          continue;
        }
        const canaryLive: Ingress | undefined = ctx.objects.get(refKey(canary));
        if (canaryLive === undefined) {
          weights.push(undefined); // we create it
          continue;
        }
        if (!controlledBy(canaryLive, ctx.rollout)) {
          const it = describe('Ingress', canary.namespace, canary.name);
          problems.push(`${it} exists and is not owned by Rollout "${ctx.rollout.metadata.name}"`);
          continue;
        }
        const weight = readWeight(canaryLive, prefix);
        const current =
          weight !== undefined &&
          carries(canaryLive, build(ctx, stableLive, canary.name, weight), prefix);
        weights.push(current ? weight : undefined);
      }
      const [first] = weights;
      if (problems.length > 0 || first === undefined || weights.some((w) => w !== first)) {
        return { problems };
      }
      const state: TrafficState = { canaryWeight: first, headerRoutes: [], mirrorRoutes: [] };
      return { state, problems };
    },
    applies(ctx, state) {
      return pairs(ctx.rollout).flatMap(({ stable, canary }) => {
        const stableLive: Ingress | undefined = ctx.objects.get(refKey(stable));
        if (stableLive === undefined || canaryRules(stableLive, ctx).length === 0) return [];
        return [build(ctx, stableLive, canary.name, state.canaryWeight)];
      });
    },
  };
}

/** The canary Ingress for `weight`, as Argo's buildCanaryIngress makes it. */
function canaryIngress(
  ctx: RouterContext,
  routing: NginxRouting,
  prefix: string,
  stable: Ingress,
  name: string,
  weight: number,
): Ingress {
  const annotations: Record<string, string> = {};
  const ingressClass = stable.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
  if (ingressClass !== undefined) annotations[INGRESS_CLASS_ANNOTATION] = ingressClass;
  // Argo's precedence: additional annotations (prefixed), then canaryIngressAnnotations as
  // given, then the canary keys, which nothing may override.
  for (const [k, v] of Object.entries(routing.additionalIngressAnnotations ?? {})) {
    annotations[k.startsWith(prefix) ? k : `${prefix}/${k}`] = v;
  }
  Object.assign(annotations, routing.canaryIngressAnnotations ?? {});
  annotations[`${prefix}/canary`] = 'true';
  annotations[`${prefix}/canary-weight`] = String(weight);
  if (ctx.maxWeight !== 100) annotations[`${prefix}/canary-weight-total`] = String(ctx.maxWeight);
  const spec: Record<string, unknown> = {};
  if (stable.spec?.ingressClassName !== undefined) {
    spec.ingressClassName = stable.spec.ingressClassName;
  }
  spec.rules = canaryRules(stable, ctx);
  if (stable.spec?.tls !== undefined) spec.tls = stable.spec.tls;
  return {
    apiVersion: apiVersionOf(Resources.Ingress),
    kind: Resources.Ingress.kind,
    metadata: generatedMeta(
      ctx.rollout,
      name,
      ctx.rollout.metadata.namespace ?? '',
      undefined,
      annotations,
    ),
    spec,
  };
}

/** The stable Ingress's rules that route to the stable Service, those paths sent to the canary
 *  (the rule's other paths kept as they are, as Argo keeps them); other rules are left out. */
function canaryRules(stable: Ingress, ctx: RouterContext): Rule[] {
  const toStable = (p: Path): boolean => p.backend?.service?.name === ctx.stableService;
  const toCanary = (p: Path): Path => {
    const service = p.backend?.service;
    return toStable(p) && service !== undefined
      ? { ...p, backend: { ...p.backend, service: { ...service, name: ctx.canaryService } } }
      : p;
  };
  return (stable.spec?.rules ?? [])
    .filter((rule) => rule.http?.paths?.some(toStable) === true)
    .map((rule) => ({
      ...rule,
      http: { ...rule.http, paths: (rule.http?.paths ?? []).map(toCanary) },
    }));
}

function readWeight(canary: Ingress, prefix: string): number | undefined {
  const text = canary.metadata?.annotations?.[`${prefix}/canary-weight`];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * The live canary Ingress is what we would apply: the same spec, our annotations with our
 * values, and no annotation under the prefix that we no longer set (one taken out of
 * additionalIngressAnnotations must go, and our next apply removes it).
 */
function carries(live: Ingress, want: Ingress, prefix: string): boolean {
  const liveNotes = live.metadata?.annotations ?? {};
  const wantNotes = want.metadata?.annotations ?? {};
  return (
    sameJson(live.spec ?? {}, want.spec ?? {}) &&
    Object.entries(wantNotes).every(([k, v]) => liveNotes[k] === v) &&
    Object.keys(liveNotes).every((k) => !k.startsWith(`${prefix}/`) || k in wantNotes)
  );
}
