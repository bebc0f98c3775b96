// How long the local control plane takes to start (cold: binaries not in the page cache;
// warm: right after another start), and the API server's latency floor on this machine.
// Every start uses a fresh data dir, so both include etcd's and the apiserver's bootstrap.
import { join } from 'node:path';
import { CONTROL_PLANE_BINARIES } from '../cluster/binaries.ts';
import { startCluster } from '../cluster/cluster.ts';
import { measureApiFloor } from './api-floor.ts';
import { formatStats, machine, type BenchContext, type Benchmark } from './harness.ts';
import { cachedBytes, evictFromPageCache } from './page-cache.ts';

const WARM_RUNS = 3;
const FLOOR_SAMPLES = 300;
const MB = 2 ** 20;

async function timedStart(ctx: BenchContext) {
  const cluster = await startCluster({ binDir: ctx.binDir, log: () => undefined });
  const timings = { ...cluster.timings };
  const stopStarted = performance.now();
  await cluster.stop();
  return { timings, stopMs: Math.round(performance.now() - stopStarted) };
}

const seconds = (ms: number | undefined) => `${((ms ?? NaN) / 1000).toFixed(2)} s`;

const benchmark: Benchmark = {
  name: 'control-plane',
  description: 'control-plane start times and the API server latency floor',
  async run(ctx) {
    const binaries = CONTROL_PLANE_BINARIES.map((b) => join(ctx.binDir, b));
    await evictFromPageCache(binaries);
    const cachedBeforeCold = await cachedBytes(binaries);
    ctx.log(`cold start (binaries in page cache: ${mb(cachedBeforeCold)})...`);
    const cold = await timedStart(ctx);

    const warm = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      ctx.log(`warm start ${i + 1}/${WARM_RUNS}...`);
      warm.push(await timedStart(ctx));
    }
    const warmTotals = warm.map((w) => w.timings.ready ?? NaN).sort((a, b) => a - b);
    const warmMedian = warmTotals[Math.floor(warmTotals.length / 2)];

    ctx.log(`API server floor (${FLOOR_SAMPLES} sequential samples per figure)...`);
    const floor = await measureApiFloor(await ctx.cluster(), FLOOR_SAMPLES);

    const summary = [
      `cold start (fresh data dir, ${mb(cachedBeforeCold)} of binaries cached)`.padEnd(56) +
        seconds(cold.timings.ready),
      `  etcd ${seconds(cold.timings['etcd /health'])}, apiserver ready ${seconds(cold.timings['kube-apiserver /readyz'])}`,
      `warm start, median of ${WARM_RUNS}`.padEnd(56) +
        `${seconds(warmMedian)}  (runs: ${warmTotals.map(seconds).join(', ')})`,
      `stop`.padEnd(56) + `${seconds(warm[0]?.stopMs)}`,
      formatStats('ConfigMap create (round trip)', floor.createConfigMap),
      formatStats('ConfigMap get (round trip)', floor.getConfigMap),
      formatStats('ConfigMap server-side apply (round trip)', floor.applyConfigMap),
      formatStats('watch event, from request start', floor.watchEventFromRequestStart),
      formatStats('watch event, after the create response', floor.watchEventAfterResponse),
      `floor: watch event + write, p50`.padEnd(44) + ` ${floor.watchPlusWriteP50Ms.toFixed(2)} ms`,
      `floor: watch event + write, p99`.padEnd(44) + ` ${floor.watchPlusWriteP99Ms.toFixed(2)} ms`,
    ];
    return {
      summary,
      data: {
        benchmark: 'control-plane',
        measuredAt: new Date().toISOString(),
        machine: machine(),
        binDir: ctx.binDir,
        start: {
          note:
            'ms from startCluster() to each milestone; every start has a fresh data dir. ' +
            'Cold = binaries evicted from the page cache first (pages mapped by other running ' +
            'processes cannot be evicted: see binariesCachedBytes).',
          cold: { ...cold, binariesCachedBytes: cachedBeforeCold ?? null },
          warm,
          warmMedianMs: warmMedian,
        },
        floor,
      },
    };
  },
};

function mb(bytes: number | undefined): string {
  return bytes === undefined ? 'unknown' : `${(bytes / MB).toFixed(0)} MB`;
}

export default benchmark;
