// A loopback HTTP endpoint whose JSON answers the test sets, for the `web` metric provider:
// a stand-in for the application's own health endpoint, not for Prometheus.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers GET /<name> with the JSON set for <name>; /hang (and below it) never answers. */
export class MetricServer {
  readonly answers = new Map<string, unknown>();
  /** Every request's path and query, in order: what the provider really asked. */
  readonly requests: string[] = [];
  readonly #server: Server;
  port = 0;

  constructor() {
    this.#server = createServer((req, res) => {
      this.requests.push(req.url ?? '/');
      const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
      if (name === 'hang' || name.startsWith('hang/')) return; // a provider call that never returns
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(this.answers.get(name) ?? null));
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  url(name: string): string {
    return `http://127.0.0.1:${this.port}/${name}`;
  }

  close(): void {
    this.#server.closeAllConnections();
    this.#server.close();
  }
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
