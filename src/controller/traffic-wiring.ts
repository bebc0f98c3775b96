/**
 * Informers for the traffic routers' objects: the kinds the registered routers declare
 * (HTTPRoutes, VirtualServices, DestinationRules, Ingresses, TrafficSplits). A type the cluster
 * does not serve (its CRDs are not installed) is not watched: an informer on it would never sync and would hold every worker back. A Rollout
 * that needs it gets InvalidSpec saying so. A change to one of these objects wakes each Rollout
 * whose routing names it, so a GitOps sync that resets our weights is undone within a second.
 */
import {
  ApiStatusError,
  Informer,
  kubeListWatch,
  type Clock,
  type EventHandler,
  type KubeApi,
  type KubeObject,
  type Logger,
  type ResourceType,
} from '../kube/index.ts';
import { markedByKey, markOf } from '../api/index.ts';
import { refKey, routerKinds } from '../traffic/index.ts';
import type { MarkedTrafficObject, TrafficObjectCache } from './traffic-shell.ts';

/** Traffic objects by `namespace/rollout` of the Rollout whose mark they carry (an HTTPRoute
 *  may be in another namespace than its Rollout: its recorded routing names the Rollout's). */
const BY_MANAGER = 'byManager';
const byManager = (o: KubeObject): string[] => {
  const key = markedByKey(o);
  return key === undefined ? [] : [key];
};

/** Every kind a registered router reads (src/traffic ROUTERS), once each. */
export const TRAFFIC_TYPES: readonly ResourceType[] = [
  ...new Set(routerKinds().map((k) => k.type)),
];

export interface TrafficInformers {
  readonly informers: readonly Informer<KubeObject>[];
  readonly cache: TrafficObjectCache;
  /** Calls `wake` with the index key of every traffic object that changes. */
  onChange(wake: (objectKey: string) => void): void;
}

export async function trafficInformers(opts: {
  readonly api: KubeApi;
  readonly namespace: string | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onResumed: () => void;
}): Promise<TrafficInformers> {
  const watched = new Map<ResourceType, Informer<KubeObject>>();
  for (const type of TRAFFIC_TYPES) {
    if (!(await served(opts.api, type, opts.namespace, opts.log))) continue;
    watched.set(
      type,
      new Informer<KubeObject>({
        name: type.plural,
        source: kubeListWatch(opts.api, type, opts.namespace),
        clock: opts.clock,
        logger: opts.log,
        onResumed: opts.onResumed,
        indexers: { [BY_MANAGER]: byManager },
      }),
    );
  }
  const marked = (find: (i: Informer<KubeObject>) => KubeObject[]): MarkedTrafficObject[] =>
    [...watched].flatMap(([type, informer]) => find(informer).map((object) => ({ type, object })));
  return {
    informers: [...watched.values()],
    cache: {
      watches: (type) => watched.has(type),
      object: (type, namespace, name) => watched.get(type)?.get(`${namespace}/${name}`),
      managedBy: (key) => marked((i) => i.byIndex(BY_MANAGER, key)),
      marked: () => marked((i) => i.list().filter((o) => markOf(o) !== undefined)),
    },
    onChange(wake) {
      for (const [type, informer] of watched) {
        const keyOf = (o: KubeObject): string =>
          refKey({ type, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
        const handler: EventHandler<KubeObject> = {
          onAdd: (o) => wake(keyOf(o)),
          onUpdate: (_old, o) => wake(keyOf(o)),
          onDelete: (o) => wake(keyOf(o)),
        };
        informer.addEventHandler(handler);
      }
    },
  };
}

/** Whether the cluster serves `type` to us: one LIST of one item at start-up. */
async function served(
  api: KubeApi,
  type: ResourceType,
  namespace: string | undefined,
  log: Logger,
): Promise<boolean> {
  try {
    await api.list(type, { namespace, limit: 1 });
    return true;
  } catch (err) {
    if (err instanceof ApiStatusError && (err.httpStatus === 404 || err.httpStatus === 403)) {
      const why = err.httpStatus === 404 ? 'not served (CRDs not installed)' : 'forbidden';
      log.info('traffic router objects not watched', {
        resource: type.plural,
        group: type.group,
        why,
      });
      return false;
    }
    throw err;
  }
}
