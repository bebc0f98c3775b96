// The dashboard server's memory over 10,000 page loads (issue 23: flat within ±10 %; Argo's
// dashboard leaked, argo-rollouts#2095). A page load is what the browser does: the shell page,
// its script and style, the list's event stream opened and its first event read, then a
// Rollout's stream the same way, and both dropped as the page goes; every 50 loads a Rollout
// changes and every open stream is pushed. The server (dashboard-server.ts: 100 synthetic
// Rollouts; the watches are not what is weighed) runs in a process of its own, so its heap and
// RSS are its own, read after full collections at 1,000 loads (warm) and every 1,000 after.
// No cluster: `make bench BENCH=dashboard`.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Reply, Request } from './dashboard-server.ts';
import { ROLLOUTS } from './dashboard-server.ts';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import { detailOf } from '../../src/dashboard/model/views.ts';
import { NOW, pausedStatus, pod, replicaSet, rollout } from '../unit/cli/fixtures.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const LOADS = Number(process.env['BENCH_DASHBOARD_LOADS'] ?? 10_000);
const MB = 1024 * 1024;

/** Reads an event stream until its first event, then drops the connection. */
async function firstEvent(url: string, cookie: string): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { cookie }, signal: abort.signal });
  const decoder = new TextDecoder();
  let seen = '';
  for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
    seen += decoder.decode(chunk);
    if (seen.includes('\n\n')) break;
  }
  abort.abort();
}

/** A Rollout with 200 revisions (the last two running, 5 pods each) and an AnalysisRun of 1,000
 *  measurements: how long the server takes to build its view, and how large the view is. */
function largeRollout(): { ms: ReturnType<typeof stats>; bytes: number } {
  const sets = [...Array(200).keys()].map((i) =>
    replicaSet(`h${i}`, i + 1, i >= 198 ? 5 : 0, `nginx:1.${i}`),
  );
  const pods = sets.slice(-2).flatMap((rs) => [...Array(5).keys()].map((k) => pod(rs, `p${k}`)));
  const measurements = [...Array(1000).keys()].map((k) => ({
    phase: k % 97 === 0 ? 'Failed' : 'Successful',
    value: String(0.9 + (k % 10) / 100),
    startedAt: new Date(NOW - (1000 - k) * 10_000).toISOString(),
    finishedAt: new Date(NOW - (1000 - k) * 10_000 + 50).toISOString(),
  }));
  const run = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: {
      name: 'web-run',
      namespace: 'shop',
      creationTimestamp: new Date(NOW - 3_600_000),
      ownerReferences: [
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          name: 'web',
          uid: 'uid-web',
          controller: true,
        },
      ],
    },
    spec: {
      metrics: [
        {
          name: 'success-rate',
          successCondition: 'result >= 0.95',
          provider: {
            prometheus: { address: 'http://prometheus:9090', query: 'sum(rate(x[5m]))' },
          },
        },
      ],
    },
    status: {
      phase: 'Running',
      metricResults: [{ name: 'success-rate', phase: 'Running', count: 1000, measurements }],
    },
  } as unknown as AnalysisRun;
  const inputs = {
    rollout: rollout(pausedStatus),
    replicaSets: sets,
    pods,
    analysisRuns: [run],
    events: [],
    actions: [],
    now: NOW,
  };
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    bytes = JSON.stringify(detailOf(inputs)).length;
    times.push(performance.now() - t0);
  }
  return { ms: stats(times.slice(5)), bytes };
}

/** Asks the server process and waits for its answer of that kind. */
async function ask(
  server: ChildProcess,
  req: Request,
): Promise<Extract<Reply, { kind: 'memory' }>> {
  const answer = once(server, 'message') as Promise<[Reply]>;
  server.send(req);
  const [reply] = await answer;
  if (reply.kind !== 'memory') throw new Error(`unexpected reply ${reply.kind}`);
  return reply;
}

const bench: Benchmark = {
  name: 'dashboard',
  description: `dashboard server memory over ${LOADS} page loads`,
  async run(ctx) {
    const server = fork(join(import.meta.dirname, 'dashboard-server.ts'), [], {
      // Its own flags only: the parent's may hold an --eval that would run the bench again.
      execArgv: ['--disable-warning=ExperimentalWarning', '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [ready] = (await once(server, 'message')) as [Reply];
    if (ready.kind !== 'ready') throw new Error('the dashboard server did not start');
    const origin = `http://127.0.0.1:${ready.port}`;
    const signIn = await fetch(ready.url, { redirect: 'manual' });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const samples: { loads: number; heapMb: number; rssMb: number; streams: number }[] = [];
    try {
      for (let load = 1; load <= LOADS; load++) {
        for (const path of ['/', '/app.js', '/app.css']) {
          await (await fetch(origin + path, { headers: { cookie } })).arrayBuffer();
        }
        await firstEvent(`${origin}/api/stream`, cookie);
        const key = `team-${load % 10}/web-${load % ROLLOUTS}`;
        await firstEvent(`${origin}/api/stream?rollout=${key}`, cookie);
        if (load % 50 === 0) server.send({ kind: 'change', load } satisfies Request);
        if (load % 1000 === 0) {
          const m = await ask(server, { kind: 'memory' });
          samples.push({
            loads: load,
            heapMb: m.heapUsed / MB,
            rssMb: m.rss / MB,
            streams: m.streams,
          });
          ctx.log(`dashboard: ${load} page loads, server heap ${(m.heapUsed / MB).toFixed(1)} MB`);
        }
      }
    } finally {
      server.disconnect();
      await once(server, 'exit');
    }
    const large = largeRollout();
    const warm = samples[0];
    const last = samples.at(-1);
    if (warm === undefined || last === undefined) throw new Error('no samples');
    const growth = (last.heapMb - warm.heapMb) / warm.heapMb;
    const rssGrowth = (last.rssMb - warm.rssMb) / warm.rssMb;
    return {
      summary: [
        `server heap after GC: ${samples.map((s) => `${s.loads / 1000}k ${s.heapMb.toFixed(1)} MB`).join(', ')}`,
        `heap growth from ${warm.loads} to ${last.loads} loads: ${(growth * 100).toFixed(1)} % (target within ±10 %)`,
        `server RSS: ${samples.map((m) => `${m.loads / 1000}k ${m.rssMb.toFixed(0)}`).join(', ')} MB (${(rssGrowth * 100).toFixed(1)} % from ${warm.loads}; allocator pages, not the heap)`,
        `event streams open at the end (every page gone): ${last.streams}`,
        formatStats('view of 200 revisions + 1,000 measurements', large.ms),
        `  that view as sent: ${(large.bytes / 1024).toFixed(0)} KiB`,
      ],
      data: {
        machine: machine(),
        loads: LOADS,
        rollouts: ROLLOUTS,
        samples,
        growth,
        rssGrowth,
        largeRolloutViewMs: large.ms,
        largeRolloutViewBytes: large.bytes,
      },
    };
  },
};

export default bench;
