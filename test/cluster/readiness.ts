// Probes for "ready": each returns true when the component can do its job, false (or throws)
// when not yet. Used with pollUntil.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { KubeHttp } from './kube-http.ts';

interface Condition {
  type: string;
  status: string;
}
interface Node {
  metadata: { name: string };
  spec?: { taints?: { effect: string }[] };
  status?: { conditions?: Condition[] };
}

export async function etcdHealthy(port: number): Promise<boolean> {
  const body = await fetchText(`http://127.0.0.1:${port}/health`);
  return (JSON.parse(body) as { health?: string }).health === 'true';
}

export async function apiserverReady(api: KubeHttp): Promise<boolean> {
  const res = await api.request('GET', '/readyz');
  return res.status === 200;
}

/**
 * kube-controller-manager and kube-scheduler serve /healthz over TLS with a self-signed
 * certificate they made at start; it is loopback and carries no secret, so no verification.
 */
export async function secureHealthz(port: number): Promise<boolean> {
  return (await fetchText(`https://127.0.0.1:${port}/healthz`)) === 'ok';
}

/** Ready, and no NoSchedule/NoExecute taint left (node-lifecycle removes not-ready ones). */
export async function nodesReady(api: KubeHttp, names: readonly string[]): Promise<boolean> {
  const list = await api.json<{ items: Node[] }>('GET', '/api/v1/nodes');
  const ready = new Set(
    list.items
      .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .filter((n) => !(n.spec?.taints ?? []).some((t) => t.effect !== 'PreferNoSchedule'))
      .map((n) => n.metadata.name),
  );
  return names.every((n) => ready.has(n));
}

export async function defaultServiceAccountExists(api: KubeHttp): Promise<boolean> {
  const res = await api.request('GET', '/api/v1/namespaces/default/serviceaccounts/default');
  return res.status === 200;
}

function fetchText(url: string): Promise<string> {
  const get = url.startsWith('https:') ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}
