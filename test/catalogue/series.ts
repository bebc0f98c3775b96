// Recorded series for the catalogue's tests: ten minutes at 15 s resolution of what each source
// exports for a stable version and a canary, healthy (0.5 % errors, p99 about 120 ms) or bad
// (20 % errors, p99 about 2 s), in OpenMetrics text for `promtool tsdb create-blocks-from
// openmetrics`. Deterministic: counts are fixed fractions of a steady request rate.

export type Variant = 'healthy' | 'bad';

/** How one source names its counters, histogram and labels. */
export interface Source {
  /** File under analysis/. */
  readonly file: string;
  /** The arg a Rollout fills to select the canary, and its value for a variant. */
  readonly canaryArgs: (variant: Variant) => Record<string, string>;
  /** The labels of the canary (or stable) series for a variant. */
  readonly select: (who: Variant | 'stable') => Record<string, string>;
  readonly requests: {
    readonly family: string;
    /** `counter` families end in _total; others are exported as `unknown` (rate() reads them). */
    readonly type: 'counter' | 'unknown';
    readonly sample: string;
    readonly ok: Record<string, string>;
    readonly failed: Record<string, string>;
  };
  readonly latency: { readonly family: string; readonly scale: 1 | 1000 };
}

const NS = 'shop';
const hashOf = (who: Variant | 'stable') =>
  ({ stable: 'st4bl3', healthy: 'g00d', bad: 'b4d' })[who];
const serviceOf = (who: Variant | 'stable') =>
  who === 'stable' ? 'web-stable' : `web-canary-${who}`;

export const SOURCES: readonly Source[] = [
  {
    file: 'prom-client-http.yaml',
    canaryArgs: (v) => ({ 'canary-hash': hashOf(v) }),
    select: (who) => ({ rollouts_pod_template_hash: hashOf(who) }),
    requests: {
      family: 'http_requests',
      type: 'counter',
      sample: 'http_requests_total',
      ok: { code: '200' },
      failed: { code: '503' },
    },
    latency: { family: 'http_request_duration_seconds', scale: 1 },
  },
  {
    file: 'istio.yaml',
    canaryArgs: (v) => ({ 'canary-hash': hashOf(v) }),
    select: (who) => ({
      reporter: 'destination',
      destination_workload: 'web',
      rollouts_pod_template_hash: hashOf(who),
    }),
    requests: {
      family: 'istio_requests',
      type: 'counter',
      sample: 'istio_requests_total',
      ok: { response_code: '200' },
      failed: { response_code: '500' },
    },
    latency: { family: 'istio_request_duration_milliseconds', scale: 1000 },
  },
  {
    file: 'nginx-ingress.yaml',
    canaryArgs: (v) => ({ namespace: NS, 'canary-service': serviceOf(v) }),
    select: (who) => ({ exported_namespace: NS, ingress: 'web', service: serviceOf(who) }),
    requests: {
      family: 'nginx_ingress_controller_requests',
      type: 'unknown',
      sample: 'nginx_ingress_controller_requests',
      ok: { status: '200' },
      failed: { status: '502' },
    },
    latency: { family: 'nginx_ingress_controller_request_duration_seconds', scale: 1 },
  },
  {
    file: 'envoy-gateway.yaml',
    canaryArgs: (v) => ({ namespace: NS, 'canary-service': serviceOf(v) }),
    select: (who) => ({ envoy_cluster_name: `${NS}/${serviceOf(who)}/80/da39a3ee5e` }),
    requests: {
      family: 'envoy_cluster_upstream_rq_xx',
      type: 'unknown',
      sample: 'envoy_cluster_upstream_rq_xx',
      ok: { envoy_response_code_class: '2' },
      failed: { envoy_response_code_class: '5' },
    },
    latency: { family: 'envoy_cluster_upstream_rq_time', scale: 1000 },
  },
  {
    file: 'linkerd.yaml',
    canaryArgs: (v) => ({ 'canary-hash': hashOf(v) }),
    select: (who) => ({
      direction: 'inbound',
      deployment: 'web',
      rollouts_pod_template_hash: hashOf(who),
    }),
    requests: {
      family: 'response',
      type: 'counter',
      sample: 'response_total',
      ok: { classification: 'success' },
      failed: { classification: 'failure' },
    },
    latency: { family: 'response_latency_ms', scale: 1000 },
  },
];

/** Bucket bounds in seconds (scaled to ms for sources that count in ms). */
const BOUNDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const RPS = 20;
const STEP_S = 15;
const DURATION_S = 600;

/** Share of requests at each latency, in seconds: healthy p99 ≈ 120 ms, bad p99 ≈ 2 s. */
const LATENCIES: Record<Variant | 'stable', readonly [number, number][]> = {
  stable: [
    [0.03, 0.9],
    [0.08, 0.095],
    [0.2, 0.005],
  ],
  healthy: [
    [0.03, 0.9],
    [0.08, 0.09],
    [0.12, 0.01],
  ],
  bad: [
    [0.03, 0.5],
    [0.4, 0.3],
    [2, 0.2],
  ],
};
const ERROR_RATE: Record<Variant | 'stable', number> = { stable: 0.001, healthy: 0.005, bad: 0.2 };

const labelText = (labels: Record<string, string>): string =>
  `{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

/** OpenMetrics text of `source` for the stable version and both canaries, ending at `endMs`. */
export function openMetrics(source: Source, endMs: number): string {
  const whos = ['stable', 'healthy', 'bad'] as const;
  const end = Math.floor(endMs / 1000);
  const times: number[] = [];
  for (let t = end - DURATION_S; t <= end; t += STEP_S) times.push(t);
  const lines: string[] = [];
  const r = source.requests;
  lines.push(`# TYPE ${r.family} ${r.type}`);
  for (const who of whos) {
    for (const [kind, extra] of [
      ['ok', r.ok],
      ['failed', r.failed],
    ] as const) {
      const labels = labelText({ ...source.select(who), ...extra });
      for (const [i, t] of times.entries()) {
        const total = i * STEP_S * RPS;
        const failed = Math.round(total * ERROR_RATE[who]);
        lines.push(`${r.sample}${labels} ${kind === 'ok' ? total - failed : failed} ${t}`);
      }
    }
  }
  const h = source.latency;
  lines.push(`# TYPE ${h.family} histogram`);
  // One MetricPoint per series and time: its buckets, count and sum together, in time order.
  for (const who of whos) {
    const base = source.select(who);
    const bounds = [...BOUNDS.map((b) => b * h.scale), Infinity];
    const mean = LATENCIES[who].reduce((s, [v, p]) => s + v * p, 0) * h.scale;
    for (const [i, t] of times.entries()) {
      const n = i * STEP_S * RPS;
      for (const bound of bounds) {
        const le = bound === Infinity ? '+Inf' : String(bound);
        const share = LATENCIES[who]
          .filter(([s]) => s * h.scale <= bound)
          .reduce((sum, [, p]) => sum + p, 0);
        lines.push(`${h.family}_bucket${labelText({ ...base, le })} ${Math.round(n * share)} ${t}`);
      }
      lines.push(`${h.family}_count${labelText(base)} ${n} ${t}`);
      lines.push(`${h.family}_sum${labelText(base)} ${(n * mean).toFixed(3)} ${t}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}
