/**
 * client-node's kubeconfig and HTTP library, for users that authenticate through an `exec` or
 * `auth-provider` plugin (cloud CLIs). Imported only then: client-node loads every generated
 * API with its KubeConfig (about 90 MB of RSS), which the controller does not otherwise need.
 */
import {
  IsomorphicFetchHttpLibrary,
  RequestContext,
  type KubeConfig,
} from '@kubernetes/client-node';
import { KubeTransportError } from './errors.ts';
import type { HttpTransport } from './rest.ts';

export function kubeConfigTransport(kc: KubeConfig): HttpTransport {
  const http = new IsomorphicFetchHttpLibrary();
  // client-node builds a new undici Agent for every request, so every request would open a new
  // TLS connection (tens of ms on the hot path, and sockets left to the GC). Keep the first one:
  // TLS material comes from the kubeconfig and does not change; per-request credentials (tokens)
  // are headers, which are still applied every time.
  let shared: ReturnType<RequestContext['getDispatcher']>;
  return {
    async send(req) {
      const cluster = kc.getCurrentCluster();
      if (!cluster) throw new KubeTransportError('kubeconfig has no current cluster');
      const url = new URL(cluster.server.replace(/\/+$/, '') + req.path);
      for (const [k, v] of Object.entries(req.query ?? {})) {
        if (v !== undefined) url.searchParams.set(k, String(v));
      }
      const ctx = new RequestContext(url.toString(), req.method);
      await kc.applySecurityAuthentication(ctx);
      const fresh = ctx.getDispatcher();
      if (shared === undefined) shared = fresh;
      else if (fresh !== undefined) {
        ctx.setDispatcher(shared);
        void (fresh as { close?: () => Promise<void> }).close?.();
      }
      for (const [k, v] of Object.entries(req.headers ?? {})) {
        // fetch's Headers would join the lines into one value (one group named "a, b").
        if (typeof v !== 'string') {
          throw new KubeTransportError(`${k}: several header lines cannot be sent this way`);
        }
        ctx.setHeaderParam(k, v);
      }
      if (req.body !== undefined) ctx.setBody(req.body);
      if (req.signal) ctx.setSignal(req.signal);
      const res = await http.send(ctx).toPromise();
      return {
        status: res.httpStatusCode,
        header: (name) => res.headers[name.toLowerCase()],
        text: () => res.body.text(),
        stream: () => res.body.stream(),
      };
    },
  };
}
