// Idle CPU side by side with Argo Rollouts' controller (issue 24 item 4): 50 settled Rollouts
// each, Argo's v1.9.2 controller (built from its Go module, test/cluster/argo/build.sh) confined
// to one namespace and Stepwise's production bundle confined to another, on this benchmark's
// own cluster; once both are quiet, each process's user+system CPU over the same window
// (BENCH_IDLE_SECONDS, 60 by default), both RSS, and what woke each in it: API requests,
// reconciles, work-queue adds, garbage collections, log lines and context switches.
import { createServer } from 'node:net';
import {
  clientFor,
  commandLine,
  controller,
  createNamespace,
  diffCounts,
  installCrds,
  metricSum,
  productionRuntime,
  requestsByVerb,
  rollout,
  ROLLOUTS,
} from './controller-support.ts';
import { SAMPLE_AFTER_WORK_MS } from '../../src/controller/event-loop-metrics.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import { ENTRY_PATHS } from '../e2e/support/controller.ts';
import { machine, type Benchmark } from './harness.ts';
import { contextSwitches, cpuSeconds, procStatus } from './proc-stat.ts';

const ROLLOUT_COUNT = 50;
const ARGO_NS = 'bench-idle-argo';
const STEPWISE_NS = 'bench-idle-stepwise';
const IN_FLIGHT = 10;
const WINDOW_SECONDS = windowSeconds(process.env['BENCH_IDLE_SECONDS']);
/**
 * How long neither may make an API request or add to its work queue before the window opens:
 * Stepwise's quiet periods (event-loop delay sampled for SAMPLE_AFTER_WORK_MS, 30 s, after the
 * last work; the idle-time memory reclaim after 10 s) plus 5 s. Argo has no quiet-time work of
 * its own; the same wait covers its last status writes.
 */
const QUIET_MS = SAMPLE_AFTER_WORK_MS + 5_000;
const HEALTHY_TIMEOUT_MS = 10 * 60_000;

