// The simulated nodes. kwok (started with --manage-all-nodes) takes each one over: its stages
// mark it Ready and keep its Lease fresh, and run the pods scheduled to it.
import type { KubeHttp } from './kube-http.ts';

export async function createNodes(api: KubeHttp, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `kwok-node-${i}`);
  await Promise.all(
    names.map((name) =>
      api.json('POST', '/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            type: 'kwok',
          },
          annotations: { 'kwok.x-k8s.io/node': 'fake' },
        },
        spec: {},
      }),
    ),
  );
  return names;
}
