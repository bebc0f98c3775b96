// 200 AnalysisRuns measuring at a 1 s interval against a real Prometheus (issue 7 §11): how far
// each measurement starts from its schedule (the previous start + interval), the controller's CPU
// and RSS while they run, and the queries per second Prometheus answers. Target: drift p99 under
// 100 ms.
import type { AnalysisRun } from '../../src/api/index.ts';
import { DemoApp } from '../demo-app/app.ts';
import { startPrometheus } from '../prometheus/server.ts';
import {
  clientFor,
  commandLine,
  controller,
  createNamespace,
  installCrds,
  productionRuntime,
} from './controller-support.ts';
import { ENTRY_PATHS } from '../e2e/support/controller.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 200);
const MEASUREMENTS = 30;
const INTERVAL_MS = 1000;
const NS = 'bench-analysis';
// 200 runs at 1 s write 200 statuses a second: above the default --qps 50 every write would
// queue, and 30 workers cannot cover writes that take the API server a few hundred ms each.
const CONTROLLER_FLAGS = (
  process.env['BENCH_FLAGS'] ?? '--qps=300 --burst=600 --analysis-workers=200'
).split(' ');
const API = '/apis/stepwise.dev/v1alpha1';

function run(name: string): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name },
    spec: {
      metrics: [
        {
          name: 'rate',
          interval: '1s',
          count: MEASUREMENTS,
          successCondition: 'len(result) == 0 || result[0] >= 0',
          provider: {
            prometheus: {
              query: `sum(rate(http_requests_total{rollouts_pod_template_hash="bench"}[10s]))`,
            },
          },
        },
      ],
    },
  };
}

const metric = (text: string, name: string): number =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );

