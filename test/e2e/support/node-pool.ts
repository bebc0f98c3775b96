/**
 * Nodes of one test's own for scheduling tests (anti-affinity): kwok nodes tainted so that only
 * pods tolerating the pool land there, and removed when the test is over.
 */
import type { Pod } from '../../../src/api/index.ts';
import { http, waitForList } from './rollouts.ts';

export const POOL_KEY = 'stepwise.dev/e2e-pool';
export const SIDE_KEY = 'stepwise.dev/e2e-side';

/** Four kwok nodes only pods tolerating `pool` may use; the first two labelled side=blue. */
export async function createPool(pool: string): Promise<string[]> {
  const names = [0, 1, 2, 3].map((i) => `${pool}-${i}`);
  await Promise.all(
    names.map((name, i) =>
      http.json('POST', '/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            type: 'kwok',
            [POOL_KEY]: pool,
            ...(i < 2 ? { [SIDE_KEY]: 'blue' } : {}),
          },
          annotations: { 'kwok.x-k8s.io/node': 'fake' },
        },
        spec: { taints: [{ key: POOL_KEY, value: pool, effect: 'NoSchedule' }] },
      }),
    ),
  );
  interface NodeObject {
    metadata?: { name?: string; labels?: Record<string, string> };
    status?: { conditions?: { type: string; status: string }[] };
  }
  await waitForList(
    `the four ${pool} nodes Ready`,
    `/api/v1/nodes?labelSelector=${encodeURIComponent(`${POOL_KEY}=${pool}`)}`,
    (nodes: NodeObject[]) =>
      nodes.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      ).length === 4,
  );
  return names;
}

/** Deletes the Rollouts and ReplicaSets of `ns`, waits for their pods to leave the pool (kwok
 *  finishes them; force-deleted if not), then the nodes. */
export async function removePool(ns: string, names: readonly string[]): Promise<void> {
  await http.request('DELETE', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts`);
  await http.request('DELETE', `/apis/apps/v1/namespaces/${ns}/replicasets`);
  await waitForList('no pods left on the pool', `/api/v1/namespaces/${ns}/pods`, (pods: Pod[]) =>
    pods.every((p) => !names.includes(p.spec?.nodeName ?? '')),
  ).catch(() => http.request('DELETE', `/api/v1/namespaces/${ns}/pods?gracePeriodSeconds=0`));
  await Promise.all(names.map((n) => http.request('DELETE', `/api/v1/nodes/${n}`)));
}
