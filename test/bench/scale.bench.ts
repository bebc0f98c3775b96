// Issue 11, point 4: the controller at 10,000 Rollouts (BENCH_SCALE_ROLLOUTS) on the local control
// plane, one pod each on the kwok nodes (kwok gives a node 1M pods of capacity, so the three
// nodes hold them). Measured in one run, on one controller from dist/ (the production path): how
// long until all are Healthy, its API requests per second against --qps, its RSS (idle, peak,
// steady; target < 600 MB steady), and template change → canary ReplicaSet on one Rollout with
// the others settled, first at 50 Rollouts and then at the full count (target: within 2×), each
// next to the API server floor measured on the same cluster at that moment.
// Not in the default `make bench` list (run.ts): `make bench-scale`; smoke-test it with
// BENCH_SCALE_ROLLOUTS=500.
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import type { Rollout } from '../../src/api/index.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import { ENTRY_PATHS, type ControllerProcess } from '../e2e/support/controller.ts';
import { measureApiFloor, type ApiFloor } from './api-floor.ts';
import {
  canaryLatencies,
  clientFor,
  commandLine,
  controller,
  createNamespace,
  diffCounts,
  healthyAndPromoted,
  heapLimitMb,
  installCrds,
  nowMs,
  productionRuntime,
  quiet,
  rateLimiterWait,
  requestCounts,
  rollout,
  ROLLOUTS,
  sumBy,
  watchCollection,
  WRITE_VERBS,
  type Sample,
} from './controller-support.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const TOTAL = Number(process.env.BENCH_SCALE_ROLLOUTS ?? '10000');
const BASELINE = 50;
const PER_NAMESPACE = 100;
const IN_FLIGHT = 20;
// The controller's defaults, passed explicitly so the figures name the cap they ran under.
const QPS = 50;
const BURST = 100;
// 50, not 20: the p90 of 20 samples is their second largest, so one slow etcd write decides it.
const LATENCY_SAMPLES = 50;
// Past the controller's first quiet period (--reclaim-memory-after 10s), as in the memory bench.
const IDLE_SECONDS = 15;
const STEADY_SECONDS = 30;
const FLOOR_SAMPLES = 100;
const SAMPLE_EVERY_MS = 250;
const PROGRESS_EVERY_MS = 10_000;
const TIMEOUT_MINUTES = Number(process.env.BENCH_SCALE_TIMEOUT_MINUTES ?? '40');
const RSS_TARGET_MB = 600;
// USER_HZ, the unit of utime/stime in /proc/<pid>/stat, is 100 on every Linux we run on.
const CLOCK_TICKS = 100;