const benchmark: Benchmark = {
  name: 'analysis',
  description: `${RUNS} AnalysisRuns at a 1 s interval against a real Prometheus`,
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    await createNamespace(http, NS);
    const app = new DemoApp();
    app.set('bench', { errorRate: 0.01, latencyMs: 20 });
    const prometheus = await startPrometheus({
      scrapeTargets: [{ job: 'bench', target: await app.listen() }],
    });
    process.env['STEPWISE_PROMETHEUS_ADDRESS'] = prometheus.url;
    // As it runs in production: compiled, with the Deployment's NODE_OPTIONS and env
    // (BENCH_NODE_FLAGS, BENCH_<NAME> compare others).
    const runtime = await productionRuntime();
    const ctl = await controller(
      ['--leader-elect=false', `--namespace=${NS}`, ...CONTROLLER_FLAGS],
      {
        entry: 'dist',
        ...runtime,
      },
    );
    try {
      const promQueries = async () =>
        metric(
          await (await fetch(`${prometheus.url}/metrics`)).text(),
          'prometheus_http_requests_total',
        );
      const sample = async () => {
        const text = await ctl.metrics();
        return {
          at: performance.now(),
          cpu: metric(text, 'process_cpu_seconds_total'),
          rss: metric(text, 'process_resident_memory_bytes'),
        };
      };
      const before = await sample();
      const queriesBefore = await promQueries();
      ctx.log(`  creating ${RUNS} AnalysisRuns of ${MEASUREMENTS} measurements each`);
      // Runs start when rollouts reach their analysis, not all in the same millisecond: with
      // BENCH_STAGGER=1 (default) their starts are spread over one interval; 0 starts them
      // together, so every second all of them measure and write at once (the worst case).
      const spread = process.env['BENCH_STAGGER'] === '0' ? 0 : INTERVAL_MS;
      await Promise.all(
        Array.from({ length: RUNS }, async (_, i) => {
          await new Promise((r) => setTimeout(r, (i * spread) / RUNS));
          await http.json('POST', `${API}/namespaces/${NS}/analysisruns`, run(`run-${i}`));
        }),
      );
      let peakRss = before.rss;
      let done = 0;
      while (done < RUNS) {
        await new Promise((r) => setTimeout(r, 1000));
        peakRss = Math.max(peakRss, (await sample()).rss);
        // From the API server's watch cache (resourceVersion=0): a quorum LIST of 200 growing
        // objects every second would be load of the bench's own on the server it measures.
        const list = await http.json<{ items: AnalysisRun[] }>(
          'GET',
          `${API}/namespaces/${NS}/analysisruns?resourceVersion=0`,
        );
        done = list.items.filter((r) => r.status?.phase === 'Successful').length;
        const failed = list.items.filter(
          (r) =>
            r.status?.phase !== undefined &&
            r.status.phase !== 'Successful' &&
            r.status.phase !== 'Running',
        );
        if (failed.length > 0) {
          throw new Error(
            `run ${failed[0]?.metadata.name} ended ${failed[0]?.status?.phase}: ${failed[0]?.status?.message}`,
          );
        }
        ctx.log(`  ${done}/${RUNS} runs done`);
      }
      const after = await sample();
      // Where the time goes: the status write each measurement makes, and the wait for a worker.
      const final = await ctl.metrics();
      const sumCount = (name: string, labels: string): [number, number] => [
        metric(final, `${name}_sum\\{${labels}\\}`),
        metric(final, `${name}_count\\{${labels}\\}`),
      ];
      const [applySum, applyCount] = sumCount(
        'controller_clientset_k8s_request_duration_seconds',
        'verb="apply",resource="analysisruns.stepwise.dev/status"',
      );
      const [queueSum, queueCount] = sumCount(
        'workqueue_queue_duration_seconds',
        'name="analysisrun"',
      );
      const queries = (await promQueries()) - queriesBefore;
      const seconds = (after.at - before.at) / 1000;
      const list = await http.json<{ items: AnalysisRun[] }>(
        'GET',
        `${API}/namespaces/${NS}/analysisruns`,
      );
      // Drift is against the schedule the evaluator keeps (Argo's): the next measurement is due
      // `interval` after the previous one finished. Start to start also counts the query time.
      const drift: number[] = [];
      const startToStart: number[] = [];
      const queryMs: number[] = [];
      for (const r of list.items) {
        const ms = r.status?.metricResults?.[0]?.measurements ?? [];
        for (let i = 1; i < ms.length; i++) {
          const start = Date.parse(ms[i]?.startedAt ?? '');
          drift.push(start - Date.parse(ms[i - 1]?.finishedAt ?? '') - INTERVAL_MS);
          startToStart.push(start - Date.parse(ms[i - 1]?.startedAt ?? '') - INTERVAL_MS);
        }
        for (const m of ms)
          queryMs.push(Date.parse(m.finishedAt ?? '') - Date.parse(m.startedAt ?? ''));
      }
      // What the controller complained about while it ran (a failed write backs a run off).
      const complaints = new Map<string, number>();
      for (const l of ctl.logs) {
        if (l.level !== 'warn' && l.level !== 'error') continue;
        const what = `${l.level} ${l.msg}${typeof l.error === 'string' ? `: ${l.error.slice(0, 120)}` : ''}`;
        complaints.set(what, (complaints.get(what) ?? 0) + 1);
      }
      for (const [what, n] of complaints) ctx.log(`  controller ${n}× ${what}`);
      if (process.env['BENCH_LOG']) {
        const { writeFile } = await import('node:fs/promises');
        await writeFile(
          process.env['BENCH_LOG'],
          ctl.logs.map((l) => JSON.stringify(l)).join('\n'),
        );
      }
      const s = stats(drift);
      const s2s = stats(startToStart);
      const q = stats(queryMs);
      const cpuPercent = ((after.cpu - before.cpu) / seconds) * 100;
      const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
      return {
        summary: [
          `production path: ${commandLine(runtime, ENTRY_PATHS.dist, CONTROLLER_FLAGS)}`,
          formatStats('start drift vs schedule (previous finish + 1 s)', s),
          `target: drift p99 < 100 ms → ${s.p99 < 100 ? 'met' : 'NOT met'} (runs started ${spread > 0 ? 'spread over one interval; BENCH_STAGGER=0 starts them together, the worst case' : 'together (BENCH_STAGGER=0): every second all measure and write at once'})`,
          formatStats('start to start − 1 s (drift + query time)', s2s),
          formatStats('measurement (Prometheus query) duration', q),
          `controller CPU ${cpuPercent.toFixed(0)}% of one core over ${seconds.toFixed(0)} s; RSS ${mb(before.rss)} before, peak ${mb(peakRss)}`,
          `Prometheus answered ${(queries / seconds).toFixed(0)} requests/s (${RUNS} runs × 1/s asked)`,
          `status write (SSA) mean ${((applySum / applyCount) * 1000).toFixed(0)} ms over ${applyCount}; wait for a worker mean ${((queueSum / queueCount) * 1000).toFixed(0)} ms`,
        ],
        data: {
          machine: machine(),
          runs: RUNS,
          measurements: MEASUREMENTS,
          drift: s,
          startToStartMinusInterval: s2s,
          measurementMs: q,
          cpuPercent,
          rssBeforeBytes: before.rss,
          rssPeakBytes: peakRss,
          prometheusRequestsPerSecond: queries / seconds,
          seconds,
          statusWriteMeanMs: (applySum / applyCount) * 1000,
          queueWaitMeanMs: (queueSum / queueCount) * 1000,
          flags: CONTROLLER_FLAGS,
          staggeredMs: spread,
        },
      };
    } finally {
      await ctl.kill();
      await prometheus.stop();
      await app.close();
    }
  },
};

export default benchmark;
