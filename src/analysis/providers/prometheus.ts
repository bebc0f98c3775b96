/**
 * The `prometheus` provider: one instant query (or a range query) per measurement, through the
 * shared HTTP request (axios, retries for transport errors only, credentials from Secrets).
 * Results as Argo gives them to conditions: a scalar is a number, a vector a list of numbers
 * (one per series), a matrix all samples flattened; Prometheus' "NaN", "+Inf" and "-Inf" are the
 * numbers they name and an empty vector is `[]`, all values to judge, never errors. Anything
 * else the server answers is an Error with what it said. An address a template sets is checked
 * against the egress policy; the administrator's STEPWISE_PROMETHEUS_ADDRESS is trusted as set.
 */
import type { Metric, PrometheusMetric } from '../../api/index.ts';
import { parseGoDuration } from '../../api/duration.ts';
import type { ProviderOutcome } from '../evaluate/index.ts';
import { substituteArgs } from './args.ts';
import { EgressPolicy } from './egress.ts';
import { send } from './http.ts';
import type { MeasureContext, ProviderModule, SynchronousProvider } from './provider.ts';
import { parseRangeTime } from './range-time.ts';

/** Argo's default `timeout`, seconds. */
export const DEFAULT_PROMETHEUS_TIMEOUT_SECONDS = 30;

export interface PrometheusProviderOptions {
  /** Used when a metric names no address (Argo: ARGO_ROLLOUTS_PROMETHEUS_ADDRESS). */
  readonly defaultAddress?: string;
  readonly now?: () => number;
  /** Checks addresses set by templates. Default: the built-in denies only. */
  readonly egress?: EgressPolicy;
}

