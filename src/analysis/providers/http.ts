/**
 * One HTTP request for a metric provider, through axios: headers from values (with
 * `{{args.x}}`) or Secrets, basic or bearer credentials from Secrets, a total time budget that
 * covers retries, a cap on the body, TLS verification unless `insecure`. Transport failures
 * (refused, reset, timed-out connect, 502/503/504) are retried with p-retry inside the budget;
 * an answer, even a 4xx or 500, is returned as it is, for the provider to judge.
 * Only http(s), only where the egress policy allows (checked on the address connected to), and
 * redirects only within the same origin, none when a header carries a secret.
 */
import { Agent } from 'node:https';
import type { AxiosError, AxiosStatic } from 'axios';
import pRetry, { AbortError } from 'p-retry';
import type { Authentication, WebMetricHeader } from '../../api/index.ts';
import { substituteArgs } from './args.ts';
import { HostNotAllowed } from './egress.ts';
import type { EgressPolicy } from './egress.ts';
import type { MeasureContext } from './provider.ts';

/** A body bigger than this is refused: a condition never needs it, and 30 workers' worth of it
 *  would sit in the controller's heap. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;
const RETRIES = 2;
const FIRST_RETRY_MS = 200;
const RETRY_STATUS = new Set([502, 503, 504]);

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly url: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly headers?: readonly WebMetricHeader[];
  readonly authentication?: Authentication;
  readonly body?: string;
  readonly contentType?: string;
  readonly timeoutMs: number;
  readonly insecure?: boolean;
  /** Names the endpoint in errors: "Prometheus at http://…". */
  readonly what: string;
  /** Where the request may go; undefined only for an address the administrator set. */
  readonly egress: EgressPolicy | undefined;
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Sends the request; throws an Error with a message a person can act on. */
export async function send(req: HttpRequest, ctx: MeasureContext): Promise<HttpAnswer> {
  checkDestination(req.url, req);
  const { headers, secret } = await requestHeaders(req, ctx);
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const seconds = req.timeoutMs / 1000;
  const attempt = async (): Promise<HttpAnswer> => {
    try {
      const answer = await follow(req, headers, secret, signal);
      if (RETRY_STATUS.has(answer.status)) throw new RetryableAnswer(answer);
      return answer;
    } catch (err) {
      if (err instanceof RetryableAnswer) throw err;
      const final = (message: string) => new AbortError(new Error(message, { cause: err }));
      if (err instanceof RedirectRefused) throw final(`${req.what}: ${err.message}`);
      if (notAllowed(err) !== undefined) throw final(`${req.what}: ${notAllowed(err)}`);
      if (deadline.aborted) throw final(`${req.what}: timed out after ${seconds}s`);
      if (ctx.signal.aborted) throw final(`${req.what}: measurement stopped`);
      if (transport(err)) {
        throw new Error(`${req.what} unreachable: ${describe(err)}`, { cause: err });
      }
      throw final(`${req.what}: ${describe(err)}`);
    }
  };
  try {
    return await pRetry(attempt, {
      retries: RETRIES,
      minTimeout: FIRST_RETRY_MS,
      factor: 2,
      signal,
    });
  } catch (err) {
    if (err instanceof RetryableAnswer) return err.answer;
    if (deadline.aborted && !(err instanceof Error && /timed out/.test(err.message))) {
      throw new Error(`${req.what}: timed out after ${seconds}s`, { cause: err });
    }
    throw err instanceof Error ? err : new Error(String(err));
  }
}

/** http(s) only, and a host the policy does not refuse by name or address literal. */
function checkDestination(url: string, req: HttpRequest): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${req.what}: not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(
      `${req.what}: unsupported URL scheme "${parsed.protocol}" (http or https only)`,
    );
  }
  const refused = req.egress?.refusalOfHost(parsed.hostname);
  if (refused !== undefined) throw new Error(`${req.what}: ${refused}`);
  return parsed;
}

class RedirectRefused extends Error {}

/**
 * One request and its redirects, followed here rather than by axios so that each hop is checked:
 * same origin only, and none at all when a header carries a secret (it would go along).
 */