const benchmark: Benchmark = {
  name: 'scale',
  description: `${TOTAL} Rollouts: time to Healthy, API requests/s against --qps, RSS, canary latency at ${BASELINE} and at ${TOTAL}`,
  async run(ctx) {
    if (!Number.isInteger(TOTAL) || TOTAL <= BASELINE) {
      throw new Error(`BENCH_SCALE_ROLLOUTS must be an integer above ${BASELINE}, got ${TOTAL}`);
    }
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    const loadAtStart = loadavg();
    ctx.log(`API floor on the empty cluster (${FLOOR_SAMPLES} samples)...`);
    const floorEmpty = await measureApiFloor(cluster, FLOOR_SAMPLES);

    const namespaces = Array.from(
      { length: Math.ceil(TOTAL / PER_NAMESPACE) },
      (_, i) => `bench-scale-${i}`,
    );
    for (const ns of namespaces) await createNamespace(http, ns);
    const items = Array.from({ length: TOTAL }, (_, i) => ({
      ns: namespaces[Math.floor(i / PER_NAMESPACE)] ?? '',
      name: `s-${String(i).padStart(5, '0')}`,
    }));
    const probe = items[0] ?? { ns: '', name: '' };
    const tracker = await RolloutTracker.start(http, (l) => ctx.log(l));

    // The Deployment's NODE_OPTIONS and env (BENCH_NODE_FLAGS, BENCH_<NAME> compare others).
    const runtime = await productionRuntime();
    const heapLimit = heapLimitMb(runtime);
    const ctl = await controller(
      // Debug lines for 10,000 Rollouts would cost the controller CPU and this process memory.
      ['--leader-elect=false', '--log-level=info', `--qps=${QPS}`, `--burst=${BURST}`],
      { entry: 'dist', ...runtime },
    );
    // Scrapes /metrics 4 times a second, for the request rate while the Rollouts settle; only
    // then: at 10,000 Rollouts a scrape costs the controller's event loop tens of ms, which
    // Prometheus every 15 s does not, and the idle, steady and latency figures must not carry.
    let sampler: Sampler | undefined;
    try {
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      const idle = await procStatus(ctl.pid);

      ctx.log(`${BASELINE} Rollouts, then ${LATENCY_SAMPLES} template changes on ${probe.name}...`);
      let created = 0;
      const create = async (upTo: number): Promise<void> => {
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (created < upTo) {
              const item = items[created++];
              if (item)
                await http.json(
                  'POST',
                  `${ROLLOUTS}/namespaces/${item.ns}/rollouts`,
                  rollout(item.name),
                );
            }
          }),
        );
      };
      await create(BASELINE);
      await tracker.healthy(BASELINE, 5 * 60_000);
      await quiet(ctl);
      const small = await canaryLatencies(http, ctl, probe, LATENCY_SAMPLES, 2);
      const floorSmall = await measureApiFloor(cluster, FLOOR_SAMPLES);

      ctx.log(`creating the other ${TOTAL - BASELINE} Rollouts; progress every 10 s`);
      const cpuBefore = await cpuSeconds(cluster, ctl);
      const waitedBefore = rateLimiterWait(await ctl.metrics());
      const bulkStart = nowMs();
      const bulkSampler = (sampler = new Sampler(ctl));
      let createdAt = 0;
      const creating = create(TOTAL).then(() => (createdAt = nowMs()));
      let lastProgress = bulkSampler.latest();
      const progress = setInterval(() => {
        const now = bulkSampler.latest();
        const rate =
          now && lastProgress
            ? (now.requests - lastProgress.requests) / ((now.at - lastProgress.at) / 1000)
            : 0;
        lastProgress = now;
        const c = tracker.counts();
        ctx.log(
          `  ${((nowMs() - bulkStart) / 1000).toFixed(0)} s: created ${created}/${TOTAL}, ` +
            `Healthy ${c.healthy}/${TOTAL} (${c.progressing} other phases, ${c.noStatus} without status); ` +
            `controller ${rate.toFixed(1)} requests/s (qps ${QPS}), RSS ${bulkSampler.rssMb.toFixed(0)} MB; ` +
            `load ${loadavg()[0]?.toFixed(2)}`,
        );
      }, PROGRESS_EVERY_MS);
      let settled = true;
      try {
        await creating;
        await tracker.healthy(TOTAL, TIMEOUT_MINUTES * 60_000 - (nowMs() - bulkStart));
      } catch (err) {
        settled = false;
        ctx.log(`  not settled: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearInterval(progress);
        bulkSampler.stop();
      }
      const bulkEnd = nowMs();
      const cpuAfter = await cpuSeconds(cluster, ctl);
      const settle = rateFigures(
        bulkSampler.samples,
        waitedBefore,
        rateLimiterWait(await ctl.metrics()),
      );
      const bulkSeconds = (bulkEnd - bulkStart) / 1000;
      const cpu = Object.entries(cpuAfter).map(
        ([k, v]) => [k, Math.round((v - (cpuBefore[k] ?? 0)) * 10) / 10] as const,
      );
      const loadSettled = loadavg();

      const summary: string[] = [
        `production path: ${commandLine(runtime, ENTRY_PATHS.dist, [`--qps ${QPS}`, `--burst ${BURST}`])}; ` +
          `${TOTAL} Rollouts (1 replica each) in ${namespaces.length} namespaces, 3 kwok nodes`,
        `load average (1/5/15 min; the machine is shared): ${fmtLoad(loadAtStart)} at start, ${fmtLoad(loadSettled)} when settled`,
      ];
      const data: Record<string, unknown> = {
        machine: machine(),
        rollouts: TOTAL,
        baseline: BASELINE,
        qps: QPS,
        burst: BURST,
        nodeFlags: runtime.nodeFlags,
        env: runtime.env,
        loadAverage: { start: loadAtStart, settled: loadSettled },
        settled,
        bulkSeconds: round1(bulkSeconds),
        createSeconds: createdAt ? round1((createdAt - bulkStart) / 1000) : undefined,
        requests: settle,
        cpuSecondsWhileSettling: Object.fromEntries(cpu),
        idleRssBytes: idle.rssKb * 1024,
        floor: { empty: floorEmpty.watchPlusWriteP50Ms, baseline: floorSmall.watchPlusWriteP50Ms },
        canaryReplicaSetMs: { baseline: stats(small) },
      };
      const cpuLine =
        `CPU seconds meanwhile (${bulkSeconds.toFixed(0)} s wall, ${(2 * bulkSeconds).toFixed(0)} CPU-s on 2 cores): ` +
        cpu.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
      const atCap = Math.max(0, settle.requests - BURST) / QPS;
      const rateLines = [
        `controller API requests: ${settle.requests} (${(settle.requests / (TOTAL - BASELINE)).toFixed(1)} per Rollout), ` +
          `mean ${settle.meanPerSecond.toFixed(1)}/s = ${(settle.meanPerSecond / QPS).toFixed(2)}× qps ${QPS}`,
        `  requests/s over 1 s windows after the first 2 s: p50 ${settle.p50PerSecond} (${(settle.p50PerSecond / QPS).toFixed(2)}× qps), ` +
          `max ${settle.maxPerSecondAfterTwo}; max in any 1 s ${settle.maxPerSecond} (burst + qps ${BURST + QPS}: ${(settle.maxPerSecond / (BURST + QPS)).toFixed(2)}×)`,
        `  at the cap these requests need ${atCap.toFixed(0)} s ((requests − burst) / qps: ${((atCap / bulkSeconds) * 100).toFixed(0)} % of the time taken); ` +
          `${settle.limiterWait.requests} requests waited for the rate limiter, mean ` +
          `${((settle.limiterWait.seconds / Math.max(1, settle.limiterWait.requests)) * 1000).toFixed(0)} ms each`,
      ];
      if (!settled) {
        const c = tracker.counts();
        summary.push(
          `NOT settled: ${c.healthy}/${TOTAL} Healthy after ${bulkSeconds.toFixed(0)} s ` +
            `(created ${created}; ${c.progressing} in other phases, ${c.noStatus} without status)`,
          ...c.messages.map(([m, n]) => `  ${n} × ${m}`),
          ...rateLines,
          cpuLine,
          `peak RSS (VmHWM) ${mb((await procStatus(ctl.pid)).hwmKb * 1024)}`,
        );
        return { summary, data };
      }

      ctx.log(`all ${TOTAL} Healthy; steady state for ${STEADY_SECONDS} s...`);
      const steadyFrom = requestCounts(await ctl.metrics());
      await new Promise((r) => setTimeout(r, STEADY_SECONDS * 1000));
      const steadyRequests = diffCounts(steadyFrom, requestCounts(await ctl.metrics()));
      const steady = await procStatus(ctl.pid);
      const heapUsed = Number(
        /^nodejs_heap_size_used_bytes (\S+)$/m.exec(await ctl.metrics())?.[1] ?? NaN,
      );

      ctx.log(
        `API floor at ${TOTAL}, then ${LATENCY_SAMPLES} template changes on ${probe.name}...`,
      );
      const floorLarge = await measureApiFloor(cluster, FLOOR_SAMPLES);
      await quiet(ctl);
      const beforeSampling = processSide(await ctl.metrics());
      const large = await canaryLatencies(http, ctl, probe, LATENCY_SAMPLES, 2 + LATENCY_SAMPLES);
      const during = diffProcessSide(beforeSampling, processSide(await ctl.metrics()));
      const loadEnd = loadavg();

      const s = stats(small);
      const l = stats(large);
      const floorRatio = (x: number, f: ApiFloor): string =>
        `${(x / f.watchPlusWriteP50Ms).toFixed(1)}× its floor ${f.watchPlusWriteP50Ms.toFixed(2)} ms`;
      const ratio = l.p50 / s.p50;
      const ratioP90 = l.p90 / s.p90;
      Object.assign(data, {
        steadyRssBytes: steady.rssKb * 1024,
        peakRssBytes: steady.hwmKb * 1024,
        heapUsedBytes: heapUsed,
        steadyRequests: Object.fromEntries(steadyRequests),
        floor: {
          ...(data.floor as object),
          large: floorLarge.watchPlusWriteP50Ms,
          p90: { baseline: floorP90(floorSmall), large: floorP90(floorLarge) },
        },
        canaryReplicaSetMs: {
          baseline: s,
          large: l,
          ratioP50: round2(ratio),
          ratioP90: round2(ratioP90),
        },
        loadAverage: { start: loadAtStart, settled: loadSettled, end: loadEnd },
      });
      summary.push(
        `all ${TOTAL} Healthy ${bulkSeconds.toFixed(1)} s after the other ${TOTAL - BASELINE} began to be created ` +
          `(created in ${((createdAt - bulkStart) / 1000).toFixed(1)} s): ${((TOTAL - BASELINE) / bulkSeconds).toFixed(1)} Rollouts/s`,
        ...rateLines,
        cpuLine,
        `RSS idle, no Rollouts: ${mb(idle.rssKb * 1024)}; ` +
          `peak while they were created ${mb(steady.hwmKb * 1024)} (VmHWM)`,
        `RSS steady, ${STEADY_SECONDS} s after all Healthy: ${mb(steady.rssKb * 1024)} ` +
          `(target < ${RSS_TARGET_MB} MB: ${steady.rssKb / 1024 < RSS_TARGET_MB ? 'met' : 'NOT met'}, ${(steady.rssKb / 1024 / RSS_TARGET_MB).toFixed(2)}× of it); ` +
          `heap used ${mb(heapUsed)}${heapLimit === undefined ? ' (no --max-old-space-size)' : ` (${(heapUsed / 2 ** 20 / heapLimit).toFixed(2)}× --max-old-space-size=${heapLimit})`}`,
        `requests in those ${STEADY_SECONDS} s: writes ${sumBy(steadyRequests, WRITE_VERBS)}, GETs ${sumBy(steadyRequests, ['get'])}, ` +
          `LISTs ${sumBy(steadyRequests, ['list'])}, watches ${sumBy(steadyRequests, ['watch'])}`,
        formatStats(`template change → canary RS, ${BASELINE} Rollouts`, s),
        `  p50 ${floorRatio(s.p50, floorSmall)}`,
        formatStats(`template change → canary RS, ${TOTAL} settled`, l),
        `  p50 ${floorRatio(l.p50, floorLarge)}`,
        `  in the controller meanwhile: ${during.reconciles} Rollout passes, ` +
          `GC major ${during.majorGcs} (${(during.majorGcSeconds * 1000).toFixed(0)} ms), ` +
          `pauses over 100 ms ${during.gcOver100ms}, idle-time reclaims ${during.reclaims}`,
        // Both judged: a typical change and a tail one (1 in 10) must stay within 2×.
        `  ${TOTAL} / ${BASELINE}: p50 ${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 ? 'met' : 'NOT met'}), ` +
          `p90 ${ratioP90.toFixed(2)}× (target ≤ 2×: ${ratioP90 <= 2 ? 'met' : 'NOT met'})`,
        `API floor (watch event + write, p50): empty ${floorEmpty.watchPlusWriteP50Ms.toFixed(2)} ms, ` +
          `${BASELINE} Rollouts ${floorSmall.watchPlusWriteP50Ms.toFixed(2)} ms, ${TOTAL} ${floorLarge.watchPlusWriteP50Ms.toFixed(2)} ms`,
        // The API server's own tail, beside the controller's: p90 of the watch event plus p90 of
        // the write, at each size (what a p90 ratio of the canary latency is up against).
        `API floor p90 (watch event p90 + write p90): ${BASELINE} Rollouts ${floorP90(floorSmall).toFixed(2)} ms, ` +
          `${TOTAL} ${floorP90(floorLarge).toFixed(2)} ms (${(floorP90(floorLarge) / floorP90(floorSmall)).toFixed(2)}×)`,
        `load average at the end: ${fmtLoad(loadEnd)}`,
      );
      return { summary, data };
    } finally {
      sampler?.stop();
      tracker.close();
      await ctl.stop();
      http.close();
    }
  },
};
export default benchmark;

/**
 * Every Rollout in the cluster from one watch (a LIST of 10,000 every few seconds would be load of
 * its own): which are Healthy on their current generation, and what the others say.
 */
class RolloutTracker {
  readonly #state = new Map<string, { healthy: boolean; phase?: string; message?: string }>();
  #healthy = 0;
  #waiters: { n: number; resolve: () => void }[] = [];
  #watch: { close(): void } | undefined;
  #closed = false;

  static async start(http: KubeHttp, log: (line: string) => void): Promise<RolloutTracker> {
    const t = new RolloutTracker();
    await t.#watchAll(http, log);
    return t;
  }

  /**
   * Watches every Rollout; a watch without a resourceVersion starts with an ADDED event for each
   * that exists, so a watch the server ended is replaced by a new one on a cleared state. (At
   * 10,000 the API server ended the first one after ~3 min, and the counts froze.)
   */
  async #watchAll(http: KubeHttp, log: (line: string) => void): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.#watch = await watchCollection<Rollout>(
          http,
          // A long server-side timeout: the default (30-60 min) could end the watch mid-run.
          `${ROLLOUTS}/rollouts?timeoutSeconds=14400`,
          (type, r) => this.#event(type, r),
          () => {
            if (this.#closed) return;
            log(`  the Rollout watch ended (${this.#healthy} Healthy); watching again`);
            this.#state.clear();
            this.#healthy = 0;
            this.#watchAll(http, log).catch((err: unknown) =>
              log(`  could not watch the Rollouts again: ${String(err)}`),
            );
          },
        );
        return;
      } catch (err) {
        // 429 while the API server's watch cache of a just-installed CRD initialises.
        if (this.#closed || attempt === 30 || !String(err).includes('HTTP 429')) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  #event(type: string, r: Rollout): void {
    const key = `${r.metadata.namespace}/${r.metadata.name}`;
    const before = this.#state.get(key)?.healthy ?? false;
    if (type === 'DELETED') {
      this.#state.delete(key);
      if (before) this.#healthy--;
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    const healthy = healthyAndPromoted(r);
    this.#state.set(key, { healthy, phase: r.status?.phase, message: r.status?.message });
    this.#healthy += Number(healthy) - Number(before);
    this.#waiters = this.#waiters.filter((w) => {
      if (this.#healthy < w.n) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once at least `n` are Healthy at the same time. */
  healthy(n: number, timeoutMs: number): Promise<void> {
    if (this.#healthy >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
          reject(
            new Error(`${this.#healthy}/${n} Healthy after ${(timeoutMs / 1000).toFixed(0)} s`),
          );
        },
        Math.max(0, timeoutMs),
      );
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.push({ n, resolve: done });
    });
  }

  counts(): {
    healthy: number;
    progressing: number;
    noStatus: number;
    messages: [string, number][];
  } {
    let noStatus = 0;
    const messages = new Map<string, number>();
    for (const s of this.#state.values()) {
      if (s.healthy) continue;
      if (s.phase === undefined) noStatus++;
      const m = `${s.phase ?? 'no status'}: ${s.message ?? ''}`;
      messages.set(m, (messages.get(m) ?? 0) + 1);
    }
    return {
      healthy: this.#healthy,
      progressing: this.#state.size - this.#healthy - noStatus,
      noStatus,
      messages: [...messages].sort((a, b) => b[1] - a[1]).slice(0, 5),
    };
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
  }
}

