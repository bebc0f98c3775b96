// A minimal HTTPS client for the API server: the harness needs a handful of calls before any
// controller is up, and the benchmark needs a client with no overhead of its own to measure the
// server's floor. Keep-alive, so a request costs one round trip, not a TLS handshake.
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Credentials } from './kubeconfig.ts';

const REQUEST_TIMEOUT_MS = 30_000;

export interface KubeResponse {
  readonly status: number;
  readonly body: string;
}

export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
}

export class KubeHttp {
  readonly server: URL;
  readonly #agent: Agent;

  constructor(credentials: Credentials) {
    this.server = new URL(credentials.server);
    this.#agent = new Agent({
      keepAlive: true,
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
    });
  }

  request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<KubeResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(this.#options(method, path, contentType, payload), (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Like `request`, but a status outside 2xx is an error and the body is parsed. */
  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.request(method, path, body, contentType);
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.body.slice(0, 500)}`);
    }
    return JSON.parse(res.body) as T;
  }

  /**
   * Opens a watch (`path` without `watch=true`) and calls `onEvent` for every event line.
   * Resolves once the server answered the request, so events that follow are not missed.
   */
  watch(
    path: string,
    onEvent: (e: WatchEvent) => void,
    /** When the server ends the watch (its timeout, a slow watcher dropped); not after close(). */
    onEnd?: () => void,
  ): Promise<{ close(): void }> {
    const sep = path.includes('?') ? '&' : '?';
    return new Promise((resolve, reject) => {
      const req = httpsRequest(this.#options('GET', `${path}${sep}watch=true`), (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        let closed = false;
        splitLines(res, (line) => onEvent(JSON.parse(line) as WatchEvent));
        res.on('close', () => {
          if (!closed) onEnd?.();
        });
        resolve({
          close: () => {
            closed = true;
            req.destroy();
          },
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  #options(method: string, path: string, contentType?: string, payload?: string) {
    const headers: Record<string, string | number> = { accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return {
      agent: this.#agent,
      host: this.server.hostname,
      port: this.server.port,
      method,
      path,
      headers,
    };
  }
}

function splitLines(res: IncomingMessage, onLine: (line: string) => void): void {
  let buffered = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) onLine(line);
    }
  });
  res.on('error', () => undefined); // closing the watch destroys the socket; not an error
}
