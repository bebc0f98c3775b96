/**
 * The external HTTP port: what people and Slack reach (approval links, Slack interactions),
 * apart from the internal /metrics port. Everything from outside is bounded before a handler
 * sees it: a connection cap and header, request and keep-alive deadlines; a per-client rate
 * limit (the client read through trusted proxies, client-address.ts) where a refused credential
 * costs more than a good request and a request that proves itself (a signed Slack request) costs
 * nothing, so one client's garbage cannot lock out the others; a body size cap (read as raw
 * bytes: Slack signs the raw body); only the leader acts (a standby answers 503 with Retry-After).
 * Handlers get plain values and return plain values, so they are tested without a socket.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../kube/log.ts';
import { clientAddress, NO_TRUSTED_PROXIES } from './client-address.ts';
import type { TrustedProxies } from './client-address.ts';
import { ClientRateLimiter } from './rate-limit.ts';
import type { RateLimit } from './rate-limit.ts';

export interface ExternalRequest {
  readonly method: string;
  readonly path: string;
  /** Capture groups of the route's pattern. */
  readonly params: readonly string[];
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly rawBody: Buffer;
}

export interface ExternalResponse {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly pattern: RegExp;
  /** Changes state: only the leader may answer it. */
  readonly acts: boolean;
  readonly handle: (req: ExternalRequest) => Promise<ExternalResponse>;
  /**
   * Cheap proof that the request comes from whom it claims (a valid Slack signature): such a
   * request is not charged to its client's rate-limit bucket, so a flood from the same address
   * (every Slack request does share Slack's) cannot turn it away.
   */
  readonly proves?: (req: Omit<ExternalRequest, 'params'>) => boolean;
}

export interface ExternalServerOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly Route[];
  readonly leading: () => boolean;
  readonly log: Logger;
  readonly now: () => number;
  readonly rateLimit?: RateLimit;
  /** Proxies whose X-Forwarded-For names the client (default: none, the socket is the client). */
  readonly trustedProxies?: TrustedProxies;
  /** Open connections at once; more are closed on arrival (default 256). */
  readonly maxConnections?: number;
  readonly maxBodyBytes?: number;
  readonly bodyTimeoutMs?: number;
  /** Counts answers by route and status class, for /metrics. */
  readonly onAnswer?: (route: string, status: number) => void;
}

export interface ExternalServer {
  readonly port: number;
  close(): Promise<void>;
}

const DEFAULT_LIMIT: RateLimit = { burst: 20, perSecond: 1 };
const DEFAULT_MAX_BODY = 64 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 256;
/** Tokens a refused credential costs on top of its request's one (a bad link or signature). */
export const REFUSED_EXTRA_COST = 4;
/** Answers that say the credential was not good: a scanner's or a guesser's. */
const REFUSED = new Set([400, 401, 403, 404, 410]);

/** Headers on every answer: nothing cached, framed, sniffed or referred (tokens are in URLs). */
export const SAFE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

export async function startExternalServer(opts: ExternalServerOptions): Promise<ExternalServer> {
  const limiter = new ClientRateLimiter(opts.rateLimit ?? DEFAULT_LIMIT);
  // Deadlines are checked every second, not every 30 s (Node's default), so they mean what they say.
  const server: Server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    void serve(req, res, opts, limiter);
  });
  // Slow or idle connections must not hold the capped slots: the whole request within
  // requestTimeout, its headers within headersTimeout, an idle keep-alive closed after 5 s.
  server.maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  server.requestTimeout = opts.bodyTimeoutMs ?? 10_000;
  server.headersTimeout = Math.min(10_000, server.requestTimeout);
  server.keepAliveTimeout = 5_000;
  server.maxRequestsPerSocket = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Routes one request; exported for tests that call it without a socket. */
