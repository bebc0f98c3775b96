/**
 * Traffic objects for the router e2e tests, written the way GitOps tools write them: server-side
 * apply under their field managers (`argocd-controller`, `kustomize-controller`), forced.
 */
import assert from 'node:assert/strict';
import { http, patchStatus, replicaSets, split, waitForRollout } from './rollouts.ts';
import { WatchHistory } from './history.ts';
import { routeWeights } from '../../fixtures/traffic.ts';
import type { HttpRoute, Obj } from '../../fixtures/traffic.ts';

export { httpRouteManifest, routeWeights, serviceManifest } from '../../fixtures/traffic.ts';
export type { BackendRef, HttpRoute } from '../../fixtures/traffic.ts';

export const ARGOCD = 'argocd-controller';
export const FLUX = 'kustomize-controller';

const PLURALS: Record<string, string> = {
  Service: 'services',
  HTTPRoute: 'httproutes',
  VirtualService: 'virtualservices',
  DestinationRule: 'destinationrules',
  Ingress: 'ingresses',
  TrafficSplit: 'trafficsplits',
};

export function collectionPath(apiVersion: string, kind: string, namespace: string): string {
  const root = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
  return `${root}/namespaces/${namespace}/${PLURALS[kind] ?? `${kind.toLowerCase()}s`}`;
}

/** Server-side apply of `body` under `manager` (forced, as Argo CD and Flux apply). */
export async function applyAs<T>(manager: string, namespace: string, body: Obj, force = true) {
  const path = `${collectionPath(body.apiVersion, body.kind, namespace)}/${body.metadata.name}`;
  return http.json<T>(
    'PATCH',
    `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`,
    body,
    'application/apply-patch+yaml',
  );
}

export function watchRoute(namespace: string, name: string): Promise<WatchHistory<HttpRoute>> {
  return WatchHistory.start<HttpRoute>(
    `${collectionPath('gateway.networking.k8s.io/v1', 'HTTPRoute', namespace)}?fieldSelector=metadata.name%3D${name}`,
  );
}

/** The canary weight each time it changed, from a watch history (the first state included). */
export function canaryWeights(history: WatchHistory<HttpRoute>, from = 0): number[] {
  const out: number[] = [];
  for (const e of history.events.slice(from)) {
    const [, canary] = routeWeights(e.object);
    if (out.at(-1) !== canary) out.push(canary);
  }
  return out;
}

/**
 * Aborts Rollout `web` (paused with 2 canary pods of 4 behind a router) and checks the order
 * every router must keep: the canary's traffic is gone (`trafficGone` resolves, from a watch
 * started before) while its pods are still there; then the canary scales down, the stable full.
 */
export async function abortMovesTrafficFirst(
  ns: string,
  trafficGone: () => Promise<unknown>,
): Promise<void> {
  await patchStatus(ns, 'web', { abort: true });
  await trafficGone();
  const canaryRs = (await replicaSets(ns, 'web')).find((rs) => (rs.spec?.replicas ?? 0) === 2);
  assert.ok(canaryRs !== undefined, 'the canary still had its pods when traffic left it');
  const aborted = await waitForRollout(
    ns,
    'web',
    'canary scaled down',
    (r) => r.status?.phase === 'Degraded' && (r.status.updatedReplicas ?? 1) === 0,
  );
  assert.deepEqual(await split(ns, aborted), [0, 4]);
}
