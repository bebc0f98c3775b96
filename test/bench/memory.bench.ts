// The controller's memory as it runs in production (compiled dist/, `make build`): idle with no
// Rollouts (target < 80 MB), the peak while 1,000 Rollouts are created (< 200 MB) and the steady
// state once they are Healthy (< 150 MB), each with one pod on the kwok nodes so every cache the
// controller keeps is populated. It runs as the Deployment does (NODE_OPTIONS and env in
// deploy/controller/controller.yaml, the one place they are chosen); BENCH_NODE_FLAGS and
// BENCH_<NAME> compare others ("" for none). The controller's CPU time is printed beside, as flags trade one for other.
// Idle CPU (issue 24): with the first 50 Rollouts settled, the controller's CPU over a quiet
// minute (the side-by-side with Argo Rollouts' controller is `make bench BENCH=idle-cpu`).
// BENCH_MEMORY_ROLLOUTS=50 stops there, for a quick look.
import type { Rollout } from '../../src/api/index.ts';
import {
  clientFor,
  commandLine,
  controller,
  createNamespace,
  installCrds,
  productionRuntime,
  rollout,
  ROLLOUTS,
} from './controller-support.ts';
import { cacheSpecs } from '../../src/controller/informers.ts';
import type { KubeObject } from '../../src/kube/objects.ts';
import { ENTRY_PATHS, type ControllerEntry } from '../e2e/support/controller.ts';
import { cacheFootprints, cacheSample } from './cache-footprint.ts';
import { machine, type Benchmark } from './harness.ts';
import { cpuSeconds, procStatus } from './proc-stat.ts';

const ROLLOUTS_TOTAL = rolloutsTotal(process.env['BENCH_MEMORY_ROLLOUTS']);
const NAMESPACES = 10;
const IN_FLIGHT = 20;
/** Settled Rollouts during the idle-CPU minute, as in the issue's side-by-side run. */
const IDLE_CPU_ROLLOUTS = 50;
const IDLE_CPU_WINDOW_MS = 60_000;
/** The controller's quiet period (memory-reclaim.ts, 10 s) plus the last events' writes. */
const SETTLE_MS = 15_000;

