/**
 * The demo application of the release image `stepwise-demo` (docs/getting-started.md): one
 * colour per version, a page that asks the Service for colours over and over so a canary's split
 * shows as a mix of squares, and prom-client HTTP metrics (`http_requests_total{code}`,
 * `http_request_duration_seconds`) as analysis/prom-client-http.yaml reads them. A version can be
 * made bad on purpose: ERROR_RATE answers that share of colour requests with 500.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, Registry } from 'prom-client';

export interface DemoConfig {
  /** A CSS colour name or #rrggbb: what this version shows. */
  readonly color: string;
  /** Share of /color requests answered 500, 0..1. */
  readonly errorRate: number;
  /** Added to every /color request. */
  readonly latencyMs: number;
  /** Shown beside the colour: the pod's name, so a reader sees which pod answered. */
  readonly instance: string;
}

const COLOR = /^(#[0-9a-f]{6}|[a-z]{3,20})$/;

/** The configuration from the environment; a bad value is an error naming the variable. */
export function configFrom(env: Readonly<Record<string, string | undefined>>): DemoConfig {
  const color = (env['COLOR'] ?? 'blue').toLowerCase();
  if (!COLOR.test(color)) throw new Error(`COLOR must be a colour name or #rrggbb, not "${color}"`);
  const number = (name: string, max: number): number => {
    const text = env[name] ?? '0';
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0 || value > max) {
      throw new Error(`${name} must be a number from 0 to ${max}, not "${text}"`);
    }
    return value;
  };
  return {
    color,
    errorRate: number('ERROR_RATE', 1),
    latencyMs: number('LATENCY_MS', 60_000),
    instance: env['HOSTNAME'] ?? 'local',
  };
}

/** Errors spread evenly, not at random: request n fails when the running share falls behind. */
export function failsAt(n: number, errorRate: number): boolean {
  return Math.floor((n + 1) * errorRate) > Math.floor(n * errorRate);
}

export function page(config: DemoConfig): string {
  // The colour is checked against COLOR above; nothing else from outside goes into the page.
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>stepwise-demo</title>
<style>body{font-family:sans-serif;margin:2em}#grid{display:flex;flex-wrap:wrap;gap:4px;max-width:640px}
#grid div{width:28px;height:28px;border-radius:4px}</style></head>
<body><h1>stepwise-demo</h1>
<p>This pod: <b style="color:${config.color}">${config.color}</b>. Each square below is one request to
<code>/color</code> through the Service: during a canary the colours mix; grey is an error.</p>
<div id="grid"></div>
<script>
const grid = document.getElementById('grid');
async function tick() {
  const square = document.createElement('div');
  try {
    const res = await fetch('color', { cache: 'no-store' });
    square.style.background = res.ok ? (await res.json()).color : '#999';
  } catch { square.style.background = '#999'; }
  grid.prepend(square);
  while (grid.children.length > 200) grid.lastChild.remove();
}
setInterval(tick, 250);
</script></body></html>
`;
}

export interface DemoApp {
  readonly server: Server;
  readonly port: number;
  readonly registry: Registry;
  close(): Promise<void>;
}

export async function startDemoApp(
  config: DemoConfig,
  port: number,
  host?: string,
): Promise<DemoApp> {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests to /color, by status code.',
    labelNames: ['code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Latency of /color requests.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Series start at 0, so rate() counts the first requests too.
  for (const code of ['200', '500']) requests.inc({ code }, 0);
  let served = 0;

  const send = (res: ServerResponse, status: number, type: string, body: string): void => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const colour = async (res: ServerResponse): Promise<void> => {
    const started = process.hrtime.bigint();
    if (config.latencyMs > 0) await new Promise((r) => setTimeout(r, config.latencyMs));
    const fail = failsAt(served++, config.errorRate);
    const code = fail ? 500 : 200;
    requests.inc({ code: String(code) });
    duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    const body = fail
      ? { error: 'ERROR_RATE', instance: config.instance }
      : { color: config.color, instance: config.instance };
    send(res, code, 'application/json', `${JSON.stringify(body)}\n`);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://demo').pathname;
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'GET only\n');
    if (path === '/') return send(res, 200, 'text/html; charset=utf-8', page(config));
    if (path === '/color') return colour(res);
    if (path === '/healthz') return send(res, 200, 'text/plain', 'ok\n');
    if (path === '/metrics') return send(res, 200, registry.contentType, await registry.metrics());
    return send(res, 404, 'text/plain', 'not found\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      send(res, 500, 'text/plain', `${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    registry,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