export async function dispatch(
  opts: Pick<ExternalServerOptions, 'routes' | 'leading'>,
  req: Omit<ExternalRequest, 'params'>,
): Promise<{ response: ExternalResponse; route: string }> {
  const candidates = opts.routes.filter((r) => r.pattern.test(req.path));
  if (candidates.length === 0) return { response: text(404, 'not found'), route: 'none' };
  const route = candidates.find((r) => r.method === req.method);
  if (route === undefined) {
    const allow = candidates.map((r) => r.method).join(', ');
    return {
      response: { ...text(405, 'method not allowed'), headers: { allow } },
      route: 'none',
    };
  }
  const name = route.pattern.source;
  if (route.acts && !opts.leading()) {
    return {
      response: {
        ...text(
          503,
          'This Stepwise replica is standing by; the leader acts on approvals. Retry in a moment.',
        ),
        headers: { 'retry-after': '1' },
      },
      route: name,
    };
  }
  const params = route.pattern.exec(req.path)?.slice(1) ?? [];
  return { response: await route.handle({ ...req, params }), route: name };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  opts: ExternalServerOptions,
  limiter: ClientRateLimiter,
): Promise<void> {
  const forwarded = req.headers['x-forwarded-for'];
  const client = clientAddress(
    req.socket.remoteAddress,
    Array.isArray(forwarded) ? forwarded.join(', ') : forwarded,
    opts.trustedProxies ?? NO_TRUSTED_PROXIES,
  );
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  let route = 'none';
  let response: ExternalResponse;
  try {
    // A route that can prove a request cheaply reads the body first: a proven request is not
    // charged. Any other is charged before its body is read, so an exhausted client costs little.
    const proving = opts.routes.find(
      (r) => r.proves !== undefined && r.method === method && r.pattern.test(path),
    );
    const limited = proving === undefined ? overLimit(limiter, client, opts.now()) : undefined;
    const body =
      limited === undefined
        ? await readBody(req, opts.maxBodyBytes ?? DEFAULT_MAX_BODY)
        : undefined;
    if (limited !== undefined) {
      response = limited;
    } else if (body === undefined) {
      response = text(413, 'request body too large');
    } else {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        headers[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      const request = { method, path, headers, rawBody: body };
      const proven = proving?.proves?.(request) === true;
      const refused =
        proving !== undefined && !proven ? overLimit(limiter, client, opts.now()) : undefined;
      if (refused !== undefined) {
        response = refused;
      } else {
        const answered = await dispatch(opts, request);
        response = answered.response;
        route = answered.route;
        if (!proven && REFUSED.has(response.status)) {
          limiter.charge(client, opts.now(), REFUSED_EXTRA_COST);
        }
      }
    }
  } catch (err) {
    // The message may carry request data: log it, answer without it.
    opts.log.error('external request failed', {
      route,
      error: err instanceof Error ? err.message : String(err),
    });
    response = text(500, 'internal error');
  }
  opts.onAnswer?.(route, response.status);
  if (res.headersSent) return;
  res.writeHead(response.status, {
    ...SAFE_HEADERS,
    'content-type': response.contentType ?? 'text/plain; charset=utf-8',
    ...response.headers,
  });
  res.end(response.body);
}

/** A 429 when `client` has no token left (taking one when it has). */
function overLimit(
  limiter: ClientRateLimiter,
  client: string,
  now: number,
): ExternalResponse | undefined {
  const allowed = limiter.take(client, now);
  if (allowed.ok) return undefined;
  return {
    ...text(429, 'too many requests'),
    headers: { 'retry-after': String(Math.ceil(allowed.retryAfterMs / 1000)) },
  };
}

/** The raw body, or undefined when it is larger than `max` bytes (reading stops there). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > max) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function text(status: number, body: string): ExternalResponse {
  return { status, body: `${body}\n`, contentType: 'text/plain; charset=utf-8' };
}

export function html(status: number, body: string): ExternalResponse {
  return { status, body, contentType: 'text/html; charset=utf-8' };
}
