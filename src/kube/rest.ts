/**
 * A thin JSON client for the Kubernetes REST API over an injectable transport.
 *
 * Why not client-node's typed APIs: `KubernetesObjectApi` resolves paths through discovery
 * requests and deserialises into model classes (timestamps become `Date`s), and has no
 * subresources; client-node's `Watch` aborts a watch after 30 s without bytes, which would
 * restart every idle watch between bookmarks and drop the server's Status on HTTP errors. The
 * transports: node:https over our kubeconfig reader (https-transport.ts), and client-node's
 * only for users that authenticate through exec or auth-provider plugins. The controller and
 * the plugin both send through it. Tests inject a fake transport instead of mocking modules.
 */
import { apiStatusError, KubeTransportError, toApiError, type ApiError } from './errors.ts';
import type { RequestLimiter } from './throttle.ts';

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the server URL, e.g. `/apis/apps/v1/namespaces/ns/replicasets`. */
  readonly path: string;
  readonly query?: Query;
  /** A list sends one header line per value (Impersonate-Group: one line per group). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  header(name: string): string | undefined;
  text(): Promise<string>;
  stream(): ReadableStream<Uint8Array> | null;
}

/** Sends one request; rejects only when there is no response. */
export interface HttpTransport {
  send(req: HttpRequest): Promise<HttpResponse>;
}

/** Per request, for metrics: low-cardinality labels only (no object names). */
export interface RequestInfo {
  readonly verb: string;
  /** `plural[.group][/subresource]`. */
  readonly resource: string;
  /** HTTP status as text, or `error` when no response came. */
  readonly code: string;
  readonly durationMs: number;
  /** Time spent waiting for the client's rate limiter before sending (absent without one). */
  readonly rateLimiterWaitMs?: number;
}

export interface RequestMeta {
  readonly verb: string;
  readonly resource: string;
}

export interface WatchStream {
  abort(): void;
}

export interface RestClientOptions {
  readonly onRequest?: (info: RequestInfo) => void;
  /** Abort a non-watch request after this long (not counting the rate limiter). Default 30 s. */
  readonly timeoutMs?: number;
  /** Every request (watch starts included) waits here first; share one across clients. */
  readonly limiter?: RequestLimiter;
}

export class RestClient {
  readonly #transport: HttpTransport;
  readonly #onRequest: ((info: RequestInfo) => void) | undefined;
  readonly #timeoutMs: number;
  readonly #limiter: RequestLimiter | undefined;

  constructor(transport: HttpTransport, opts: RestClientOptions = {}) {
    this.#transport = transport;
    this.#onRequest = opts.onRequest;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.#limiter = opts.limiter;
  }

  /** Sends a request and parses the JSON answer; throws an `ApiError` for anything but 2xx. */
  async request<T>(req: HttpRequest, meta: RequestMeta): Promise<T> {
    const res = await this.#send(
      { ...req, headers: withAccept(req.headers) },
      meta,
      this.#timeoutMs,
    );
    const text = await res.text().catch((err: unknown) => Promise.reject(toApiError(err)));
    if (res.status < 200 || res.status > 299) {
      throw apiStatusError(res.status, text, res.header('retry-after'));
    }
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch (err) {
      throw new KubeTransportError(`${meta.verb} ${meta.resource}: response is not JSON`, {
        cause: err,
      });
    }
  }

  /**
   * Starts a watch. Rejects with an `ApiError` if it cannot start (no response, non-200).
   * Afterwards `onEvent` gets each decoded line and `onDone` is called once when the stream ends:
   * with no argument when the server closed it, with an `ApiError` when it broke. Neither is
   * called after `abort()`.
   */
  async watch(
    req: HttpRequest,
    meta: RequestMeta,
    onEvent: (event: unknown) => void,
    onDone: (err?: ApiError) => void,
  ): Promise<WatchStream> {
    const ac = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, ac.signal]) : ac.signal;
    const res = await this.#send({ ...req, signal, headers: withAccept(req.headers) }, meta);
    if (res.status !== 200) {
      const text = await res.text().catch(() => '');
      throw apiStatusError(res.status, text, res.header('retry-after'));
    }
    const body = res.stream();
    if (!body) throw new KubeTransportError(`watch ${meta.resource}: empty response body`);
    let stopped = false;
    const finish = (err?: ApiError): void => {
      if (stopped || signal.aborted) return;
      stopped = true;
      onDone(err);
    };
    readLines(body, (line) => {
      if (!stopped && !signal.aborted) onEvent(line);
    }).then(
      () => finish(),
      (err: unknown) => finish(toApiError(err)),
    );
    return {
      abort: () => {
        stopped = true;
        ac.abort();
      },
    };
  }

  /** The one way out to the server: rate limit, then send (with `timeoutMs` from the send). */
  async #send(req: HttpRequest, meta: RequestMeta, timeoutMs?: number): Promise<HttpResponse> {
    let waited: { rateLimiterWaitMs: number } | undefined;
    if (this.#limiter) {
      try {
        waited = { rateLimiterWaitMs: await this.#limiter.wait(req.signal) };
      } catch (err) {
        throw toApiError(err);
      }
    }
    let signal = req.signal;
    if (timeoutMs !== undefined) {
      const timeout = AbortSignal.timeout(timeoutMs);
      signal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    }
    const start = performance.now();
    const report = (code: string): void =>
      this.#onRequest?.({ ...meta, code, durationMs: performance.now() - start, ...waited });
    let res: HttpResponse;
    try {
      res = await this.#transport.send(signal ? { ...req, signal } : req);
    } catch (err) {
      report('error');
      throw toApiError(err);
    }
    report(String(res.status));
    return res;
  }
}

function withAccept(headers: HttpRequest['headers']): Record<string, string | readonly string[]> {
  return { Accept: 'application/json', ...headers };
}

/** Decodes newline-delimited JSON; a line that is not JSON breaks the stream (it is corrupt). */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (value: unknown) => void,
): Promise<void> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) onLine(JSON.parse(line));
      }
    }
    if (buf.trim()) onLine(JSON.parse(buf));
  } catch (err) {
    await reader.cancel().catch(() => undefined); // close the connection behind a broken stream
    throw err;
  } finally {
    reader.releaseLock();
  }
}
