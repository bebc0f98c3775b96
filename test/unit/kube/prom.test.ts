// Our slice of prom-client: the same default metrics under the same names as its
// collectDefaultMetrics, without loading what the controller does not use.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as promClient from 'prom-client';
import { collectDefaultMetrics, Registry } from '../../../src/kube/prom.ts';

const names = async (r: promClient.Registry): Promise<string[]> =>
  (await r.getMetricsAsJSON()).map((m) => m.name).sort();

describe('prom slice', () => {
  it("registers every one of prom-client's default metrics, by the same names", async () => {
    const theirs = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: theirs });
    const ours = new Registry();
    collectDefaultMetrics(ours);
    assert.deepEqual(await names(ours), await names(theirs));
  });

  it('counts the CPU the process spends', async () => {
    const r = new Registry();
    collectDefaultMetrics(r);
    const cpu = async (): Promise<number> =>
      Number(/^process_cpu_seconds_total (\S+)$/m.exec(await r.metrics())?.[1]);
    const before = await cpu();
    // 50 ms of CPU, not of wall time: on a loaded machine the wall clock runs ahead.
    const start = process.cpuUsage();
    let spin = 0;
    while (process.cpuUsage(start).user + process.cpuUsage(start).system < 50_000) spin++;
    const after = await cpu();
    assert.ok(spin > 0);
    assert.ok(after - before >= 0.05, `cpu ${before} → ${after}`);
    const user = Number(/^process_cpu_user_seconds_total (\S+)$/m.exec(await r.metrics())?.[1]);
    assert.ok(user > 0 && user <= after + 0.01, `user ${user} within total ${after}`);
  });

  it('loads neither OpenTelemetry nor the Pushgateway', () => {
    const loaded = execFileSync(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        '--input-type=module',
        '-e',
        `const p = await import(${JSON.stringify(new URL('../../../src/kube/prom.ts', import.meta.url).href)});
         p.collectDefaultMetrics(new p.Registry());
         const { createRequire } = await import('node:module');
         console.log(Object.keys(createRequire(import.meta.url).cache).join('\\n'));`,
      ],
      { encoding: 'utf8' },
    );
    assert.match(loaded, /prom-client\/lib\/registry\.js/, 'the listing sees prom-client');
    assert.doesNotMatch(loaded, /@opentelemetry/);
    assert.doesNotMatch(loaded, /pushgateway|lib\/cluster\.js/);
  });
});
