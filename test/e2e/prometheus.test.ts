// The real Prometheus of the test harness scrapes the demo app: what a test sets as a version's
// error rate and latency is what PromQL reads back, per pod-template hash.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DemoApp } from '../demo-app/app.ts';
import { startPrometheus } from '../prometheus/server.ts';
import type { RunningPrometheus } from '../prometheus/server.ts';
import { pollUntil } from '../cluster/poll.ts';

let prometheus: RunningPrometheus;
const app = new DemoApp();

before(async () => {
  const target = await app.listen();
  prometheus = await startPrometheus({ scrapeTargets: [{ job: 'demo', target }] });
});
after(async () => {
  await prometheus?.stop();
  await app.close();
});

async function instant(query: string): Promise<number[]> {
  const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  return body.data.result.map((r) => Number(r.value[1]));
}

/** Polls Prometheus (it scrapes every second) until the query's first value satisfies `ok`. */
function eventuallyValue(query: string, ok: (v: number) => boolean): Promise<number> {
  return pollUntil(
    query,
    async () => {
      const [v] = await instant(query);
      return v !== undefined && ok(v) ? v : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

const successRate = (hash: string) =>
  `sum(rate(http_requests_total{rollouts_pod_template_hash="${hash}",code!~"5.."}[10s])) / ` +
  `sum(rate(http_requests_total{rollouts_pod_template_hash="${hash}"}[10s]))`;

describe('Prometheus scraping the demo app', () => {
  it('reads back each version’s success rate', async () => {
    app.set('stable1', { errorRate: 0, latencyMs: 20 });
    app.set('canary1', { errorRate: 0.5, latencyMs: 20 });
    const canary = await eventuallyValue(successRate('canary1'), (v) => Math.abs(v - 0.5) < 0.05);
    const stable = await eventuallyValue(successRate('stable1'), (v) => v === 1);
    assert.ok(canary < stable);
  });

  it('reads back a version’s p99 latency from the histogram', async () => {
    app.set('slow1', { errorRate: 0, latencyMs: 1800 });
    const p99 = await eventuallyValue(
      'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{rollouts_pod_template_hash="slow1"}[10s])))',
      (v) => v > 1,
    );
    // 1.8 s falls in the (1, 2.5] bucket: the quantile interpolates within it.
    assert.ok(p99 > 1 && p99 <= 2.5, String(p99));
  });
});