export function prometheusProvider(opts: PrometheusProviderOptions = {}): SynchronousProvider {
  const now = opts.now ?? Date.now;
  const egress = opts.egress ?? new EgressPolicy();
  return {
    async measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome> {
      const p = metric.provider.prometheus;
      if (p === undefined) return { ok: false, message: 'metric has no prometheus provider' };
      try {
        return await measure(p, ctx, { defaultAddress: opts.defaultAddress, egress }, now());
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** `STEPWISE_PROMETHEUS_ADDRESS` is the address of metrics that name none (Argo's
 *  ARGO_ROLLOUTS_PROMETHEUS_ADDRESS). */
export const prometheus: ProviderModule<'prometheus'> = {
  name: 'prometheus',
  matches: (metric) => metric.provider.prometheus !== undefined,
  timeoutMs: (metric) =>
    (metric.provider.prometheus?.timeout || DEFAULT_PROMETHEUS_TIMEOUT_SECONDS) * 1000,
  kinds: [],
  create: ({ env, egress }) =>
    prometheusProvider({ defaultAddress: env['STEPWISE_PROMETHEUS_ADDRESS'], egress }),
};

async function measure(
  p: PrometheusMetric,
  ctx: MeasureContext,
  where: { defaultAddress: string | undefined; egress: EgressPolicy },
  nowMs: number,
): Promise<ProviderOutcome> {
  const { defaultAddress } = where;
  const address = substituteArgs(p.address || defaultAddress || '', ctx.args).replace(/\/+$/, '');
  if (address === '') {
    return {
      ok: false,
      message:
        'no Prometheus address: set provider.prometheus.address or STEPWISE_PROMETHEUS_ADDRESS',
    };
  }
  const query = substituteArgs(p.query ?? '', ctx.args);
  if (query.trim() === '') return { ok: false, message: 'provider.prometheus.query is empty' };
  const range = p.rangeQuery === undefined ? undefined : rangeParams(p.rangeQuery, ctx, nowMs);
  if (range instanceof Error) return { ok: false, message: range.message };
  const params: Record<string, string> =
    range === undefined ? { query, time: seconds(nowMs) } : { query, ...range };
  const answer = await send(
    {
      method: 'GET',
      url: `${address}/api/v1/${range === undefined ? 'query' : 'query_range'}`,
      params,
      headers: p.headers,
      authentication: p.authentication,
      timeoutMs: (p.timeout || DEFAULT_PROMETHEUS_TIMEOUT_SECONDS) * 1000,
      insecure: p.insecure,
      what: `Prometheus at ${address}`,
      // The administrator's own address is exempt; one a template names is checked.
      egress: p.address ? where.egress : undefined,
    },
    ctx,
  );
  const parsed = readAnswer(answer.status, answer.body);
  if (!parsed.ok) return { ok: false, message: `Prometheus at ${address}: ${parsed.message}` };
  const metadata: Record<string, string> = { resolvedPrometheusQuery: query };
  if (parsed.warnings.length > 0) metadata['warnings'] = parsed.warnings.join('; ');
  return { ok: true, result: parsed.result, value: parsed.value, metadata };
}

function rangeParams(
  r: NonNullable<PrometheusMetric['rangeQuery']>,
  ctx: MeasureContext,
  nowMs: number,
): Record<string, string> | Error {
  const start = parseRangeTime(
    substituteArgs(r.start ?? 'now() - duration("5m")', ctx.args),
    nowMs,
  );
  if (!start.ok) return new Error(`rangeQuery.start ${start.error}`);
  const end = parseRangeTime(substituteArgs(r.end ?? 'now()', ctx.args), nowMs);
  if (!end.ok) return new Error(`rangeQuery.end ${end.error}`);
  const step = parseGoDuration(substituteArgs(r.step ?? '1m', ctx.args));
  if (!step.ok) return new Error(`rangeQuery.step ${step.error}`);
  if (step.value <= 0) return new Error('rangeQuery.step must be greater than 0');
  if (end.ms < start.ms) return new Error('rangeQuery.end is before rangeQuery.start');
  return { start: seconds(start.ms), end: seconds(end.ms), step: `${step.value / 1000}s` };
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

type Parsed =
  | { ok: true; result: number | number[]; value: string; warnings: string[] }
  | { ok: false; message: string };

/** Prometheus' HTTP API answer → Argo's result shape; anything unexpected is a clear error. */
export function readAnswer(status: number, body: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const snippet = body.slice(0, 120).replace(/\s+/g, ' ').trim();
    return { ok: false, message: `HTTP ${status}, not a JSON answer: ${JSON.stringify(snippet)}` };
  }
  if (!isObject(json) || typeof json['status'] !== 'string') {
    return { ok: false, message: `HTTP ${status}, not a Prometheus API answer` };
  }
  if (json['status'] !== 'success') {
    const type = typeof json['errorType'] === 'string' ? json['errorType'] : 'error';
    const error = typeof json['error'] === 'string' ? json['error'] : 'no error message';
    return { ok: false, message: `query failed (HTTP ${status}, ${type}): ${error}` };
  }
  const warnings = Array.isArray(json['warnings']) ? json['warnings'].map(String) : [];
  const data = json['data'];
  if (!isObject(data)) return { ok: false, message: 'answer has no data' };
  const result = data['result'];
  switch (data['resultType']) {
    case 'scalar': {
      const v = sample(result);
      if (v === undefined) return { ok: false, message: 'malformed scalar result' };
      return { ok: true, result: v, value: formatFloat(v), warnings };
    }
    case 'vector': {
      if (!Array.isArray(result)) return { ok: false, message: 'malformed vector result' };
      const values: number[] = [];
      for (const series of result) {
        const v = isObject(series) ? sample(series['value']) : undefined;
        if (v === undefined) return { ok: false, message: 'malformed vector sample' };
        values.push(v);
      }
      return { ok: true, result: values, value: formatList(values), warnings };
    }
    case 'matrix': {
      if (!Array.isArray(result)) return { ok: false, message: 'malformed matrix result' };
      const values: number[] = [];
      for (const series of result) {
        const samples = isObject(series) ? series['values'] : undefined;
        if (!Array.isArray(samples)) return { ok: false, message: 'malformed matrix series' };
        for (const s of samples) {
          const v = sample(s);
          if (v === undefined) return { ok: false, message: 'malformed matrix sample' };
          values.push(v);
        }
      }
      return { ok: true, result: values, value: formatList(values), warnings };
    }
    default:
      return {
        ok: false,
        message: `result type ${JSON.stringify(data['resultType'])} is not supported (scalar, vector or matrix)`,
      };
  }
}

/** `[<unix seconds>, "<value>"]` → the value; Prometheus writes NaN and ±Inf as strings. */
function sample(pair: unknown): number | undefined {
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[1] !== 'string') return undefined;
  const text = pair[1];
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  const v = Number(text);
  return text.trim() === '' || Number.isNaN(v) ? undefined : v;
}

/** Go's strconv.FormatFloat(v, 'f', -1, 64), as Prometheus' SampleValue prints. */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const s = String(v);
  if (!/e/i.test(s)) return s;
  // No exponent in Go's 'f' format: spell the digits out.
  return v.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 100 });
}

const formatList = (values: readonly number[]): string => `[${values.map(formatFloat).join(',')}]`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
