/**
 * One HTTP request for a metric provider, through axios: headers from values (with
 * `{{args.x}}`) or Secrets, basic or bearer credentials from Secrets, a total time budget that
 * covers retries, a cap on the body, TLS verification unless `insecure`. Transport failures
 * (refused, reset, timed-out connect, 502/503/504) are retried with p-retry inside the budget;
 * an answer, even a 4xx or 500, is returned as it is, for the provider to judge.
 */
import { Agent } from 'node:https';
import type { AxiosError, AxiosStatic } from 'axios';
import pRetry, { AbortError } from 'p-retry';
import type { Authentication, WebMetricHeader } from '../../api/index.ts';
import { substituteArgs } from './args.ts';
import type { MeasureContext } from './provider.ts';

/** A body bigger than this is refused: a condition never needs it, and it would sit in memory. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
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
}

export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Sends the request; throws an Error with a message a person can act on. */
export async function send(req: HttpRequest, ctx: MeasureContext): Promise<HttpAnswer> {
  const headers = await requestHeaders(req, ctx);
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const seconds = req.timeoutMs / 1000;
  const attempt = async (): Promise<HttpAnswer> => {
    try {
      const res = await (
        await axiosLoaded()
      ).request<string>({
        method: req.method,
        url: req.url,
        params: req.params,
        headers,
        data: req.body,
        signal,
        responseType: 'text',
        transformResponse: (data: unknown) => data,
        validateStatus: () => true,
        maxContentLength: MAX_BODY_BYTES,
        maxBodyLength: MAX_BODY_BYTES,
        maxRedirects: 3,
        proxy: false,
        ...(req.insecure === true ? { httpsAgent: new Agent({ rejectUnauthorized: false }) } : {}),
      });
      const answer = {
        status: res.status,
        contentType: String(res.headers['content-type'] ?? ''),
        body: typeof res.data === 'string' ? res.data : String(res.data),
      };
      if (RETRY_STATUS.has(res.status)) throw new RetryableAnswer(answer);
      return answer;
    } catch (err) {
      if (err instanceof RetryableAnswer) throw err;
      const final = (message: string) => new AbortError(new Error(message, { cause: err }));
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

/** A 502/503/504: retried, and returned as it is once the retries are spent. */
class RetryableAnswer extends Error {
  readonly answer: HttpAnswer;
  constructor(answer: HttpAnswer) {
    super(`HTTP ${answer.status}`);
    this.answer = answer;
  }
}

async function requestHeaders(
  req: HttpRequest,
  ctx: MeasureContext,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (req.contentType !== undefined) out['content-type'] = req.contentType;
  for (const h of req.headers ?? []) {
    const ref = h.valueFrom?.secretKeyRef;
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
  return out;
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
