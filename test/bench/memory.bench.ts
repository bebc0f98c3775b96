// The controller's memory with 1,000 Rollouts in steady state (target: under 200 MB RSS), each
// with one pod on the kwok nodes, so every cache the controller keeps is populated.
import { readFile } from 'node:fs/promises';
import type { Rollout } from '../../src/api/index.ts';
import {
  clientFor,
  controller,
  createNamespace,
  installCrds,
  rollout,
  ROLLOUTS,
} from './controller-support.ts';
import { machine, type Benchmark } from './harness.ts';

const ROLLOUTS_TOTAL = 1000;
const NAMESPACES = 10;
const IN_FLIGHT = 20;

const benchmark: Benchmark = {
  name: 'memory',
  description: `controller RSS with ${ROLLOUTS_TOTAL} Rollouts in steady state`,
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-mem-${i}`);
    for (const ns of namespaces) await createNamespace(http, ns);
    const ctl = await controller(['--leader-elect=false']);
    const started = Date.now();
    const names = Array.from({ length: ROLLOUTS_TOTAL }, (_, i) => ({
      ns: namespaces[i % NAMESPACES] ?? '',
      name: `m-${i}`,
    }));
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < names.length) {
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
    ctx.log(
      `  created ${ROLLOUTS_TOTAL} Rollouts in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting until all are Healthy`,
    );
    for (;;) {
      let healthy = 0;
      for (const ns of namespaces) {
        const list = await http.json<{ items: Rollout[] }>(
          'GET',
          `${ROLLOUTS}/namespaces/${ns}/rollouts`,
        );
        healthy += list.items.filter((r) => r.status?.phase === 'Healthy').length;
      }
      if (healthy === ROLLOUTS_TOTAL) break;
      ctx.log(`  ${healthy}/${ROLLOUTS_TOTAL} Healthy`);
      if (Date.now() - started > 15 * 60_000)
        throw new Error(`only ${healthy} Healthy after 15 minutes`);
      await new Promise((r) => setTimeout(r, 5000));
    }
    const settleSeconds = (Date.now() - started) / 1000;
    // Steady state: let the last events and status writes finish, then let the GC run.
    await new Promise((r) => setTimeout(r, 30_000));
    const metrics = await ctl.metrics();
    const rssMetric = Number(/^process_resident_memory_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN);
    const heapMetric = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1] ?? NaN);
    const status = await readFile(`/proc/${ctl.pid}/status`, 'utf8').catch(() => '');
    const vmRssKb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
    if (process.env.STEPWISE_BENCH_HEAP) {
      process.kill(ctl.pid ?? 0, 'SIGUSR2');
      const line = await ctl.waitForLog((l) => l.msg === 'heap snapshot written', 120_000);
      ctx.log(`  heap snapshot: ${String(line.file)}`);
    }
    await ctl.stop();
    http.close();
    const mb = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MB`;
    return {
      summary: [
        `${ROLLOUTS_TOTAL} Rollouts (1 replica each) created and Healthy in ${settleSeconds.toFixed(1)} s`,
        `controller RSS in steady state: ${mb(vmRssKb * 1024)} (VmRSS; process_resident_memory_bytes ${mb(rssMetric)}), heap used ${mb(heapMetric)} (target < 200 MB)`,
      ],
      data: {
        machine: machine(),
        rollouts: ROLLOUTS_TOTAL,
        settleSeconds,
        vmRssBytes: vmRssKb * 1024,
        rssBytes: rssMetric,
        heapUsedBytes: heapMetric,
      },
    };
  },
};
export default benchmark;