/** The controller's request total (and RSS) every SAMPLE_EVERY_MS until stopped. */
class Sampler {
  readonly samples: Sample[] = [];
  rssMb = 0;
  #stopped = false;

  constructor(ctl: ControllerProcess) {
    void this.#loop(ctl);
  }

  async #loop(ctl: ControllerProcess): Promise<void> {
    while (!this.#stopped) {
      const t0 = nowMs();
      const text = await ctl.metrics().catch(() => undefined);
      const t1 = nowMs();
      if (text !== undefined) {
        let requests = 0;
        for (const n of requestCounts(text).values()) requests += n;
        this.samples.push({ t0, t1, at: (t0 + t1) / 2, requests });
      }
      this.rssMb = (await procStatus(ctl.pid)).rssKb / 1024;
      await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
    }
  }

  latest(): Sample | undefined {
    return this.samples[this.samples.length - 1];
  }

  stop(): void {
    this.#stopped = true;
  }
}

interface RateFigures {
  requests: number;
  meanPerSecond: number;
  maxPerSecond: number;
  maxPerSecondAfterTwo: number;
  p50PerSecond: number;
  limiterWait: { seconds: number; requests: number };
}

/** The request rate over the samples, against the cap (as in rate-limit.bench.ts). */
function rateFigures(
  samples: readonly Sample[],
  waitedBefore: RateFigures['limiterWait'],
  waitedAfter: RateFigures['limiterWait'],
): RateFigures {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last || last.at <= first.at) throw new Error('too few request samples');
  const requests = last.requests - first.requests;
  // After the first seconds the burst is spent: what is left is the sustained rate.
  const afterBurst = windowRates(
    samples.filter((s) => s.at >= first.at + 2000),
    1000,
  ).sort((a, b) => a - b);
  return {
    requests,
    meanPerSecond: round1(requests / ((last.at - first.at) / 1000)),
    maxPerSecond: round1(Math.max(...windowRates(samples, 1000))),
    maxPerSecondAfterTwo: round1(afterBurst[afterBurst.length - 1] ?? 0),
    p50PerSecond: round1(afterBurst[Math.floor(afterBurst.length / 2)] ?? 0),
    limiterWait: {
      seconds: round1(waitedAfter.seconds - waitedBefore.seconds),
      requests: waitedAfter.requests - waitedBefore.requests,
    },
  };
}

