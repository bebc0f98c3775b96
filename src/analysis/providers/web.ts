/**
 * The `web` provider, minimal: method, url, headers (value or Secret), body, jsonPath.
 */
import { JSONPath } from 'jsonpath-plus';
import { substituteArgs } from './args.ts';
import type { AnalysisProvider } from './provider.ts';

export const minimalWebProvider: AnalysisProvider = {
  async measure(metric, ctx) {
    const web = metric.provider.web;
    if (web === undefined) return { ok: false, message: 'metric has no web provider' };
    try {
      const headers: Record<string, string> = {};
      for (const h of web.headers ?? []) {
        const ref = h.valueFrom?.secretKeyRef;
        headers[h.key] =
          ref !== undefined
            ? await ctx.secrets.secretValue(ctx.namespace, ref)
            : substituteArgs(h.value ?? '', ctx.args);
      }
      let body: string | undefined;
      if (web.jsonBody !== undefined) {
        body = JSON.stringify(web.jsonBody);
        headers['content-type'] ??= 'application/json';
      } else if (web.body !== undefined) body = substituteArgs(web.body, ctx.args);
      const url = substituteArgs(web.url, ctx.args);
      const res = await fetch(url, {
        method: web.method ?? 'GET',
        headers,
        body,
        signal: ctx.signal,
      });
      const text = await res.text();
      if (res.status < 200 || res.status >= 300) {
        return { ok: false, message: `received non 2xx response code: ${res.status}` };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { ok: false, message: 'could not parse JSON body' };
      }
      const path = (web.jsonPath ?? '{$}').replace(/^\{(.*)\}$/, '$1');
      const found: unknown[] = JSONPath({ path, json: json as object, wrap: true }) ?? [];
      const result = found.length === 1 ? found[0] : found;
      return {
        ok: true,
        result,
        value: typeof result === 'string' ? result : JSON.stringify(result),
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const cause =
        err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      return { ok: false, message: `web request failed: ${message}${cause}` };
    }
  },
};
