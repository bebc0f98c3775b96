/**
 * One JSON POST with retries, shared by the Slack Web API client and the webhooks: axios with a
 * per-attempt timeout, a 1 MiB cap on the answer, no redirects (a token must not follow one),
 * and p-retry's exponential backoff for what the caller's `judge` marks retryable and for
 * transport failures. A Retry-After from the far end is waited out (capped). Errors name the
 * endpoint by scheme and host only and have every secret scrubbed from their text.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AxiosAdapter, AxiosError, AxiosStatic } from 'axios';
import pRetry, { AbortError } from 'p-retry';
import { NotifyError, NotifyTransportError } from './errors.ts';

export const MAX_ANSWER_BYTES = 1024 * 1024;

export interface TransportOptions {
  /** Time allowed for one attempt, connect to last byte. Default 10 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  readonly retries?: number;
  /** Delay before the first retry; doubles each time (with jitter). Default 1 s. */
  readonly minRetryDelayMs?: number;
  /** The longest Retry-After honoured. Default 60 s. */
  readonly maxRetryAfterMs?: number;
  /** Injected transport: an axios adapter (tests) or agents (proxies, keep-alive, CAs). */
  readonly adapter?: AxiosAdapter;
  readonly httpAgent?: HttpAgent;
  readonly httpsAgent?: HttpsAgent;
}

export interface SendOptions {
  /** Stops the attempt in flight and any further retries (shutdown). */
  readonly signal?: AbortSignal;
  /** Told of each failure that is about to be retried. */
  readonly onRetry?: (error: NotifyError) => void;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly retryAfterSeconds: number | undefined;
}

export interface PostRequest {
  readonly url: string;
  /** Built per attempt, so a signature can carry a fresh timestamp. */
  readonly headers: () => Record<string, string>;
  readonly body: string;
  /** How errors name the endpoint, e.g. `Slack API chat.postMessage`. No secrets. */
  readonly endpoint: string;
  /** Strings that must never appear in an error message (tokens, URLs). */
  readonly secrets: readonly string[];
}

const DEFAULTS = { timeoutMs: 10_000, retries: 3, minRetryDelayMs: 1000, maxRetryAfterMs: 60_000 };

/** POSTs until `judge` accepts the answer, it says give up, or the retries run out. */
export async function postWithRetries<T>(
  req: PostRequest,
  judge: (answer: HttpAnswer) => T | NotifyError,
  transport: TransportOptions,
  opts: SendOptions = {},
): Promise<T> {
  const t = { ...DEFAULTS, ...withoutUndefined(transport) };
  const attempt = async (): Promise<T> => {
    let error: NotifyError;
    try {
      const judged = judge(await postOnce(req, t, opts.signal));
      if (!(judged instanceof NotifyError)) return judged;
      error = judged;
    } catch (err) {
      error = transportError(err, req, t.timeoutMs, opts.signal);
    }
    throw error.retryable ? error : new AbortError(error);
  };
  try {
    return await pRetry(attempt, {
      retries: t.retries,
      minTimeout: t.minRetryDelayMs,
      factor: 2,
      randomize: true,
      signal: opts.signal,
      onFailedAttempt: async ({ error, retriesLeft, retryDelay }) => {
        if (retriesLeft <= 0 || !(error instanceof NotifyError)) return;
        opts.onRetry?.(error);
        const asked = Math.min((error.retryAfterSeconds ?? 0) * 1000, t.maxRetryAfterMs);
        // p-retry waits retryDelay after this; together at least what the server asked.
        if (asked > retryDelay) await sleep(asked - retryDelay, undefined, { signal: opts.signal });
      },
    });
  } catch (err) {
    if (err instanceof NotifyError) throw err;
    throw new NotifyTransportError(`${req.endpoint}: cancelled`, {
      retryable: false,
      transportCode: 'ERR_CANCELED',
    });
  }
}

