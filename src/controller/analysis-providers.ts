/**
 * The providers the AnalysisRun controller measures with, by name. A small interface so the shell
 * does not depend on how a provider talks to its backend; src/analysis/providers/ supplies the
 * real ones. Until they land, `minimalWebProvider` (fetch + JSONPath) serves `web`.
 */
import { JSONPath } from 'jsonpath-plus';
import type { Metric } from '../api/index.ts';
import type { ProviderOutcome } from '../analysis/evaluate/index.ts';
import type { SecretSource } from './analysis-sources.ts';

export type ProviderName = 'prometheus' | 'web' | 'job';

export interface MeasureContext {
  readonly namespace: string;
  readonly args: Readonly<Record<string, string>>;
  readonly secrets: SecretSource;
  /** Aborted on timeout or shutdown; a provider that ignores it is abandoned anyway. */
  readonly signal: AbortSignal;
}

export interface AnalysisProvider {
  measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome>;
}

export type ProviderRegistry = Readonly<Partial<Record<ProviderName, AnalysisProvider>>>;

export function providerName(metric: Metric): ProviderName | undefined {
  const p = metric.provider;
  if (p.prometheus !== undefined) return 'prometheus';
  if (p.web !== undefined) return 'web';
  if (p.job !== undefined) return 'job';
  return undefined;
}

const DEFAULT_TIMEOUT_SECONDS = { prometheus: 30, web: 10, job: 0 } as const;
/** Past the provider's own timeout: time to report it before the shell gives up on it. */
const TIMEOUT_GRACE_MS = 5_000;

/** How long the shell waits for one measurement before recording it as Error. */
export function measurementTimeoutMs(metric: Metric, capMs: number): number {
  const name = providerName(metric);
  if (name === undefined || name === 'job') return capMs;
  const own =
    name === 'web' ? metric.provider.web?.timeoutSeconds : metric.provider.prometheus?.timeout;
  const seconds = own || DEFAULT_TIMEOUT_SECONDS[name];
  return Math.min(capMs, seconds * 1000 + TIMEOUT_GRACE_MS);
}

/** `{{args.name}}` → the argument; an unknown name is an error naming it. */
export function substituteArgs(text: string, args: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, name: string) => {
    const v = args[name];
    if (v === undefined) throw new Error(`unknown argument {{args.${name}}}`);
    return v;
  });
}

/** The `web` provider, minimal: method, url, headers (value or Secret), body, jsonPath. */
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
