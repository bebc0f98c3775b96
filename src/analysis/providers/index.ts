// Metric providers: the I/O half of src/analysis (the evaluation half, evaluate/ and expr/, is pure).
export * from './provider.ts';
export { substituteArgs } from './args.ts';
export { minimalWebProvider } from './web.ts';
export { prometheusProvider, DEFAULT_PROMETHEUS_TIMEOUT_SECONDS } from './prometheus.ts';
export type { PrometheusProviderOptions } from './prometheus.ts';