/**
 * Requests per second from each sample to the first one at least `ms` later. Scrapes are spaced a
 * little more than SAMPLE_EVERY_MS apart, so a window counted up to the last sample within `ms`
 * (windowCounts) would often span less than `ms`; a rate over the span taken is exact.
 */
function windowRates(samples: readonly Sample[], ms: number): number[] {
  const rates: number[] = [];
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const start = samples[i] as Sample;
    j = Math.max(j, i + 1);
    while (j < samples.length && (samples[j] as Sample).at - start.at < ms) j++;
    const end = samples[j];
    if (!end) break;
    rates.push(((end.requests - start.requests) * 1000) / (end.at - start.at));
  }
  return rates;
}

/** CPU seconds (user + system) so far of the controller and each control-plane process. */
async function cpuSeconds(
  cluster: Cluster,
  ctl: ControllerProcess,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const procs = [{ name: 'controller', pid: ctl.pid ?? 0 }, ...cluster.processes];
  for (const p of procs) {
    const stat = await readFile(`/proc/${p.pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out[p.name] = (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  }
  const self = process.cpuUsage();
  out.bench = (self.user + self.system) / 1e6;
  return out;
}

/** VmRSS and VmHWM (the peak RSS since the process started) from /proc. */
async function procStatus(pid: number | undefined): Promise<{ rssKb: number; hwmKb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const fmtLoad = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');

/** What the controller's process did, from its /metrics: where a slow sample's time went. */
interface ProcessSide {
  readonly reconciles: number;
  readonly majorGcs: number;
  readonly majorGcSeconds: number;
  readonly gcOver100ms: number;
  readonly reclaims: number;
}

function processSide(metrics: string): ProcessSide {
  const num = (re: RegExp): number => Number(re.exec(metrics)?.[1] ?? 0);
  const gcAll = [...metrics.matchAll(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm)];
  const gcFast = [
    ...metrics.matchAll(/^nodejs_gc_duration_seconds_bucket\{le="0\.1",[^}]*\} (\S+)$/gm),
  ];
  const total = (ms: RegExpMatchArray[]): number => ms.reduce((n, m) => n + Number(m[1]), 0);
  return {
    reconciles: total([
      ...metrics.matchAll(
        /^stepwise_controller_reconcile_seconds_count\{controller="rollout"[^}]*\} (\S+)$/gm,
      ),
    ]),
    majorGcs: num(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)$/m),
    majorGcSeconds: num(/^nodejs_gc_duration_seconds_sum\{kind="major"\} (\S+)$/m),
    gcOver100ms: total(gcAll) - total(gcFast),
    reclaims: num(/^stepwise_memory_reclaim_seconds_count (\S+)$/m),
  };
}

function diffProcessSide(a: ProcessSide, b: ProcessSide): ProcessSide {
  return {
    reconciles: b.reconciles - a.reconciles,
    majorGcs: b.majorGcs - a.majorGcs,
    majorGcSeconds: b.majorGcSeconds - a.majorGcSeconds,
    gcOver100ms: b.gcOver100ms - a.gcOver100ms,
    reclaims: b.reclaims - a.reclaims,
  };
}

function floorP90(f: ApiFloor): number {
  return f.watchEventFromRequestStart.p90 + f.createConfigMap.p90;
}
