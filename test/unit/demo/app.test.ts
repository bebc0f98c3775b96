// The demo application of the `stepwise-demo` image (demo/app/): what a reader of
// docs/getting-started.md sees through the Service, and the metrics analysis reads from it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFrom, failsAt, startDemoApp } from '../../../demo/app/server.ts';
import type { DemoConfig } from '../../../demo/app/server.ts';

const BLUE: DemoConfig = { color: 'blue', errorRate: 0, latencyMs: 0, instance: 'web-abc-1' };

async function withApp<T>(config: DemoConfig, body: (base: string) => Promise<T>): Promise<T> {
  const app = await startDemoApp(config, 0, '127.0.0.1');
  try {
    return await body(`http://127.0.0.1:${app.port}`);
  } finally {
    await app.close();
  }
}

describe('stepwise-demo', () => {
  it('answers /color with its colour and pod, and serves the page that shows the mix', async () => {
    await withApp(BLUE, async (base) => {
      const res = await fetch(`${base}/color`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { color: 'blue', instance: 'web-abc-1' });
      const page = await (await fetch(`${base}/`)).text();
      assert.match(page, /This pod: <b style="color:blue">blue<\/b>/);
      assert.match(page, /fetch\('color'/);
      assert.equal((await fetch(`${base}/nowhere`)).status, 404);
    });
  });

  it('ERROR_RATE 0.5: every other /color is a 500, counted by code in /metrics', async () => {
    await withApp({ ...BLUE, errorRate: 0.5 }, async (base) => {
      const codes: number[] = [];
      for (let i = 0; i < 10; i++) codes.push((await fetch(`${base}/color`)).status);
      assert.deepEqual(codes.filter((c) => c === 500).length, 5);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, /^http_requests_total\{code="200"\} 5$/m);
      assert.match(metrics, /^http_requests_total\{code="500"\} 5$/m);
      assert.match(metrics, /^http_request_duration_seconds_count 10$/m);
    });
  });

  it('errors are spread evenly: any ERROR_RATE gives that share over any long run', () => {
    for (const rate of [0, 0.1, 0.25, 1 / 3, 0.5, 1]) {
      const failures = Array.from({ length: 300 }, (_, n) => failsAt(n, rate)).filter(Boolean);
      assert.equal(failures.length, Math.floor(300 * rate), String(rate));
    }
  });

  it('refuses a bad environment by name, and defaults to blue, no errors, no delay', () => {
    assert.deepEqual(configFrom({ HOSTNAME: 'p' }), { ...BLUE, instance: 'p' });
    assert.equal(configFrom({ COLOR: '#FF8800' }).color, '#ff8800');
    assert.throws(() => configFrom({ COLOR: 'red"><script>' }), /COLOR must be a colour name/);
    assert.throws(() => configFrom({ ERROR_RATE: '2' }), /ERROR_RATE must be a number from 0 to 1/);
    assert.throws(() => configFrom({ LATENCY_MS: 'soon' }), /LATENCY_MS must be a number/);
  });
});
