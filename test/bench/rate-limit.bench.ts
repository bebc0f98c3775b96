// The client rate limit under load: 1,000 Rollouts created before the controller starts, so it
// settles all of them at once (the issue saw 185 requests/s on average and 296 in one second
// with the defaults at 50/100, i.e. no limit at all). The controller's own request counter,
// sampled every ~100 ms, gives the requests in every ~1 s window and the mean rate, set against
// --qps/--burst: at most burst + qps in any second, qps sustained.
import type { Rollout } from '../../src/api/index.ts';
import type { KubeHttp } from '../cluster/kube-http.ts';
import type { ControllerProcess } from '../e2e/support/controller.ts';
import {
  clientFor,
  controller,
  createNamespace,
  installCrds,
  nowMs,
  rateLimiterWait,
  requestCounts,
  rollout,
  ROLLOUTS,
  watchCollection,
  windowCounts,
  type Sample,
} from './controller-support.ts';
import { machine, type Benchmark } from './harness.ts';

const ROLLOUT_COUNT = 1000;
const QPS = 50; // the defaults, which the issue measured against
const BURST = 100;
const NS = 'bench-rate-limit';
const SAMPLE_EVERY_MS = 100;
const SETTLE_TIMEOUT_MS = 150_000;

const benchmark: Benchmark = {
  name: 'rate-limit',
  description: `--qps ${QPS} --burst ${BURST} while ${ROLLOUT_COUNT} Rollouts settle`,
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    await createNamespace(http, NS);
    ctx.log(`creating ${ROLLOUT_COUNT} Rollouts (replicas 0: the controller's requests only)...`);
    await createRollouts(http);

    const healthy = new Set<string>();
    let allHealthy = (): void => undefined;
    const settled = new Promise<void>((resolve) => (allHealthy = resolve));
    const watch = await watchCollection<Rollout>(
      http,
      `${ROLLOUTS}/namespaces/${NS}/rollouts`,
      (_type, r) => {
        const settledNow =
          r.status?.phase === 'Healthy' &&
          r.status.observedGeneration === String(r.metadata.generation);
        if (settledNow) healthy.add(r.metadata.name ?? '');
        if (healthy.size === ROLLOUT_COUNT) allHealthy();
      },
    );

    const ctl = await controller([
      '--leader-elect=false',
      `--namespace=${NS}`,
      `--qps=${QPS}`,
      `--burst=${BURST}`,
    ]);
    let samples: Sample[];
    let waited: { seconds: number; requests: number };
    try {
      ctx.log('controller started; sampling its request counter until every Rollout is Healthy');
      samples = await sampleUntil(ctl, settled);
      waited = rateLimiterWait(await ctl.metrics());
    } finally {
      watch.close();
      await ctl.stop();
    }
    void http.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    http.close();

    const first = samples[0] as Sample;
    const last = samples[samples.length - 1] as Sample;
    const seconds = (last.at - first.at) / 1000;
    const total = last.requests - first.requests;
    const mean = total / seconds;
    const peak = Math.max(...windowCounts(samples, 1000));
    // After the first seconds the burst is spent: what is left is the sustained rate.
    const afterBurst = windowCounts(
      samples.filter((s) => s.at >= first.at + 2000),
      1000,
    ).sort((a, b) => a - b);
    const sustained = afterBurst[afterBurst.length - 1] ?? 0;
    const sustainedP50 = afterBurst[Math.floor(afterBurst.length / 2)] ?? 0;
    const excess = worstExcess(samples);
    const data = {
      machine: machine(),
      rollouts: ROLLOUT_COUNT,
      qps: QPS,
      burst: BURST,
      settleSeconds: Math.round(seconds * 10) / 10,
      requests: total,
      meanPerSecond: Math.round(mean * 10) / 10,
      maxInOneSecond: peak,
      maxInOneSecondAfterTheFirstTwo: sustained,
      p50InOneSecondAfterTheFirstTwo: sustainedP50,
      worstExcessOverBucketBound: excess,
      rateLimiterWait: waited,
    };
    const r = (x: number, of: number): string => `${(x / of).toFixed(2)}×`;
    const summary = [
      `${ROLLOUT_COUNT} Rollouts settled in ${seconds.toFixed(1)} s with ${total} API requests, --qps ${QPS} --burst ${BURST}`,
      `  max requests in any 1 s window: ${peak} (cap burst + qps = ${BURST + QPS}: ${r(peak, BURST + QPS)})`,
      `  1 s windows after the first 2 s: p50 ${sustainedP50}, max ${sustained} (qps ${QPS}: ${r(sustainedP50, QPS)}, ${r(sustained, QPS)})`,
      `  mean: ${mean.toFixed(1)} requests/s (qps ${QPS}: ${r(mean, QPS)}; burst/T + qps = ${(BURST / seconds + QPS).toFixed(1)})`,
      `  worst excess over burst + qps × Δt between any two samples: ${excess.toFixed(1)} requests (≤ 0: the cap held)`,
      `  waited for the rate limiter: ${waited.seconds.toFixed(1)} s over ${waited.requests} requests ` +
        `(mean ${((waited.seconds / Math.max(1, waited.requests)) * 1000).toFixed(0)} ms)`,
    ];
    return { summary, data };
  },
};
export default benchmark;

async function createRollouts(http: KubeHttp): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ROLLOUT_COUNT) {
      const name = `r${String(next++).padStart(4, '0')}`;
      await http.json(
        'POST',
        `${ROLLOUTS}/namespaces/${NS}/rollouts`,
        rollout(name, { replicas: 0 }),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Samples the controller's request total until `done` resolves, then once more. */
async function sampleUntil(ctl: ControllerProcess, done: Promise<void>): Promise<Sample[]> {
  let finished = false;
  void done.then(() => (finished = true));
  const timeout = nowMs() + SETTLE_TIMEOUT_MS;
  const samples: Sample[] = [];
  const sample = async (): Promise<void> => {
    const t0 = nowMs();
    const text = await ctl.metrics();
    const t1 = nowMs();
    let requests = 0;
    for (const n of requestCounts(text).values()) requests += n;
    samples.push({ t0, t1, at: (t0 + t1) / 2, requests });
  };
  while (!finished) {
    if (nowMs() > timeout) throw new Error('the Rollouts did not all become Healthy in time');
    await sample();
    await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
  }
  await sample();
  return samples;
}

/**
 * The token bucket's promise, checked between every two samples: no more than burst + qps × Δt
 * requests, where Δt spans both scrapes (the counter was read somewhere inside each). Returns the
 * largest excess found (negative: always under the bound).
 */
function worstExcess(samples: readonly Sample[]): number {
  let worst = -Infinity;
  for (let i = 0; i < samples.length; i++) {
    const a = samples[i] as Sample;
    for (let j = i + 1; j < samples.length; j++) {
      const b = samples[j] as Sample;
      const bound = BURST + (QPS * (b.t1 - a.t0)) / 1000;
      worst = Math.max(worst, b.requests - a.requests - bound);
    }
  }
  return worst;
}
