// What a benchmark module looks like, and the statistics every one of them reports.
// A module in test/bench/ named *.bench.ts default-exports a Benchmark; run.ts runs them in
// order, prints their summaries and writes their data to .stepwise/bench/<name>.json, where
// later benchmarks read earlier ones (for example the API server floor) to compute ratios.
import { cpus, totalmem } from 'node:os';
import type { Cluster } from '../cluster/cluster.ts';

export interface BenchContext {
  /** Directory with the control-plane binaries. */
  readonly binDir: string;
  /** A fresh cluster shared by the benchmarks of this run, started on first use. */
  cluster(): Promise<Cluster>;
  /** A cluster of this benchmark's own, empty of what earlier ones left (the memory bench's
   *  idle figure must cache nothing); stopped when the benchmark ends. */
  ownCluster(): Promise<Cluster>;
  /** Data an earlier benchmark wrote (this run's, or a previous run's), if any. */
  previous(name: string): Promise<unknown>;
  /** Progress, so a long benchmark is not mistaken for a hung one. */
  log(line: string): void;
}

export interface BenchResult {
  /** Human-readable figures, one per line. */
  readonly summary: readonly string[];
  /** Written as JSON to .stepwise/bench/<name>.json. */
  readonly data: Record<string, unknown>;
}

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

export interface Stats {
  readonly samples: number;
  readonly min: number;
  readonly p50: number;
  readonly p90: number;
  /** The 6th largest of 100: a tail that one stalled sample cannot decide, unlike the p99. */
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentiles, rounded to microseconds. */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) throw new Error('no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    samples: sorted.length,
    min: round(sorted[0]!),
    p50: round(rank(50)),
    p90: round(rank(90)),
    p95: round(rank(95)),
    p99: round(rank(99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

export function formatStats(label: string, s: Stats, unit = 'ms'): string {
  const f = (x: number) => x.toFixed(2);
  return (
    `${label.padEnd(44)} p50 ${f(s.p50)} ${unit}  p90 ${f(s.p90)}  p95 ${f(s.p95)}  p99 ${f(s.p99)}  ` +
    `max ${f(s.max)}  (n=${s.samples})`
  );
}

export function machine(): Record<string, unknown> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
}
