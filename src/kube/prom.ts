/**
 * prom-client, only the parts the controller uses. Its index also loads the Pushgateway, the
 * cluster aggregator and, through the process CPU metric, @opentelemetry/api (for exemplars we
 * do not use): 6.5 MB of the idle controller's RSS, measured against these modules loaded alone.
 * The classes are prom-client's own (same types, same exposition); the CPU counters are written
 * here under prom-client's names so dashboards see no difference.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof Prom.Registry;
export type Registry = Prom.Registry;
export const Counter = require('prom-client/lib/counter') as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof Prom.Histogram;
export type Histogram<T extends string = string> = Prom.Histogram<T>;

/** prom-client's default metrics except its CPU one (which loads OpenTelemetry). */
const DEFAULT_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
] as const;

type DefaultMetric = (registry: Registry, config: Record<string, unknown>) => void;

/** What prom-client's collectDefaultMetrics registers, same names and help. */
export function collectDefaultMetrics(registry: Registry): void {
  for (const name of DEFAULT_METRICS) {
    const collect = require(`prom-client/lib/metrics/${name}`) as DefaultMetric;
    collect(registry, { eventLoopMonitoringPrecision: 10 });
  }
  processCpu(registry);
}

function processCpu(registry: Registry): void {
  const registers = [registry];
  let last = process.cpuUsage();
  const system = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers,
  });
  const total = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
  });
  // One collect sets all three, as prom-client's does.
  new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      const user = (now.user - last.user) / 1e6;
      const sys = (now.system - last.system) / 1e6;
      last = now;
      this.inc(user);
      system.inc(sys);
      total.inc(user + sys);
    },
  });
}
