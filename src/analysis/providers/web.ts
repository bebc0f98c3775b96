/**
 * The `web` provider: one HTTP request per measurement (GET, POST or PUT; url, headers and body
 * with `{{args.x}}`; headers from Secrets), through the shared axios request with its retries
 * for transport failures, `timeoutSeconds` (default 10) and TLS verification unless `insecure`.
 * A JSON answer is read at `jsonPath` (default `{$}`); any other answer is the raw text, as in
 * Argo. A non-2xx status is an Error. Requests go only where the egress policy allows.
 */
import type { Metric, WebMetric } from '../../api/index.ts';
import type { ProviderOutcome } from '../evaluate/index.ts';
import { substituteArgs } from './args.ts';
import { EgressPolicy } from './egress.ts';
import { send } from './http.ts';
import { readJsonPath } from './jsonpath.ts';
import type { MeasureContext, ProviderModule, SynchronousProvider } from './provider.ts';

/** Argo's default `timeoutSeconds`. */
export const DEFAULT_WEB_TIMEOUT_SECONDS = 10;

export interface WebProviderOptions {
  /** Default: the built-in denies only (no loopback, link-local or metadata addresses). */
  readonly egress?: EgressPolicy;
}

export function webProvider(opts: WebProviderOptions = {}): SynchronousProvider {
  const egress = opts.egress ?? new EgressPolicy();
  return {
    async measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome> {
      const web = metric.provider.web;
      if (web === undefined) return { ok: false, message: 'metric has no web provider' };
      try {
        return await measure(web, ctx, egress);
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

export const web: ProviderModule<'web'> = {
  name: 'web',
  matches: (metric) => metric.provider.web !== undefined,
  timeoutMs: (metric) =>
    (metric.provider.web?.timeoutSeconds || DEFAULT_WEB_TIMEOUT_SECONDS) * 1000,
  kinds: [],
  create: ({ egress }) => webProvider({ egress }),
};

async function measure(
  web: WebMetric,
  ctx: MeasureContext,
  egress: EgressPolicy,
): Promise<ProviderOutcome> {
  const url = substituteArgs(web.url, ctx.args);
  const body =
    web.jsonBody !== undefined
      ? JSON.stringify(web.jsonBody)
      : web.body !== undefined
        ? substituteArgs(web.body, ctx.args)
        : undefined;
  const answer = await send(
    {
      method: web.method ?? 'GET',
      url,
      headers: web.headers,
      body,
      ...(web.jsonBody !== undefined ? { contentType: 'application/json' } : {}),
      timeoutMs: (web.timeoutSeconds || DEFAULT_WEB_TIMEOUT_SECONDS) * 1000,
      insecure: web.insecure,
      what: `web request to ${url}`,
      egress,
    },
    ctx,
  );
  if (answer.status < 200 || answer.status >= 300) {
    return { ok: false, message: `received non 2xx response code: ${answer.status}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return { ok: true, result: answer.body, value: answer.body };
  }
  const found = readJsonPath(web.jsonPath || '{$}', json);
  if (!found.ok) return { ok: false, message: found.error };
  const value = typeof found.value === 'string' ? found.value : JSON.stringify(found.value);
  return { ok: true, result: found.value, value };
}
