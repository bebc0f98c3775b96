// The API server's own latency on this machine, through a client with no overhead to speak
// of (kube-http.ts: one keep-alive TLS connection, JSON in and out). Requests are sequential:
// this is the floor a single controller action cannot beat, not a throughput figure.
import { randomBytes } from 'node:crypto';
import type { Cluster } from '../cluster/cluster.ts';
import { KubeHttp, type WatchEvent } from '../cluster/kube-http.ts';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { stats, type Stats } from './harness.ts';

export interface ApiFloor {
  readonly createConfigMap: Stats;
  readonly getConfigMap: Stats;
  readonly applyConfigMap: Stats;
  /** From just before a create request is sent until its ADDED event arrives on a watch. */
  readonly watchEventFromRequestStart: Stats;
  /** From the create's response until the event; negative when the event came first. */
  readonly watchEventAfterResponse: Stats;
  /**
   * p50 of (create seen on a watch) + p50 of (create): a change observed, then one write in
   * response. The least a controller can take from a spec change to a child object.
   */
  readonly watchPlusWriteP50Ms: number;
  /** The same at p99: what a controller's p99 is measured against (its own p99 carries the
   *  API server's tail too). */
  readonly watchPlusWriteP99Ms: number;
}

const WARM_UP = 20;
const EVENT_TIMEOUT_MS = 10_000;

export async function measureApiFloor(cluster: Cluster, samples: number): Promise<ApiFloor> {
  const api = new KubeHttp(readCredentials(cluster.kubeconfigPath));
  const namespace = `bench-floor-${randomBytes(3).toString('hex')}`;
  const base = `/api/v1/namespaces/${namespace}/configmaps`;
  await api.json('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const arrivals = new Map<string, (at: number) => void>();
  const watch = await api.watch(base, (e: WatchEvent) => {
    const name = (e.object.metadata as { name?: string } | undefined)?.name ?? '';
    if (e.type === 'ADDED') arrivals.get(name)?.(performance.now());
  });
  try {
    const create: number[] = [];
    const fromStart: number[] = [];
    const afterResponse: number[] = [];
    for (let i = 0; i < WARM_UP + samples; i++) {
      const name = `cm-${i}`;
      const arrived = new Promise<number>((resolve, reject) => {
        arrivals.set(name, resolve);
        setTimeout(() => reject(new Error(`no watch event for ${name}`)), EVENT_TIMEOUT_MS).unref();
      });
      const sent = performance.now();
      await api.json('POST', base, { metadata: { name }, data: { i: String(i) } });
      const answered = performance.now();
      const seen = await arrived;
      arrivals.delete(name);
      if (i < WARM_UP) continue;
      create.push(answered - sent);
      fromStart.push(seen - sent);
      afterResponse.push(seen - answered);
    }

    const get = await timeEach(samples, () => api.json('GET', `${base}/cm-0`));
    const applyPath = `${base}/applied?fieldManager=stepwise-bench&force=true`;
    const apply = await timeEach(samples, (i) =>
      api.json(
        'PATCH',
        applyPath,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { i: `${i}` } },
        'application/apply-patch+yaml',
      ),
    );
    const createStats = stats(create);
    const watchStats = stats(fromStart);
    return {
      createConfigMap: createStats,
      getConfigMap: stats(get),
      applyConfigMap: stats(apply),
      watchEventFromRequestStart: watchStats,
      watchEventAfterResponse: stats(afterResponse),
      watchPlusWriteP50Ms: Math.round((watchStats.p50 + createStats.p50) * 1000) / 1000,
      watchPlusWriteP99Ms: Math.round((watchStats.p99 + createStats.p99) * 1000) / 1000,
    };
  } finally {
    watch.close();
    await api.request('DELETE', `/api/v1/namespaces/${namespace}`);
    api.close();
  }
}

async function timeEach(samples: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + samples; i++) {
    const t0 = performance.now();
    await call(i);
    if (i >= WARM_UP) times.push(performance.now() - t0);
  }
  return times;
}
