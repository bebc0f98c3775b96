/**
 * prom-client adapters for the hooks in src/kube: the work queue's `QueueMetrics` (client-go's
 * `workqueue_*` family, label `name`) and the REST client's per-request hook
 * (`controller_clientset_k8s_request_total`, as Argo Rollouts names it, but with low-cardinality
 * labels only: verb, resource, code; never object names or namespaces), with the time spent
 * waiting for the client rate limiter.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RequestInfo } from './rest.ts';
import type { QueueMetrics } from './workqueue.ts';

/** client-go's buckets: 10 ns to 10 s, ×10. */
const DURATION_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

/** Returns a factory: one `QueueMetrics` per queue name, all on `registry`. */
export function workqueueMetrics(registry: Registry): (queueName: string) => QueueMetrics {
  const registers = [registry];
  const labelNames = ['name'] as const;
  const depth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of the work queue.',
    labelNames,
    registers,
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Adds handled by the work queue.',
    labelNames,
    registers,
  });
  const latency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long a key waits in the work queue before a worker takes it.',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const work = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long processing a key takes.',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Rate-limited re-adds (failures).',
    labelNames,
    registers,
  });
  return (queueName) => {
    const l = { name: queueName };
    return {
      depth: (n) => depth.set(l, n),
      added: () => adds.inc(l),
      queueLatency: (s) => latency.observe(l, s),
      workDuration: (s) => work.observe(l, s),
      retried: () => retries.inc(l),
    };
  };
}

/** An `onRequest` hook for `RestClient` counting and timing API requests. */
export function requestMetrics(registry: Registry): (info: RequestInfo) => void {
  const registers = [registry];
  const total = new Counter({
    name: 'controller_clientset_k8s_request_total',
    help: 'Kubernetes API requests by verb, resource and HTTP status code.',
    labelNames: ['verb', 'resource', 'code'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'controller_clientset_k8s_request_duration_seconds',
    help: 'Kubernetes API request latency until response headers, by verb and resource.',
    labelNames: ['verb', 'resource'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  // client-go's rest_client_rate_limiter_duration_seconds (same buckets), in this family's names.
  const rateLimiterWait = new Histogram({
    name: 'controller_clientset_k8s_rate_limiter_duration_seconds',
    help: 'Time API requests waited for the client rate limiter (--qps/--burst), by verb and resource.',
    labelNames: ['verb', 'resource'] as const,
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registers,
  });
  return (info) => {
    const labels = { verb: info.verb, resource: info.resource };
    total.inc({ ...labels, code: info.code });
    duration.observe(labels, info.durationMs / 1000);
    if (info.rateLimiterWaitMs !== undefined) {
      rateLimiterWait.observe(labels, info.rateLimiterWaitMs / 1000);
    }
  };
}
