// Idle CPU side by side with Argo Rollouts' controller (issue 24 item 4): 50 settled Rollouts
// each, Argo's v1.9.2 controller (built from its Go module, test/cluster/argo/build.sh) confined
// to one namespace and Stepwise's production bundle confined to another, on this benchmark's
// own cluster; once both are quiet, each process's user+system CPU over the same window
// (BENCH_IDLE_SECONDS, 60 by default), with the API requests each made in it and both RSS.
import { createServer } from 'node:net';
import {
  clientFor,
  commandLine,
  controller,
  createNamespace,
  diffCounts,
  installCrds,
  productionRuntime,
  requestsByVerb,
  rollout,
  ROLLOUTS,
} from './controller-support.ts';
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
 * How long both must have made no API request before the window opens: Stepwise's quiet period
 * (--reclaim-memory-after, 10 s: its one idle-time collection happens then, not in the window)
 * plus 5 s. Argo has no quiet-time work of its own; the same wait covers its last status writes.
 */
const QUIET_MS = 15_000;
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

      // Both scraped at both ends of the window (their cost is in the window for both alike).
      const before = {
        stepwise: requestsByVerb(await stepwise.metrics()),
        argo: requestsByVerb(await argoMetrics()),
        argoLogLines: argo.logs.length,
        stepwiseLogLines: stepwise.logs.length,
      };
      const cpu0 = { stepwise: await cpuSeconds(stepwise.pid), argo: await cpuSeconds(argo.pid) };
      const woke0 = {
        stepwise: await contextSwitches(stepwise.pid),
        argo: await contextSwitches(argo.pid),
      };
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
      const cpu1 = { stepwise: await cpuSeconds(stepwise.pid), argo: await cpuSeconds(argo.pid) };
      const woke1 = {
        stepwise: await contextSwitches(stepwise.pid),
        argo: await contextSwitches(argo.pid),
      };
      const minutes = (performance.now() - t0) / 60_000;
      const after = {
        stepwise: requestsByVerb(await stepwise.metrics()),
        argo: requestsByVerb(await argoMetrics()),
      };
      const rss = { stepwise: await procStatus(stepwise.pid), argo: await procStatus(argo.pid) };
      const perMinute = {
        stepwise: (cpu1.stepwise - cpu0.stepwise) / minutes,
        argo: (cpu1.argo - cpu0.argo) / minutes,
      };
      // What wakes each: context switches of all its threads, per second of the window.
      const wakeups = {
        stepwise: (woke1.stepwise - woke0.stepwise) / (minutes * 60),
        argo: (woke1.argo - woke0.argo) / (minutes * 60),
      };
      const requests = {
        stepwise: diffCounts(before.stepwise, after.stepwise),
        argo: diffCounts(before.argo, after.argo),
      };
      const logLines = {
        stepwise: stepwise.logs.length - before.stepwiseLogLines,
        argo: argo.logs.length - before.argoLogLines,
      };
      const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;
      const ratio = perMinute.argo > 0 ? perMinute.stepwise / perMinute.argo : NaN;
      const did = (r: Map<string, number>, lines: number, woke: number): string =>
        `${describeRequests(r)}; ${lines} log lines; ${woke.toFixed(1)} context switches/s (all threads)`;
      return {
        summary: [
          `Stepwise: ${commandLine(runtime, ENTRY_PATHS.dist, stepwiseArgs)}`,
          `Argo: rollouts-controller --namespaced --namespace=${ARGO_NS} --leader-elect=false --loglevel=info (v1.9.2)`,
          `${ROLLOUT_COUNT} Rollouts each (1 replica, canary without steps) Healthy in ${settleSeconds.toFixed(1)} s, then quiet (no API request from either for ${QUIET_MS / 1000} s) after ${quietSeconds.toFixed(1)} s`,
          `idle CPU over the same ${(minutes * 60).toFixed(1)} s (user+system, /proc/<pid>/stat):`,
          `  Stepwise ${perMinute.stepwise.toFixed(3)} s/min, Argo ${perMinute.argo.toFixed(3)} s/min: Stepwise/Argo ${ratio.toFixed(2)}×`,
          `RSS at the end: Stepwise ${mb(rss.stepwise.rssKb)}, Argo ${mb(rss.argo.rssKb)}`,
          `in the window: Stepwise ${did(requests.stepwise, logLines.stepwise, wakeups.stepwise)}`,
          `               Argo ${did(requests.argo, logLines.argo, wakeups.argo)}`,
        ],
        data: {
          machine: machine(),
          rollouts: ROLLOUT_COUNT,
          windowSeconds: minutes * 60,
          settleSeconds,
          quietSeconds,
          stepwiseCpuSecondsPerMinute: perMinute.stepwise,
          argoCpuSecondsPerMinute: perMinute.argo,
          stepwiseOverArgo: ratio,
          stepwiseRssBytes: rss.stepwise.rssKb * 1024,
          argoRssBytes: rss.argo.rssKb * 1024,
          stepwiseRequests: Object.fromEntries(requests.stepwise),
          argoRequests: Object.fromEntries(requests.argo),
          stepwiseLogLines: logLines.stepwise,
          argoLogLines: logLines.argo,
          stepwiseContextSwitchesPerSecond: wakeups.stepwise,
          argoContextSwitchesPerSecond: wakeups.argo,
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

/** Seconds until neither controller's request counter has moved for QUIET_MS. */
async function bothQuiet(...scrapes: (() => Promise<string>)[]): Promise<number> {
  const started = Date.now();
  let last = '';
  let since = Date.now();
  for (;;) {
    const now = JSON.stringify(
      await Promise.all(scrapes.map(async (s) => [...requestsByVerb(await s())])),
    );
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= QUIET_MS) return (Date.now() - started) / 1000;
    if (Date.now() - started > 5 * 60_000) throw new Error('still making requests after 5 min');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function describeRequests(r: Map<string, number>): string {
  const total = [...r.values()].reduce((a, b) => a + b, 0);
  const parts = [...r].map(([verb, n]) => `${verb} ${n}`).join(', ');
  return total === 0 ? 'no API requests' : `${total} API requests (${parts})`;
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
