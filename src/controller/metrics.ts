/**
 * The controller's Prometheus metrics. Names follow Argo Rollouts' and client-go's where they
 * exist (rollout_info, rollout_reconcile, workqueue_*, controller_clientset_k8s_request_total),
 * so one dashboard serves both. No object names on request or queue metrics: per-object labels
 * there behave like a memory leak (Argo PR #3929).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { QueueMetrics } from '../kube/workqueue.ts';
import type { RequestInfo } from '../kube/rest.ts';

export class ControllerMetrics {
  readonly registry: Registry;
  readonly reconcile: Histogram<'result'>;
  readonly reconcileErrors: Counter;
  readonly apiRequests: Counter<'verb' | 'resource' | 'code'>;
  readonly apiRequestDuration: Histogram<'verb'>;
  readonly rolloutInfo: Gauge<'namespace' | 'name' | 'strategy' | 'phase'>;
  readonly leader: Gauge;
  private readonly queueDepth: Gauge<'name'>;
  private readonly queueAdds: Counter<'name'>;
  private readonly queueLatency: Histogram<'name'>;
  private readonly workDuration: Histogram<'name'>;
  private readonly retries: Counter<'name'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [(this.registry = new Registry())];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.reconcile = new Histogram({
      name: 'rollout_reconcile',
      help: 'Rollout reconciliation duration in seconds.',
      labelNames: ['result'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.15, 0.25, 0.5, 1],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'rollout_reconcile_error',
      help: 'Rollout reconciliations that failed and were retried.',
      registers,
    });
    this.apiRequests = new Counter({
      name: 'controller_clientset_k8s_request_total',
      help: 'Kubernetes API requests by verb, resource and response code.',
      labelNames: ['verb', 'resource', 'code'],
      registers,
    });
    this.apiRequestDuration = new Histogram({
      name: 'controller_clientset_k8s_request_duration_seconds',
      help: 'Kubernetes API request latency by verb (watches excluded).',
      labelNames: ['verb'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
    this.rolloutInfo = new Gauge({
      name: 'rollout_info',
      help: 'Information about each Rollout: 1 for its current phase.',
      labelNames: ['namespace', 'name', 'strategy', 'phase'],
      registers,
    });
    this.leader = new Gauge({
      name: 'stepwise_leader',
      help: '1 while this replica holds the leader Lease.',
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of the work queue.',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Adds handled by the work queue.',
      labelNames: ['name'],
      registers,
    });
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long a key waits in the work queue before it is handled.',
      labelNames: ['name'],
      buckets: [0.0001, 0.001, 0.01, 0.1, 1, 10],
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long handling a key takes.',
      labelNames: ['name'],
      buckets: [0.0001, 0.001, 0.01, 0.1, 1, 10],
      registers,
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Retries handled by the work queue.',
      labelNames: ['name'],
      registers,
    });
  }

  queue(name: string): QueueMetrics {
    return {
      depth: (n) => this.queueDepth.set({ name }, n),
      added: () => this.queueAdds.inc({ name }),
      queueLatency: (s) => this.queueLatency.observe({ name }, s),
      workDuration: (s) => this.workDuration.observe({ name }, s),
      retried: () => this.retries.inc({ name }),
    };
  }

  request(info: RequestInfo): void {
    this.apiRequests.inc({ verb: info.verb, resource: info.resource, code: info.code });
    if (info.verb !== 'watch')
      this.apiRequestDuration.observe({ verb: info.verb }, info.durationMs / 1000);
  }

  /** Sets the one phase a Rollout is in (1) and clears the others. */
  setRolloutPhase(namespace: string, name: string, phase: string | undefined): void {
    for (const p of ['Healthy', 'Progressing', 'Paused', 'Degraded']) {
      this.rolloutInfo.set({ namespace, name, strategy: 'canary', phase: p }, p === phase ? 1 : 0);
    }
  }

  forgetRollout(namespace: string, name: string): void {
    for (const phase of ['Healthy', 'Progressing', 'Paused', 'Degraded']) {
      this.rolloutInfo.remove({ namespace, name, strategy: 'canary', phase });
    }
  }
}
