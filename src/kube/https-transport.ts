/**
 * The controller's transport to the API server: node:https with one keep-alive agent (one TLS
 * handshake per connection, not per request), the TLS material of a `Connection`, and the
 * Authorization header read per request (rotated tokens). Watches stream the response body.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { KubeTransportError } from './errors.ts';
import type { Connection } from './kubeconfig.ts';
import type { HttpResponse, HttpTransport } from './rest.ts';

export function httpsTransport(conn: Connection): HttpTransport {
  const base = new URL(conn.server);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({
        keepAlive: true,
        ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
        ...(conn.cert !== undefined ? { cert: conn.cert } : {}),
        ...(conn.key !== undefined ? { key: conn.key } : {}),
        rejectUnauthorized: !conn.insecureSkipTlsVerify,
        ...(conn.tlsServerName !== undefined ? { servername: conn.tlsServerName } : {}),
      })
    : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    send(req) {
      const url = new URL(conn.server);
      url.pathname = prefix + req.path;
      for (const [k, v] of Object.entries(req.query ?? {})) {
        if (v !== undefined) url.searchParams.set(k, String(v));
      }
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(req.headers ?? {})) {
        headers[k] = typeof v === 'string' ? v : [...v];
      }
      const auth = conn.authorization();
      if (auth !== undefined) headers.Authorization = auth;
      if (req.body !== undefined) {
        headers['Content-Length'] = String(Buffer.byteLength(req.body));
      }
      return new Promise<HttpResponse>((resolve, reject) => {
        const r = send(
          url,
          { method: req.method, headers, agent, ...(req.signal ? { signal: req.signal } : {}) },
          (res) => resolve(response(res)),
        );
        r.on('error', (err) =>
          reject(
            // The system error as it is (connect ECONNREFUSED …): callers name the server.
            new KubeTransportError(err.message, { cause: err }),
          ),
        );
        r.end(req.body);
      });
    },
  };
}

function response(res: IncomingMessage): HttpResponse {
  let used = false;
  const once = (): void => {
    if (used) throw new KubeTransportError('response body read twice');
    used = true;
  };
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const v = res.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    text: async () => {
      once();
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stream: () => {
      once();
      return Readable.toWeb(res) as ReadableStream<Uint8Array>;
    },
  };
}
