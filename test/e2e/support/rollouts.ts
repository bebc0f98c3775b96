/**
 * Rollouts, Services and waiting on the real API server for the end-to-end tests. Waiting is a
 * watch: a test wakes on the change it waits for, not on a timer.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { AnalysisRun, ReplicaSet, Rollout, RolloutSpec } from '../../../src/api/index.ts';
import { REPO_ROOT } from '../../cluster/state.ts';
import { kubeHttp } from '../../cluster/testing.ts';
import { withInstanceLabel } from './isolation.ts';

export const http = kubeHttp();
const ROLLOUTS = '/apis/stepwise.dev/v1alpha1';

/** Server-side applies every CRD in deploy/crds (idempotent; tests share the cluster). */
export async function installCrds(): Promise<void> {
  const dir = join(REPO_ROOT, 'deploy', 'crds');
  for (const file of await readdir(dir)) {
    const crd = load(await readFile(join(dir, file), 'utf8')) as { metadata: { name: string } };
    await http.json(
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=stepwise-tests&force=true`,
      crd,
      'application/apply-patch+yaml',
    );
    await waitFor(
      `CRD ${crd.metadata.name} established`,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`,
      crd.metadata.name,
      (o: { status?: { conditions?: { type: string; status: string }[] } }) =>
        o.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true,
    );
  }
}

export function rolloutBody(
  name: string,
  spec: Partial<RolloutSpec> = {},
  image = 'app:1',
): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] },
      },
      strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }] } },
      ...spec,
    },
  };
}

/** Creates the Rollout, labelled for this file's controllers when files run side by side
 *  (support/isolation.ts). */
export async function createRollout(namespace: string, body: Rollout): Promise<Rollout> {
  return http.json<Rollout>(
    'POST',
    `${ROLLOUTS}/namespaces/${namespace}/rollouts`,
    withInstanceLabel(namespace, body),
  );
}

/** Creates an AnalysisRun by hand (not for a Rollout), labelled as createRollout labels. */
export async function createAnalysisRun(namespace: string, body: AnalysisRun): Promise<void> {
  await http.json(
    'POST',
    `${ROLLOUTS}/namespaces/${namespace}/analysisruns`,
    withInstanceLabel(namespace, body),
  );
}

export async function getRollout(namespace: string, name: string): Promise<Rollout> {
  return http.json<Rollout>('GET', `${ROLLOUTS}/namespaces/${namespace}/rollouts/${name}`);
}

/** A JSON merge patch on spec, as Git (through a GitOps tool) would change it. */
export async function patchSpec(namespace: string, name: string, spec: object): Promise<Rollout> {
  return http.json<Rollout>(
    'PATCH',
    `${ROLLOUTS}/namespaces/${namespace}/rollouts/${name}`,
    { spec },
    'application/merge-patch+json',
  );
}

/** What the kubectl plugin writes for promote/abort/retry: a merge patch on /status. */
export async function patchStatus(
  namespace: string,
  name: string,
  status: object,
): Promise<Rollout> {
  return http.json<Rollout>(
    'PATCH',
    `${ROLLOUTS}/namespaces/${namespace}/rollouts/${name}/status?fieldManager=kubectl-stepwise`,
    { status },
    'application/merge-patch+json',
  );
}

export function setImage(namespace: string, name: string, image: string): Promise<Rollout> {
  return patchSpec(namespace, name, {
    template: { spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] } },
  });
}

export async function createService(namespace: string, name: string, app: string): Promise<void> {
  await http.json('POST', `/api/v1/namespaces/${namespace}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { app }, ports: [{ port: 80 }] },
  });
}

export async function getService(
  namespace: string,
  name: string,
): Promise<{ spec?: { selector?: Record<string, string> } }> {
  return http.json('GET', `/api/v1/namespaces/${namespace}/services/${name}`);
}

export async function replicaSets(namespace: string, app: string): Promise<ReplicaSet[]> {
  const list = await http.json<{ items: ReplicaSet[] }>(
    'GET',
    `/apis/apps/v1/namespaces/${namespace}/replicasets?labelSelector=app%3D${app}`,
  );
  return list.items;
}

/** Waits until Events with every one of `reasons` exist in `namespace` (the controller records
 *  events asynchronously, after the write they describe). */
export function waitForEvents(
  namespace: string,
  reasons: readonly string[],
): Promise<{ reason: string; metadata?: { name?: string } }[]> {
  return waitForList(
    `events ${reasons.join(', ')}`,
    `/api/v1/namespaces/${namespace}/events`,
    (items: { reason: string; metadata?: { name?: string } }[]) =>
      reasons.every((r) => items.some((e) => e.reason === r)),
  );
}

export async function events(namespace: string): Promise<{ reason: string; message: string }[]> {
  const list = await http.json<{ items: { reason: string; message: string }[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/events`,
  );
  return list.items;
}

/** Watches one object until `pred` holds; returns it. Times out with the last state seen. */
export async function waitFor<T>(
  what: string,
  collection: string,
  name: string,
  pred: (o: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const [found] = await waitForList(
    what,
    `${collection}?fieldSelector=metadata.name%3D${name}`,
    (items: T[]) => items.some(pred),
    timeoutMs,
  );
  return found as T;
}

/** A Rollout whose controller has seen its latest spec and reports `phase` (and `extra`). */
export const phase =
  (p: string, extra: (r: Rollout) => boolean = () => true) =>
  (r: Rollout): boolean =>
    r.status?.phase === p &&
    r.status.observedGeneration === String(r.metadata.generation) &&
    extra(r);

export function waitForRollout(
  namespace: string,
  name: string,
  what: string,
  pred: (r: Rollout) => boolean,
  timeoutMs = 60_000,
): Promise<Rollout> {
  return waitFor(what, `${ROLLOUTS}/namespaces/${namespace}/rollouts`, name, pred, timeoutMs);
}

/** [canary replicas, stable replicas] from the ReplicaSets, by the hashes in status. */
export async function split(namespace: string, rollout: Rollout): Promise<[number, number]> {
  const rss = await replicaSets(namespace, rollout.metadata.name ?? '');
  const byHash = (h: string | undefined) =>
    rss.find((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === h)?.spec?.replicas ??
    0;
  const status = rollout.status ?? {};
  if (status.currentPodHash === status.stableRS) return [0, byHash(status.stableRS)];
  return [byHash(status.currentPodHash), byHash(status.stableRS)];
}

/**
 * Watches a collection until `pred` holds for the objects in it; returns them. The watch's
 * initial events list what is there, later ones keep the picture current.
 */
export async function waitForList<T>(
  what: string,
  collection: string,
  pred: (items: T[]) => boolean,
  timeoutMs = 60_000,
): Promise<T[]> {
  const items = new Map<string, T>();
  let close = (): void => undefined;
  try {
    return await new Promise<T[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        const seen = JSON.stringify([...items.values()]).slice(0, 3000);
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`),
        );
      }, timeoutMs);
      http
        .watch(collection, (e) => {
          const obj = e.object as T;
          const name = (e.object as { metadata?: { name?: string } }).metadata?.name ?? '';
          if (e.type === 'DELETED') items.delete(name);
          else if (e.type === 'ADDED' || e.type === 'MODIFIED') items.set(name, obj);
          else return;
          if (pred([...items.values()])) {
            clearTimeout(timer);
            resolve([...items.values()]);
          }
        })
        .then(
          (w) => {
            close = () => w.close();
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
    });
  } finally {
    close();
  }
}
