/**
 * The internal HTTP port: /metrics (Prometheus), /healthz (the process and its work loop are
 * alive), /readyz (caches synced, and leading or standing by). Not for the outside world.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface Probes {
  /** Empty when live, else what is wrong. */
  live(): string[];
  /** Empty when ready, else what is missing. */
  ready(): string[];
}

export interface InternalServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startInternalServer(
  registry: Registry,
  probes: Probes,
  opts: { host?: string; port?: number } = {},
): Promise<InternalServer> {
  const server: Server = createServer((req, res) => {
    void handle(req, res, registry, probes);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8090, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  registry: Registry,
  probes: Probes,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed\n');
  try {
    switch (path) {
      case '/metrics':
        return reply(res, 200, await registry.metrics(), registry.contentType);
      case '/healthz':
      case '/livez':
        return probe(res, probes.live());
      case '/readyz':
        return probe(res, probes.ready());
      default:
        return reply(res, 404, 'not found\n');
    }
  } catch (err) {
    reply(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
  }
}

function probe(res: ServerResponse, problems: string[]): void {
  if (problems.length === 0) reply(res, 200, 'ok\n');
  else reply(res, 503, `${problems.join('\n')}\n`);
}

function reply(
  res: ServerResponse,
  code: number,
  body: string,
  type = 'text/plain; charset=utf-8',
): void {
  res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}
