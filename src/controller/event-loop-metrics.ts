/**
 * prom-client's default process metrics, with the event-loop delay family sampled once a second
 * and reported as delay. prom-client's 10 ms default woke an idle process 100 times a second
 * (79 ms of CPU per 10 s in a bare Node process, 6 ms at 1000: issue 24). But Node's histogram
 * records the time between two samples, the sampling interval included, and prom-client reports
 * that as is: at a 1 s interval an idle controller would show 1 s of "lag". Here the interval is
 * taken off, so the gauges mean what their names say at any interval.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

/** How often (ms) the event-loop delay is sampled. */
export const EVENT_LOOP_SAMPLE_MS = 1000;

const LAG_FAMILY = 'nodejs_eventloop_lag_';

/** Node's delay histogram as far as these gauges read it. */
export interface DelayHistogram {
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly stddev: number;
  percentile(p: number): number;
  reset(): void;
}

const FIGURES = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'] as const;
type Figure = (typeof FIGURES)[number];

/**
 * Seconds of delay per figure from a histogram of sample intervals (ns); nothing while no sample
 * was taken since the last read (Node's empty histogram says min 9.2e18).
 */
export function delayFigures(
  h: DelayHistogram,
  intervalMs: number,
): Record<Figure, number> | undefined {
  if (h.count === 0) return undefined;
  const interval = intervalMs * 1e6;
  const late = (ns: number): number => Math.max(0, ns - interval) / 1e9;
  return {
    min: late(h.min),
    max: late(h.max),
    mean: late(h.mean),
    stddev: h.stddev / 1e9, // a spread: the interval does not shift it
    p50: late(h.percentile(50)),
    p90: late(h.percentile(90)),
    p99: late(h.percentile(99)),
  };
}

/** prom-client's defaults into `registry`, the event-loop delay family from here. */
export function processMetrics(registry: Registry, intervalMs = EVENT_LOOP_SAMPLE_MS): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: intervalMs });
  // prom-client's own lag family goes; the same names are registered below.
  for (const suffix of ['', ...FIGURES.map((f) => `${f}_`)]) {
    registry.removeSingleMetric(`${LAG_FAMILY}${suffix}seconds`);
  }
  const histogram = monitorEventLoopDelay({ resolution: intervalMs });
  histogram.enable();
  const gauge = (figure: string, help: string, collect?: () => void): Gauge =>
    new Gauge({ name: `${LAG_FAMILY}${figure}seconds`, help, registers: [registry], collect });
  const figures: Record<Figure, Gauge> = {
    min: gauge('min_', 'The minimum recorded event loop delay.'),
    max: gauge('max_', 'The maximum recorded event loop delay.'),
    mean: gauge('mean_', 'The mean of the recorded event loop delays.'),
    stddev: gauge('stddev_', 'The standard deviation of the recorded event loop delays.'),
    p50: gauge('p50_', 'The 50th percentile of the recorded event loop delays.'),
    p90: gauge('p90_', 'The 90th percentile of the recorded event loop delays.'),
    p99: gauge('p99_', 'The 99th percentile of the recorded event loop delays.'),
  };
  // One collect sets the whole family, as prom-client's does; the lag itself is measured from
  // this scrape to the next turn of the loop and shown at the next scrape.
  const lag = gauge('', 'Lag of event loop in seconds.', () => {
    const start = process.hrtime.bigint();
    setImmediate(() => lag.set(Number(process.hrtime.bigint() - start) / 1e9));
    const now = delayFigures(histogram, intervalMs);
    histogram.reset();
    if (now === undefined) return;
    for (const [figure, g] of Object.entries(figures) as [Figure, Gauge][]) g.set(now[figure]);
  });
}