const benchmark: Benchmark = {
  name: 'idle-cpu',
  description: `idle CPU beside Argo Rollouts' controller, ${ROLLOUT_COUNT} settled Rollouts each, ${WINDOW_SECONDS} s`,
  async run(ctx) {
    // Its own cluster: nothing another benchmark left behind is watched or written meanwhile.
    const cluster = await ctx.ownCluster();
    const http = clientFor(cluster);
    // The e2e support's client reads KUBECONFIG when its module loads, which clientFor just set.
    const { ARGO_API, argoDir, startArgo } = await import('../e2e/support/argo.ts');
    ctx.log(`  Argo's controller: ${argoDir()}/rollouts-controller`);
    await installCrds(http);
    for (const ns of [ARGO_NS, STEPWISE_NS]) await createNamespace(http, ns);
    const runtime = await productionRuntime();
    const stepwiseArgs = [
      `--namespace=${STEPWISE_NS}`,
      '--namespaced',
      '--leader-elect=false',
      '--log-level=info',
    ];
    const stepwise = await controller(stepwiseArgs, { entry: 'dist', ...runtime });
    const argoMetricsPort = await freePort();
    const argo = await startArgo(ARGO_NS, { metricsPort: argoMetricsPort });
    const argoMetrics = async (): Promise<string> =>
      (await fetch(`http://127.0.0.1:${argoMetricsPort}/metrics`)).text();
    try {
      const argoPaths = { api: ARGO_API, ns: ARGO_NS };
      const stepwisePaths = { api: ROLLOUTS, ns: STEPWISE_NS };
      const started = Date.now();
      await Promise.all([
        createRollouts(http, argoPaths, 'argoproj.io/v1alpha1'),
        createRollouts(http, stepwisePaths, 'stepwise.dev/v1alpha1'),
      ]);
      ctx.log(
        `  created ${ROLLOUT_COUNT} Rollouts in each namespace; waiting until all are Healthy`,
      );
      for (;;) {
        const [a, s] = [await healthy(http, argoPaths), await healthy(http, stepwisePaths)];
        if (a === ROLLOUT_COUNT && s === ROLLOUT_COUNT) break;
        if (Date.now() - started > HEALTHY_TIMEOUT_MS) {
          throw new Error(
            `after ${HEALTHY_TIMEOUT_MS / 60_000} min: Argo ${a}, Stepwise ${s} Healthy`,
          );
        }
        ctx.log(`  Healthy: Argo ${a}/${ROLLOUT_COUNT}, Stepwise ${s}/${ROLLOUT_COUNT}`);
        await new Promise((r) => setTimeout(r, 2000));
      }
      const settleSeconds = (Date.now() - started) / 1000;
      ctx.log(`  all Healthy in ${settleSeconds.toFixed(1)} s; waiting for both to go quiet`);
      const quietSeconds = await bothQuiet(() => stepwise.metrics(), argoMetrics);
      ctx.log(`  quiet after ${quietSeconds.toFixed(1)} s; measuring ${WINDOW_SECONDS} s`);

      const sides: Side[] = [
        {
          name: 'Stepwise',
          pid: stepwise.pid,
          metrics: () => stepwise.metrics(),
          logLines: () => stepwise.logs.length,
          gcMetric: 'nodejs_gc_duration_seconds',
        },
        {
          name: 'Argo',
          pid: argo.pid,
          metrics: argoMetrics,
          logLines: () => argo.logs.length,
          gcMetric: 'go_gc_duration_seconds',
        },
      ];
      const before = await Promise.all(sides.map((side) => snapshot(side, false)));
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
      const after = await Promise.all(sides.map((side) => snapshot(side, true)));
      const seconds = (performance.now() - t0) / 1000;
      const [sw, ar] = (await Promise.all(
        sides.map((side, i) =>
          activity(side, before[i] as Snapshot, after[i] as Snapshot, seconds),
        ),
      )) as [Activity, Activity];
      const ratio = ar.cpuPerMinute > 0 ? sw.cpuPerMinute / ar.cpuPerMinute : NaN;
      const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;
      return {
        summary: [
          `Stepwise: ${commandLine(runtime, ENTRY_PATHS.dist, stepwiseArgs)}`,
          `Argo: rollouts-controller --namespaced --namespace=${ARGO_NS} --leader-elect=false --loglevel=info (v1.9.2)`,
          `${ROLLOUT_COUNT} Rollouts each (1 replica, canary without steps) Healthy in ${settleSeconds.toFixed(1)} s, then quiet (no API request or queue add from either for ${QUIET_MS / 1000} s) after ${quietSeconds.toFixed(1)} s`,
          `idle CPU over the same ${seconds.toFixed(1)} s (user+system, /proc/<pid>/stat, ticks of 10 ms):`,
          `  Stepwise ${sw.cpuPerMinute.toFixed(3)} s/min, Argo ${ar.cpuPerMinute.toFixed(3)} s/min: Stepwise/Argo ${ratio.toFixed(2)}×`,
          `RSS at the end: Stepwise ${mb(sw.rssKb)}, Argo ${mb(ar.rssKb)}`,
          'in the window:',
          ...[sw, ar].map((a) => `  ${a.name.padEnd(8)} ${describeActivity(a)}`),
        ],
        data: {
          machine: machine(),
          rollouts: ROLLOUT_COUNT,
          windowSeconds: seconds,
          settleSeconds,
          quietSeconds,
          stepwiseCpuSecondsPerMinute: sw.cpuPerMinute,
          argoCpuSecondsPerMinute: ar.cpuPerMinute,
          stepwiseOverArgo: ratio,
          stepwiseRssBytes: sw.rssKb * 1024,
          argoRssBytes: ar.rssKb * 1024,
          stepwise: { ...sw, requests: Object.fromEntries(sw.requests) },
          argo: { ...ar, requests: Object.fromEntries(ar.requests) },
          nodeFlags: runtime.nodeFlags,
          env: runtime.env,
        },
      };
    } finally {
      await Promise.all([stepwise.stop(), argo.stop()]);
      http.close();
    }
  },
};
export default benchmark;

async function createRollouts(
  http: KubeHttp,
  at: { api: string; ns: string },
  apiVersion: string,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < ROLLOUT_COUNT) {
        const body = { ...rollout(`idle-${next++}`), apiVersion };
        await http.json('POST', `${at.api}/namespaces/${at.ns}/rollouts`, body);
      }
    }),
  );
}

async function healthy(http: KubeHttp, at: { api: string; ns: string }): Promise<number> {
  const list = await http.json<{ items: { status?: { phase?: string } }[] }>(
    'GET',
    `${at.api}/namespaces/${at.ns}/rollouts`,
  );
  return list.items.filter((r) => r.status?.phase === 'Healthy').length;
}

/** Seconds until neither controller's request or work-queue counters have moved for QUIET_MS
 *  (a queue add without a request is an informer event, which also resets Stepwise's quiet
 *  period). */
