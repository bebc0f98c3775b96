// Metric providers: the I/O half of src/analysis (the evaluation half, evaluate/ and expr/, is pure).
export * from './provider.ts';
export * from './registry.ts';
export { substituteArgs } from './args.ts';
export { webProvider, DEFAULT_WEB_TIMEOUT_SECONDS } from './web.ts';
export type { WebProviderOptions } from './web.ts';
export { EgressPolicy, HostNotAllowed, parseHostList } from './egress.ts';
export { Redactor, REDACTED, MAX_STORED_BYTES, capBytes } from './redact.ts';
export { readJsonPath } from './jsonpath.ts';
export { prometheusProvider, DEFAULT_PROMETHEUS_TIMEOUT_SECONDS } from './prometheus.ts';
export type { PrometheusProviderOptions } from './prometheus.ts';
export { jobProvider, jobName, JOB_RUN_LABEL, JOB_METRIC_LABEL } from './job.ts';