async function follow(
  req: HttpRequest,
  headers: Record<string, string>,
  secretHeaders: boolean,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  let url = req.url;
  let method: string = req.method;
  let data = req.body;
  for (let hop = 0; ; hop++) {
    const res = await (
      await axiosLoaded()
    ).request<string>({
      method,
      url,
      params: hop === 0 ? req.params : undefined,
      headers,
      data,
      signal,
      responseType: 'text',
      transformResponse: (body: unknown) => body,
      validateStatus: () => true,
      maxContentLength: MAX_BODY_BYTES,
      maxBodyLength: MAX_BODY_BYTES,
      maxRedirects: 0,
      proxy: false,
      ...(req.egress !== undefined
        ? req.egress.agents(req.insecure === true)
        : req.insecure === true
          ? { httpsAgent: new Agent({ rejectUnauthorized: false }) }
          : {}),
    });
    const answer: HttpAnswer = {
      status: res.status,
      contentType: String(res.headers['content-type'] ?? ''),
      body: typeof res.data === 'string' ? res.data : String(res.data),
    };
    const location: unknown = res.headers['location'];
    if (res.status < 300 || res.status >= 400 || typeof location !== 'string') return answer;
    const here = new URL(url);
    const next = new URL(location, here);
    if (next.origin !== here.origin) {
      throw new RedirectRefused(
        `HTTP ${res.status} redirect to another origin (${next.origin}) not followed`,
      );
    }
    if (secretHeaders) {
      throw new RedirectRefused(
        `HTTP ${res.status} redirect not followed: the request carries headers from Secrets`,
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new RedirectRefused(`more than ${MAX_REDIRECTS} redirects`);
    }
    url = next.toString();
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      data = undefined;
    }
  }
}

function notAllowed(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown } | null)?.cause;
  if (err instanceof HostNotAllowed) return err.message;
  if (cause instanceof HostNotAllowed) return cause.message;
  if (isAxiosError(err) && err.code === new HostNotAllowed().code) return err.message;
  return undefined;
}

/** A 502/503/504: retried, and returned as it is once the retries are spent. */
class RetryableAnswer extends Error {
  readonly answer: HttpAnswer;
  constructor(answer: HttpAnswer) {
    super(`HTTP ${answer.status}`);
    this.answer = answer;
  }
}

/** The headers, and whether any carries a value from a Secret (directly or through an arg). */
async function requestHeaders(
  req: HttpRequest,
  ctx: MeasureContext,
): Promise<{ headers: Record<string, string>; secret: boolean }> {
  const out: Record<string, string> = {};
  let secret = req.authentication !== undefined;
  if (req.contentType !== undefined) out['content-type'] = req.contentType;
  for (const h of req.headers ?? []) {
    const ref = h.valueFrom?.secretKeyRef;
    if (ref !== undefined) secret = true;
    out[h.key] =
      ref !== undefined
        ? await ctx.secrets.secretValue(ctx.namespace, ref)
        : substituteArgs(h.value ?? '', ctx.args);
  }
  const basic = req.authentication?.basicAuth;
  if (basic !== undefined) {
    const user =
      basic.usernameSecretKeyRef !== undefined
        ? await ctx.secrets.secretValue(ctx.namespace, basic.usernameSecretKeyRef)
        : substituteArgs(basic.username ?? '', ctx.args);
    const password =
      basic.passwordSecretKeyRef !== undefined
        ? await ctx.secrets.secretValue(ctx.namespace, basic.passwordSecretKeyRef)
        : substituteArgs(basic.password ?? '', ctx.args);
    out['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  const bearer = req.authentication?.bearer;
  if (bearer !== undefined) {
    const token = await ctx.secrets.secretValue(ctx.namespace, bearer.tokenSecretKeyRef);
    out['authorization'] = `Bearer ${token}`;
  }
  if (ctx.redactor !== undefined && Object.values(out).some((v) => ctx.redactor?.reveals(v))) {
    secret = true;
  }
  return { headers: out, secret };
}

/** No answer came back: the connection failed, was reset, or timed out before one. */
function transport(err: unknown): boolean {
  return isAxiosError(err) && err.response === undefined && !maxSize(err);
}

function maxSize(err: AxiosError): boolean {
  return err.code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(err.message);
}

function describe(err: unknown): string {
  if (isAxiosError(err)) {
    if (maxSize(err)) return `answer larger than ${MAX_BODY_BYTES} bytes`;
    return [err.code, err.message].filter(Boolean).join(' ');
  }
  return err instanceof Error ? err.message : String(err);
}

/** axios, loaded on the first measurement: a controller with no analysis never pays for it. */
let axiosModule: Promise<AxiosStatic> | undefined;
const axiosLoaded = (): Promise<AxiosStatic> =>
  (axiosModule ??= import('axios').then((m) => m.default));

function isAxiosError(err: unknown): err is AxiosError {
  return (err as { isAxiosError?: unknown } | null)?.isAxiosError === true;
}
