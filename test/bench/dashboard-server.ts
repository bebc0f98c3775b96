// The dashboard server of the dashboard bench, in a process of its own so that its memory is
// weighed without the load generator's: 100 synthetic Rollouts, a Rollout changed on request,
// memory (after full collections) reported on request. Forked by dashboard.bench.ts with
// --expose-gc; speaks over the IPC channel.
import type { Rollout } from '../../src/api/rollout.ts';
import { Hub, serveDashboard } from '../../src/dashboard/index.ts';

export const ROLLOUTS = 100;

export type Request =
  { readonly kind: 'change'; readonly load: number } | { readonly kind: 'memory' };
export type Reply =
  | { readonly kind: 'ready'; readonly url: string; readonly port: number }
  | {
      readonly kind: 'memory';
      readonly heapUsed: number;
      readonly rss: number;
      readonly streams: number;
    };

function rolloutOf(i: number, image: string): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: `web-${i}`, namespace: `team-${i % 10}`, generation: 1, uid: `u${i}` },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: `web-${i}` } },
      template: {
        metadata: { labels: { app: `web-${i}` } },
        spec: { containers: [{ name: 'web', image }] },
      },
      strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }] } },
    },
    status: { phase: 'Healthy', observedGeneration: '1', stableRS: 'h', currentPodHash: 'h' },
  };
}

async function main(): Promise<void> {
  const send = (reply: Reply): void => void process.send?.(reply);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const rollouts = { values: [...Array(ROLLOUTS).keys()].map((i) => rolloutOf(i, 'app:1')) };
  const hub = new Hub(
    {
      rollouts,
      replicaSets: { values: [] },
      pods: { values: [] },
      analysisRuns: { values: [] },
      events: { values: [] },
    },
    'all namespaces',
  );
  const dash = await serveDashboard({
    hub,
    // About the size of the real bundle and style sheet.
    assets: { js: 'x'.repeat(60_000), css: 'y'.repeat(8_000) },
    port: 0,
    actions: {
      offers: () => [],
      run: () => Promise.resolve({ ok: true, message: '', status: 200 }),
    },
  });
  process.on('message', (req: Request) => {
    if (req.kind === 'change') {
      const i = req.load % ROLLOUTS;
      rollouts.values = rollouts.values.map((r, j) =>
        j === i ? rolloutOf(i, `app:${req.load}`) : r,
      );
      hub.changed();
      return;
    }
    gc();
    gc();
    const { heapUsed, rss } = process.memoryUsage();
    send({ kind: 'memory', heapUsed, rss, streams: dash.streams });
  });
  process.on('disconnect', () => {
    hub.close();
    void dash.close().then(() => process.exit(0));
  });
  send({ kind: 'ready', url: dash.url, port: dash.port });
}

if (import.meta.main) await main();
