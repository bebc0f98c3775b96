/**
 * Traffic objects for the router e2e tests, written the way GitOps tools write them: server-side
 * apply under their field managers (`argocd-controller`, `kustomize-controller`), forced.
 */
import { http } from './rollouts.ts';
import { WatchHistory } from './history.ts';

export const ARGOCD = 'argocd-controller';
export const FLUX = 'kustomize-controller';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

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

export function serviceManifest(name: string, app: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

export interface BackendRef {
  name: string;
  port?: number;
  weight?: number;
  group?: string;
  kind?: string;
}
export interface HttpRoute {
  metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec: {
    rules: {
      name?: string;
      matches?: { path?: { type: string; value: string }; headers?: unknown[] }[];
      filters?: { type: string; requestMirror?: { backendRef: BackendRef; percent?: number } }[];
      backendRefs?: BackendRef[];
    }[];
  };
}

/** Git's HTTPRoute: one rule to the stable and canary Services at the given weights. */
export function httpRouteManifest(name: string, stable: number, canary: number): Obj {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, labels: { 'app.kubernetes.io/instance': 'shop' } },
    spec: {
      parentRefs: [{ name: 'gateway' }],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          backendRefs: [
            { name: 'web-stable', port: 80, weight: stable },
            { name: 'web-canary', port: 80, weight: canary },
          ],
        },
      ],
    },
  };
}

/** [stable, canary] weights of the first rule that names both Services. */
export function routeWeights(route: HttpRoute): [number, number] {
  const rule = route.spec.rules.find(
    (r) =>
      r.backendRefs?.some((b) => b.name === 'web-stable') &&
      r.backendRefs.some((b) => b.name === 'web-canary') &&
      !r.name?.startsWith('stepwise-'),
  );
  const w = (n: string) => rule?.backendRefs?.find((b) => b.name === n)?.weight ?? 1;
  return [w('web-stable'), w('web-canary')];
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
