// A small application for analysis tests and the demo: it serves prom-client HTTP metrics for
// several versions (pod-template hashes) on loopback, as a real service's pods would, with the
// error rate and latency of each version set by the caller. Traffic is simulated when Prometheus
// scrapes: the requests due since the last scrape (rps × elapsed time) are counted then, so the
// series move with real time and nothing runs between scrapes.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, Registry } from 'prom-client';

/** How one version behaves. */
export interface VersionBehaviour {
  /** Share of requests answered 500, 0..1. */
  readonly errorRate: number;
  /** Every request takes this long (seconds are observed in the histogram). */
  readonly latencyMs: number;
  /** Requests per second. Default 20. */
  readonly rps?: number;
}

export const HASH_LABEL = 'rollouts_pod_template_hash';
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class DemoApp {
  readonly registry = new Registry();
  readonly #requests: Counter<'code' | typeof HASH_LABEL>;
  readonly #duration: Histogram<typeof HASH_LABEL>;
  readonly #versions = new Map<string, { behaviour: VersionBehaviour; due: number; at: number }>();
  readonly #now: () => number;
  #server: Server | undefined;

  constructor(now: () => number = Date.now) {
    this.#now = now;
    this.#requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests served, by status code and pod-template hash.',
      labelNames: ['code', HASH_LABEL],
      registers: [this.registry],
    });
    this.#duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency, by pod-template hash.',
      labelNames: [HASH_LABEL],
      buckets: BUCKETS,
      registers: [this.registry],
    });
  }

  /** Sets (or changes) how the version with this pod-template hash behaves from now on. */
  set(hash: string, behaviour: VersionBehaviour): void {
    this.#advance();
    const prev = this.#versions.get(hash);
    this.#versions.set(hash, { behaviour, due: prev?.due ?? 0, at: this.#now() });
    // Series start at 0, as a real process' counters do: rate() then sees every request.
    for (const code of ['200', '500']) this.#requests.inc({ code, [HASH_LABEL]: hash }, 0);
  }

  /** Counts the requests each version has served since the last call. */
  #advance(): void {
    const now = this.#now();
    for (const [hash, v] of this.#versions) {
      const { errorRate, latencyMs, rps = 20 } = v.behaviour;
      v.due += ((now - v.at) / 1000) * rps;
      v.at = now;
      const n = Math.floor(v.due);
      if (n === 0) continue;
      v.due -= n;
      // Errors spread evenly (not randomly): the measured rate is the one set, scrape after scrape.
      const errors = Math.round(n * errorRate);
      this.#requests.inc({ code: '500', [HASH_LABEL]: hash }, errors);
      this.#requests.inc({ code: '200', [HASH_LABEL]: hash }, n - errors);
      for (let i = 0; i < n; i++) this.#duration.observe({ [HASH_LABEL]: hash }, latencyMs / 1000);
    }
  }

  async metricsText(): Promise<string> {
    this.#advance();
    return this.registry.metrics();
  }

  /** Serves GET /metrics and POST /control `{hash, errorRate, latencyMs, rps?}` on 127.0.0.1. */
  async listen(port = 0): Promise<string> {
    const server = createServer((req, res) => {
      void this.#handle(req.method ?? 'GET', req.url ?? '/', req).then(
        ({ status, type, body }) => {
          res.writeHead(status, { 'content-type': type });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(err instanceof Error ? err.message : String(err));
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.#server = server;
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async #handle(
    method: string,
    url: string,
    body: AsyncIterable<Buffer>,
  ): Promise<{ status: number; type: string; body: string }> {
    if (method === 'GET' && url.startsWith('/metrics')) {
      return { status: 200, type: this.registry.contentType, body: await this.metricsText() };
    }
    if (method === 'POST' && url === '/control') {
      let text = '';
      for await (const chunk of body) text += chunk.toString('utf8');
      const c = JSON.parse(text) as { hash?: unknown } & Partial<VersionBehaviour>;
      if (typeof c.hash !== 'string' || typeof c.errorRate !== 'number') {
        return { status: 400, type: 'text/plain', body: 'want {hash, errorRate, latencyMs}' };
      }
      this.set(c.hash, { errorRate: c.errorRate, latencyMs: c.latencyMs ?? 50, rps: c.rps });
      return { status: 204, type: 'text/plain', body: '' };
    }
    return { status: 404, type: 'text/plain', body: 'not found' };
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