async function postOnce(
  req: PostRequest,
  t: Required<Pick<TransportOptions, 'timeoutMs'>> & TransportOptions,
  signal: AbortSignal | undefined,
): Promise<HttpAnswer> {
  const deadline = AbortSignal.timeout(t.timeoutMs);
  const res = await (
    await axiosLoaded()
  ).request<string>({
    method: 'POST',
    url: req.url,
    headers: { 'user-agent': 'stepwise-controller', ...req.headers() },
    data: req.body,
    signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
    responseType: 'text',
    transformResponse: (data: unknown) => data,
    validateStatus: () => true,
    maxContentLength: MAX_ANSWER_BYTES,
    maxBodyLength: MAX_ANSWER_BYTES,
    maxRedirects: 0,
    ...(t.adapter !== undefined ? { adapter: t.adapter } : {}),
    ...(t.httpAgent !== undefined ? { httpAgent: t.httpAgent } : {}),
    ...(t.httpsAgent !== undefined ? { httpsAgent: t.httpsAgent } : {}),
  });
  return {
    status: res.status,
    body: typeof res.data === 'string' ? res.data : String(res.data),
    retryAfterSeconds: retryAfter(res.headers['retry-after']),
  };
}

/** Retry-After in seconds (the only form Slack sends); an HTTP date is ignored. */
function retryAfter(header: unknown): number | undefined {
  const text: unknown = Array.isArray(header) ? (header as unknown[])[0] : header;
  if (typeof text !== 'string' || !/^\s*\d{1,6}\s*$/.test(text)) return undefined;
  return Number(text);
}

/** Anything thrown by axios: retryable unless we were cancelled or the input was at fault. */
function transportError(
  err: unknown,
  req: PostRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): NotifyTransportError {
  const fail = (what: string, retryable: boolean, code?: string) =>
    new NotifyTransportError(scrub(`${req.endpoint}: ${what}`, req.secrets), {
      retryable,
      ...(code !== undefined ? { transportCode: code } : {}),
    });
  if (signal?.aborted === true) return fail('cancelled', false, 'ERR_CANCELED');
  if (!isAxiosError(err)) {
    return fail(err instanceof Error ? err.message : String(err), false);
  }
  if (err.code === 'ERR_CANCELED') {
    return fail(`no answer within ${timeoutMs / 1000}s`, true, 'ETIMEDOUT');
  }
  if (err.code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(err.message)) {
    return fail(`answer larger than ${MAX_ANSWER_BYTES} bytes`, false, err.code);
  }
  const permanent = ['ERR_INVALID_URL', 'ERR_BAD_OPTION', 'ERR_BAD_OPTION_VALUE'];
  const code = err.code ?? 'ERR_NETWORK';
  const text = [err.code, err.message].filter((s) => s !== undefined && s !== '').join(' ');
  return fail(`unreachable: ${text || 'no answer'}`, !permanent.includes(code), code);
}

/** `https://hooks.slack.com/…`: enough to tell endpoints apart, never the secret path. */
export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(invalid URL)';
  }
}

/** Replaces every secret (and, for URLs, their path and query) with `…`. */
export function scrub(text: string, secrets: readonly string[]): string {
  const parts = secrets.flatMap((s) => {
    try {
      const u = new URL(s);
      return [s, `${u.pathname}${u.search}`, u.pathname.slice(1)];
    } catch {
      return [s];
    }
  });
  return parts
    .filter((p) => p.length >= 4)
    .sort((a, b) => b.length - a.length)
    .reduce((out, p) => out.split(p).join('…'), text);
}

/** A short snippet of an answer body for a message: one line, no secrets. */
export function snippet(body: string, secrets: readonly string[]): string {
  return JSON.stringify(scrub(body.slice(0, 200).replace(/\s+/g, ' ').trim(), secrets));
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** axios, loaded on the first send: a controller that never notifies never pays for it. */
let axiosModule: Promise<AxiosStatic> | undefined;
const axiosLoaded = (): Promise<AxiosStatic> =>
  (axiosModule ??= import('axios').then((m) => m.default));

function isAxiosError(err: unknown): err is AxiosError {
  return (err as { isAxiosError?: unknown } | null)?.isAxiosError === true;
}
