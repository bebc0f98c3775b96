// What Argo's per-Rollout metric families cost at scale (issue 24, item 4): BENCH_METRICS_ROLLOUTS
// (default 10,000) settled Rollouts in the controller's registry, with and without
// --rollout-replica-metrics (4 more series per Rollout): the series served, the bytes of one
// scrape, the time /metrics takes to render (the event loop is blocked all the while), and the
// heap the series hold. In-process, no cluster: `make bench BENCH=metrics`.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Rollout } from '../../src/api/index.ts';
import { ControllerMetrics } from '../../src/controller/metrics.ts';
import { rolloutFixture } from '../fixtures/rollout/sim.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const ROLLOUTS = Number(process.env['BENCH_METRICS_ROLLOUTS'] ?? 10_000);
const SCRAPES = 20;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function settledRollout(i: number): Rollout {
  const r = rolloutFixture();
  return {
    ...r,
    metadata: { ...r.metadata, namespace: `ns-${Math.floor(i / 100)}`, name: `web-${i}` },
    status: {
      phase: 'Healthy',
      replicas: 4,
      updatedReplicas: 4,
      availableReplicas: 4,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "web-${i}-abc" has successfully progressed.`,
          lastTransitionTime: '2026-12-01T10:00:00Z',
          lastUpdateTime: '2026-12-01T10:00:00Z',
        },
      ],
    },
  };
}

interface Figures {
  readonly series: number;
  readonly bytes: number;
  readonly heapMb: number;
  readonly renderMs: ReturnType<typeof stats>;
}

async function measure(rollouts: readonly Rollout[], replicaGauges: boolean): Promise<Figures> {
  gc();
  const before = process.memoryUsage().heapUsed;
  const metrics = new ControllerMetrics({ defaultMetrics: false, replicaGauges });
  for (const r of rollouts) metrics.setRollout(r);
  gc();
  const heapMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  const times: number[] = [];
  let text = '';
  for (let i = 0; i < SCRAPES; i++) {
    const started = performance.now();
    text = await metrics.registry.metrics();
    times.push(performance.now() - started);
  }
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  return { series, bytes: Buffer.byteLength(text), heapMb, renderMs: stats(times) };
}

const benchmark: Benchmark = {
  name: 'metrics',
  description: `/metrics at ${ROLLOUTS} Rollouts, with and without --rollout-replica-metrics`,
  async run(ctx) {
    const rollouts = Array.from({ length: ROLLOUTS }, (_, i) => settledRollout(i));
    const summary: string[] = [];
    const data: Record<string, unknown> = { machine: machine(), rollouts: ROLLOUTS };
    for (const replicaGauges of [false, true]) {
      const label = replicaGauges ? 'with replica gauges' : 'rollout_info only';
      const f = await measure(rollouts, replicaGauges);
      summary.push(
        `${label}: ${f.series} series, ${(f.bytes / 2 ** 20).toFixed(1)} MiB per scrape, ` +
          `heap +${f.heapMb.toFixed(1)} MB`,
        formatStats(`  /metrics render (${label})`, f.renderMs),
      );
      data[replicaGauges ? 'withReplicaGauges' : 'infoOnly'] = f;
      ctx.log(`${label}: render p50 ${f.renderMs.p50.toFixed(1)} ms`);
    }
    return { summary, data };
  },
};

export default benchmark;