const benchmark: Benchmark = {
  name: 'memory',
  description: `controller RSS with ${ROLLOUTS_TOTAL} Rollouts in steady state`,
  async run(ctx) {
    // Its own cluster: objects earlier benchmarks left would sit in the idle controller's caches.
    const cluster = await ctx.ownCluster();
    const http = clientFor(cluster);
    await installCrds(http);
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-mem-${i}`);
    for (const ns of namespaces) await createNamespace(http, ns);
    const runtime = await productionRuntime();
    // BENCH_ENTRY=modules (tsc's dist/ unbundled) or source (type stripping) weighs those ways
    // of loading the same code against the production bundle.
    const entry = benchEntry(process.env['BENCH_ENTRY']);
    const ctl = await controller(['--leader-elect=false'], { entry, ...runtime });
    // Idle: caches synced, nothing to do, and the controller's quiet period (10 s) behind it.
    await new Promise((r) => setTimeout(r, 15_000));
    const idle = await procStatus(ctl.pid);
    const idleHeap = v8Figures(await ctl.metrics());
    const synced = ctl.logs.find((l) => l.msg === 'caches synced') ?? {};
    const cachedAtIdle = Object.entries(synced)
      .filter(([, v]) => typeof v === 'number')
      .reduce((n, [, v]) => n + Number(v), 0);
    const idleCpu = await cpuSeconds(ctl.pid);
    const names = Array.from({ length: ROLLOUTS_TOTAL }, (_, i) => ({
      ns: namespaces[i % NAMESPACES] ?? '',
      name: `m-${i}`,
    }));
    const createAndSettle = async (from: number, to: number, started: number): Promise<void> => {
      let next = from;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < to) {
            const item = names[next++];
            if (item)
              await http.json(
                'POST',
                `${ROLLOUTS}/namespaces/${item.ns}/rollouts`,
                rollout(item.name),
              );
          }
        }),
      );
      ctx.log(`  created ${to - from} Rollouts; waiting until all ${to} are Healthy`);
      for (;;) {
        let healthy = 0;
        for (const ns of namespaces) {
          const list = await http.json<{ items: Rollout[] }>(
            'GET',
            `${ROLLOUTS}/namespaces/${ns}/rollouts`,
          );
          healthy += list.items.filter((r) => r.status?.phase === 'Healthy').length;
        }
        if (healthy === to) break;
        ctx.log(`  ${healthy}/${to} Healthy`);
        if (Date.now() - started > 15 * 60_000)
          throw new Error(`only ${healthy} Healthy after 15 minutes`);
        await new Promise((r) => setTimeout(r, 5000));
      }
    };
    // Idle CPU: the first Rollouts settled, then a minute in which nothing happens to them.
    const idleFirst = Math.min(IDLE_CPU_ROLLOUTS, ROLLOUTS_TOTAL);
    const firstStarted = Date.now();
    await createAndSettle(0, idleFirst, firstStarted);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const idleStart = { cpu: await cpuSeconds(ctl.pid), at: performance.now() };
    await new Promise((r) => setTimeout(r, IDLE_CPU_WINDOW_MS));
    const idleWindowCpu = (await cpuSeconds(ctl.pid)) - idleStart.cpu;
    const idleCpuPerMinute = (idleWindowCpu * 60_000) / (performance.now() - idleStart.at);
    ctx.log(`  idle CPU with ${idleFirst} settled Rollouts: ${idleCpuPerMinute.toFixed(2)} s/min`);
    const started = Date.now();
    await createAndSettle(idleFirst, ROLLOUTS_TOTAL, started);
    const settleSeconds = (Date.now() - started) / 1000;
    // Steady state: let the last events and status writes finish, then let the GC run.
    await new Promise((r) => setTimeout(r, 30_000));
    const metrics = await ctl.metrics();
    const rssMetric = Number(/^process_resident_memory_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN);
    const steadyHeap = v8Figures(metrics);
    const heapMetric = steadyHeap.used;
    const reclaims = /^stepwise_memory_reclaim_seconds_count (\S+)$/m.exec(metrics)?.[1] ?? '0';
    const reclaimSeconds = /^stepwise_memory_reclaim_seconds_sum (\S+)$/m.exec(metrics)?.[1] ?? '0';
    const steady = await procStatus(ctl.pid);
    const vmRssKb = steady.rssKb;
    // From the first create on, without the idle minute (whose CPU is reported above).
    const cpu = (await cpuSeconds(ctl.pid)) - idleCpu - idleWindowCpu;
    if (process.env.STEPWISE_BENCH_HEAP) {
      process.kill(ctl.pid ?? 0, 'SIGUSR2');
      const line = await ctl.waitForLog((l) => l.msg === 'heap snapshot written', 120_000);
      ctx.log(`  heap snapshot: ${String(line.file)}`);
    }
    await ctl.stop();
    const sampleOf = async (path: string): Promise<KubeObject> => {
      const list = await http.json<{ items: KubeObject[] }>('GET', `${path}?limit=1`);
      const item = list.items[0];
      if (!item) throw new Error(`nothing at ${path} to measure`);
      return item;
    };
    const ns0 = namespaces[0] ?? '';
    // Through the controller's own informer table: the same transforms and indexes.
    const specs = cacheSpecs(undefined);
    const footprints = await cacheFootprints([
      cacheSample(specs.rollouts, await sampleOf(`${ROLLOUTS}/namespaces/${ns0}/rollouts`)),
      cacheSample(specs.replicaSets, await sampleOf(`/apis/apps/v1/namespaces/${ns0}/replicasets`)),
      cacheSample(specs.pods, await sampleOf(`/api/v1/namespaces/${ns0}/pods`)),
    ]);
    http.close();
    const mb = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MB`;
    const target = (kb: number, limitMb: number) =>
      `${mb(kb * 1024)} (target < ${limitMb} MB: ${kb / 1024 < limitMb ? 'met' : 'NOT met'}, ${(kb / 1024 / limitMb).toFixed(2)}× of it)`;
    return {
      summary: [
        `${entry === 'dist' ? 'production path' : `NOT the production path (BENCH_ENTRY=${entry})`}: ${commandLine(runtime, ENTRY_PATHS[entry])}`,
        `idle, no Rollouts (${cachedAtIdle} objects cached): RSS ${target(idle.rssKb, 80)}`,
        `  V8 heap used ${mb(idleHeap.used)} of ${mb(idleHeap.total)}, external ${mb(idleHeap.external)}`,
        `idle CPU, ${idleFirst} settled Rollouts: ${idleCpuPerMinute.toFixed(2)} s per minute (user+system, /proc/<pid>/stat; beside Argo Rollouts' controller: the idle-cpu bench)`,
        `${ROLLOUTS_TOTAL - idleFirst} more Rollouts (1 replica each) created and all ${ROLLOUTS_TOTAL} Healthy in ${settleSeconds.toFixed(1)} s`,
        `peak RSS while they were created: ${target(steady.hwmKb, 200)} (VmHWM)`,
        `steady state: RSS ${target(vmRssKb, 150)} (process_resident_memory_bytes ${mb(rssMetric)})`,
        `  V8 heap used ${mb(steadyHeap.used)} of ${mb(steadyHeap.total)}, external ${mb(steadyHeap.external)}`,
        `idle-time memory reclaims: ${reclaims}, ${(Number(reclaimSeconds) * 1000).toFixed(0)} ms in all`,
        ...footprints.map(
          (f) =>
            `cache ${f.cache}: ${(f.heapBytes / 1024).toFixed(1)} KB of heap per object (${(f.wireBytes / 1024).toFixed(1)} KB on the wire), ${mb(f.heapBytes * ROLLOUTS_TOTAL)} for ${ROLLOUTS_TOTAL}`,
        ),
        `controller CPU from the first create to the steady state, the idle minute left out: ${cpu.toFixed(1)} s (${((cpu / ROLLOUTS_TOTAL) * 1000).toFixed(1)} ms per Rollout)`,
      ],
      data: {
        machine: machine(),
        rollouts: ROLLOUTS_TOTAL,
        nodeFlags: runtime.nodeFlags,
        env: runtime.env,
        entry,
        idleRssBytes: idle.rssKb * 1024,
        peakRssBytes: steady.hwmKb * 1024,
        settleSeconds,
        idleCpuRollouts: idleFirst,
        idleCpuSecondsPerMinute: idleCpuPerMinute,
        vmRssBytes: vmRssKb * 1024,
        rssBytes: rssMetric,
        heapUsedBytes: heapMetric,
        cpuSeconds: cpu,
        cacheFootprints: footprints,
      },
    };
  },
};
export default benchmark;

function rolloutsTotal(value: string | undefined): number {
  if (value === undefined || value === '') return 1000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_MEMORY_ROLLOUTS=${value}: a count`);
  return n;
}

function benchEntry(value: string | undefined): ControllerEntry {
  if (value === undefined || value === '') return 'dist';
  if (value in ENTRY_PATHS) return value as ControllerEntry;
  throw new Error(`BENCH_ENTRY=${value}: one of ${Object.keys(ENTRY_PATHS).join(', ')}`);
}

/** process.memoryUsage() as the controller's /metrics reports it (prom-client's default metrics). */
function v8Figures(metrics: string): { used: number; total: number; external: number } {
  const read = (name: string): number =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  return {
    used: read('nodejs_heap_size_used_bytes'),
    total: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
  };
}