async function bothQuiet(...scrapes: (() => Promise<string>)[]): Promise<number> {
  const started = Date.now();
  let last = '';
  let since = Date.now();
  for (;;) {
    const now = JSON.stringify(
      await Promise.all(
        scrapes.map(async (scrape) => {
          const m = await scrape();
          return [...requestsByVerb(m), metricSum(m, 'workqueue_adds_total')];
        }),
      ),
    );
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= QUIET_MS) return (Date.now() - started) / 1000;
    if (Date.now() - started > 5 * 60_000) throw new Error('still busy after 5 min');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** One controller process, as the window reads it. */
interface Side {
  readonly name: string;
  readonly pid: number | undefined;
  metrics(): Promise<string>;
  logLines(): number;
  /** Its runtime's garbage-collection metric, a histogram or summary of seconds (Node's: each
   *  collection's whole duration; Go's: only its stop-the-world pauses). */
  readonly gcMetric: string;
}

interface Snapshot {
  readonly cpuSeconds: number;
  readonly contextSwitches: number;
  readonly metrics: string;
  readonly logLines: number;
}

/**
 * CPU time, context switches, metrics and log length of one side. The scrape comes before the
 * /proc reads at the window's start and after them at its end (`end`), so the scrapes' own
 * cost falls outside the window on both sides alike.
 */
async function snapshot(side: Side, end: boolean): Promise<Snapshot> {
  const metrics = end ? '' : await side.metrics();
  const cpu = await cpuSeconds(side.pid);
  const switches = await contextSwitches(side.pid);
  const logLines = side.logLines();
  return {
    cpuSeconds: cpu,
    contextSwitches: switches,
    metrics: end ? await side.metrics() : metrics,
    logLines,
  };
}

/** What one controller did between two snapshots `seconds` apart. */
interface Activity {
  readonly name: string;
  readonly cpuPerMinute: number;
  /** Context switches of all its threads per second: about how often it woke. */
  readonly wakeupsPerSecond: number;
  readonly requests: Map<string, number>;
  readonly reconciles: number;
  readonly queueAdds: number;
  readonly gcs: number;
  readonly gcSeconds: number;
  /** Stepwise's idle-time memory reclaims (Argo has none). */
  readonly reclaims: number;
  readonly logLines: number;
  readonly rssKb: number;
}
async function activity(
  side: Side,
  before: Snapshot,
  after: Snapshot,
  seconds: number,
): Promise<Activity> {
  const delta = (name: string): number =>
    metricSum(after.metrics, name) - metricSum(before.metrics, name);
  return {
    name: side.name,
    cpuPerMinute: ((after.cpuSeconds - before.cpuSeconds) * 60) / seconds,
    wakeupsPerSecond: (after.contextSwitches - before.contextSwitches) / seconds,
    requests: diffCounts(requestsByVerb(before.metrics), requestsByVerb(after.metrics)),
    // Both export these under Argo's names: Stepwise keeps Argo's for one dashboard.
    reconciles: delta('rollout_reconcile_count'),
    queueAdds: delta('workqueue_adds_total'),
    gcs: delta(`${side.gcMetric}_count`),
    gcSeconds: delta(`${side.gcMetric}_sum`),
    reclaims: delta('stepwise_memory_reclaim_seconds_count'),
    logLines: after.logLines - before.logLines,
    rssKb: (await procStatus(side.pid)).rssKb,
  };
}

function describeActivity(a: Activity): string {
  const total = [...a.requests.values()].reduce((x, y) => x + y, 0);
  const parts = [...a.requests].map(([verb, n]) => `${verb} ${n}`).join(', ');
  return [
    `${a.cpuPerMinute.toFixed(3)} s CPU/min`,
    total === 0 ? 'no API requests' : `${total} API requests (${parts})`,
    `${a.reconciles} reconciles`,
    `${a.queueAdds} queue adds`,
    `${a.gcs} GCs (${(a.gcSeconds * 1000).toFixed(0)} ms${a.name === 'Argo' ? ' of pauses' : ''})`,
    ...(a.name === 'Stepwise' ? [`${a.reclaims} memory reclaims`] : []),
    `${a.logLines} log lines`,
    `${a.wakeupsPerSecond.toFixed(1)} context switches/s (all threads)`,
  ].join('; ');
}

/** A free TCP port for Argo's metrics server (Argo binds it on all interfaces). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function windowSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return 60;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`BENCH_IDLE_SECONDS=${value}: seconds`);
  return n;
}
