// Loopback HTTP endpoints for provider tests: each answers what the test scripts and records
// what it was asked. Only the far end is scripted; the provider's HTTP stack is the real one.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressPolicy } from '../../../../src/analysis/providers/index.ts';
import type {
  MeasureContext,
  SecretRef,
  SecretSource,
} from '../../../../src/analysis/providers/index.ts';

export interface Seen {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type Reply =
  { readonly status?: number; readonly type?: string; readonly body: string } | 'hang' | 'reset';

export class Endpoint {
  readonly seen: Seen[] = [];
  readonly #replies: Reply[] = [];
  #fallback: Reply = { status: 404, body: 'no reply scripted' };
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        this.seen.push({
          method: req.method ?? '',
          url: new URL(req.url ?? '/', 'http://127.0.0.1'),
          headers: req.headers,
          body,
        });
        const reply = this.#replies.shift() ?? this.#fallback;
        if (reply === 'hang') return;
        if (reply === 'reset') {
          req.socket.destroy();
          return;
        }
        res.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'application/json' });
        res.end(reply.body);
      });
    });
  }

  static async start(): Promise<Endpoint> {
    const e = new Endpoint();
    await new Promise<void>((resolve) => e.#server.listen(0, '127.0.0.1', resolve));
    e.url = `http://127.0.0.1:${(e.#server.address() as AddressInfo).port}`;
    return e;
  }

  /** Replies in order, then `fallback` for every later request. */
  script(replies: readonly Reply[], fallback?: Reply): void {
    this.#replies.splice(0, this.#replies.length, ...replies);
    if (fallback !== undefined) this.#fallback = fallback;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

/** A loopback port nothing listens on. */
export async function closedPortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Secrets held in memory: the provider only ever calls secretValue. */
export class MemorySecrets implements SecretSource {
  readonly values = new Map<string, string>();
  secretValue(namespace: string, ref: SecretRef): Promise<string> {
    const v = this.values.get(`${namespace}/${ref.name}/${ref.key}`);
    if (v === undefined)
      return Promise.reject(new Error(`Secret "${namespace}/${ref.name}" not found`));
    return Promise.resolve(v);
  }
}

export function context(
  args: Record<string, string> = {},
  secrets: SecretSource = new MemorySecrets(),
  signal: AbortSignal = new AbortController().signal,
): MeasureContext {
  return { namespace: 'ns', run: { name: 'run', uid: 'uid-run' }, index: 1, args, secrets, signal };
}

/** The tests' endpoints are on loopback, which the built-in policy denies. */
export const loopbackAllowed = new EgressPolicy({ allowed: ['127.0.0.0/8'] });
