/**
 * The controller's Prometheus metrics. Names follow Argo Rollouts' and client-go's where they
 * exist (rollout_info, rollout_reconcile, workqueue_*, controller_clientset_k8s_request_total),
 * so one dashboard serves both. The queue and request families come from src/kube; no object
 * names on them: per-object labels there behave like a memory leak (Argo PR #3929).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { requestMetrics, workqueueMetrics } from '../kube/index.ts';
import type { RequestInfo, QueueMetrics } from '../kube/index.ts';

export class ControllerMetrics {
  readonly registry: Registry;
  readonly reconcile: Histogram<'result'>;
  readonly reconcileErrors: Counter;
  readonly rolloutInfo: Gauge<'namespace' | 'name' | 'strategy' | 'phase'>;
  readonly leader: Gauge;
  /** No Rollout labels: the Warning event and the log line name the Rollout (see the header). */
  readonly statusWriteStorms: Counter;
  readonly statusWritesSuppressed: Counter;
  /** Both controllers' passes, by controller name (`rollout`, `analysisrun`). */
  readonly controllerReconcile: Histogram<'controller' | 'result'>;
  readonly analysisMeasurements: Counter<'provider' | 'phase'>;
  /** Idle-time memory reclaims (memory-reclaim.ts): how long each paused the process. */
  readonly memoryReclaim: Histogram;
  readonly queue: (name: string) => QueueMetrics;
  readonly request: (info: RequestInfo) => void;
  /** The phase each Rollout's rollout_info series carries. */
  /** The labels of each Rollout's series (phase and strategy), to move it on a change. */
  readonly #phases = new Map<string, { phase: string; strategy: string }>();

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    this.registry = new Registry();
    const registers = [this.registry];
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.queue = workqueueMetrics(this.registry);
    this.request = requestMetrics(this.registry);
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
    this.rolloutInfo = new Gauge({
      name: 'rollout_info',
      help: 'Information about each Rollout: 1 for its current phase.',
      labelNames: ['namespace', 'name', 'strategy', 'phase'],
      registers,
    });
    this.controllerReconcile = new Histogram({
      name: 'stepwise_controller_reconcile_seconds',
      help: 'Reconcile pass duration in seconds, by controller.',
      labelNames: ['controller', 'result'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.15, 0.25, 0.5, 1, 5, 30],
      registers,
    });
    this.analysisMeasurements = new Counter({
      name: 'stepwise_analysis_measurements_total',
      help: 'AnalysisRun measurements taken, by provider and phase.',
      labelNames: ['provider', 'phase'],
      registers,
    });
    this.memoryReclaim = new Histogram({
      name: 'stepwise_memory_reclaim_seconds',
      help: 'Memory-reducing collections run while the controller was idle, by duration.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.leader = new Gauge({
      name: 'stepwise_leader',
      help: '1 while this replica holds the leader Lease.',
      registers,
    });
    this.statusWriteStorms = new Counter({
      name: 'stepwise_status_write_storms_total',
      help: 'Rollouts backed off for rewriting their status without progress (a planner bug).',
      registers,
    });
    this.statusWritesSuppressed = new Counter({
      name: 'stepwise_status_writes_suppressed_total',
      help: 'Status writes held back by the write-storm guard.',
      registers,
    });
  }

  /**
   * One series per Rollout, 1, labelled with its phase (Argo's rollout_info); a phase change moves
   * it. Not one per phase with 0s: at 10,000 Rollouts those 50,000 series took /metrics 150-330 ms
   * to render, the event loop blocked all the while.
   */
  setRolloutPhase(
    namespace: string,
    name: string,
    phase: string | undefined,
    strategy = 'canary',
  ): void {
    const key = `${namespace}/${name}`;
    const before = this.#phases.get(key);
    if (before?.phase === phase && before?.strategy === strategy) return;
    if (before !== undefined) this.rolloutInfo.remove({ namespace, name, ...before });
    if (phase === undefined) {
      this.#phases.delete(key);
      return;
    }
    this.rolloutInfo.set({ namespace, name, strategy, phase }, 1);
    this.#phases.set(key, { phase, strategy });
  }

  forgetRollout(namespace: string, name: string): void {
    this.setRolloutPhase(namespace, name, undefined);
  }
}
