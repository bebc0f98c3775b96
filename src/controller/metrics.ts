/**
 * The controller's Prometheus metrics. Names follow Argo Rollouts' and client-go's where they
 * exist (rollout_info, rollout_events_total, analysis_run_*, rollout_reconcile, workqueue_*,
 * controller_clientset_k8s_request_total), with Argo's labels and values, so one dashboard
 * serves both. The queue and request families come from src/kube; no object names on them:
 * per-object labels there behave like a memory leak (Argo PR #3929). The per-object families
 * here drop an object's series when it goes.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ROLLOUT_KIND } from '../api/index.ts';
import type { AnalysisRun, Rollout } from '../api/index.ts';
import { requestMetrics, workqueueMetrics } from '../kube/index.ts';
import type { KubeObject, RequestInfo, QueueMetrics } from '../kube/index.ts';
import { analysisRunSeries } from './analysis-metrics.ts';
import { processMetrics, type EventLoopActivity } from './event-loop-metrics.ts';
import type { AnalysisRunSeries } from './analysis-metrics.ts';
import { canaryProgress, replicaFigures, rolloutInfoLabels } from './rollout-metrics.ts';
import type { RolloutInfoLabels } from './rollout-metrics.ts';

type ObjectLabels = 'namespace' | 'name';
type EventLabels = Record<ObjectLabels | 'type' | 'reason', string>;

export interface ControllerMetricsOptions {
  /** prom-client's process and Node metrics (default on). */
  readonly defaultMetrics?: boolean;
  /** --rollout-replica-metrics: Argo's rollout_info_replicas_* gauges, 4 series per Rollout
   *  (default off). */
  readonly replicaGauges?: boolean;
}

/** Argo's rollout_info_replicas_* families (rollout-metrics.ts replicaFigures). */
interface ReplicaGauges {
  readonly available: Gauge<ObjectLabels>;
  readonly unavailable: Gauge<ObjectLabels>;
  readonly desired: Gauge<ObjectLabels>;
  readonly updated: Gauge<ObjectLabels>;
}

export class ControllerMetrics {
  readonly registry: Registry;
  readonly reconcile: Histogram<'result'>;
  readonly reconcileErrors: Counter;
  readonly rolloutInfo: Gauge<keyof RolloutInfoLabels>;
  readonly rolloutEvents: Counter<ObjectLabels | 'type' | 'reason'>;
  readonly analysisRunInfo: Gauge<ObjectLabels | 'phase'>;
  readonly analysisRunMetricType: Gauge<ObjectLabels | 'metric' | 'type'>;
  readonly analysisRunMetricPhase: Gauge<ObjectLabels | 'metric' | 'type' | 'dry_run' | 'phase'>;
  /** Ours, only while a canary update is in flight (rollout-metrics.ts canaryProgress). */
  readonly canaryWeight: Gauge<ObjectLabels>;
  readonly canaryStep: Gauge<ObjectLabels>;
  readonly leader: Gauge;
  /** No Rollout labels: the Warning event and the log line name the Rollout (see the header). */
  readonly statusWriteStorms: Counter;
  readonly statusWritesSuppressed: Counter;
  /** Both controllers' passes, by controller name (`rollout`, `analysisrun`). */
  readonly controllerReconcile: Histogram<'controller' | 'result'>;
  readonly analysisMeasurements: Counter<'provider' | 'phase'>;
  /** Idle-time memory reclaims (memory-reclaim.ts): how long each paused the process. */
  readonly memoryReclaim: Histogram;
  /** Told of each piece of work: the event-loop delay is sampled only around work. */
  readonly eventLoop: EventLoopActivity;
  readonly queue: (name: string) => QueueMetrics;
  readonly request: (info: RequestInfo) => void;
  readonly #replicaGauges: ReplicaGauges | undefined;
  /** The labels of each Rollout's rollout_info series, to move it on a change. */
  readonly #rollouts = new Map<string, RolloutInfoLabels>();
  /** Rollouts with canary progress series now. */
  readonly #inFlight = new Set<string>();
  /** Each Rollout's rollout_events_total series (by type/reason), to drop them with it. */
  readonly #eventSeries = new Map<string, Map<string, EventLabels>>();
  /** What each AnalysisRun's series say, to move them on a change. */
  readonly #runs = new Map<string, AnalysisRunSeries>();

  constructor(opts: ControllerMetricsOptions = {}) {
    this.registry = new Registry();
    const registers = [this.registry];
    this.eventLoop =
      opts.defaultMetrics === false
        ? { sampling: false, noteActivity: () => undefined, stop: () => undefined }
        : processMetrics(this.registry);
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
      help: "Information about rollout: 1, labelled with its phase (Argo's) and status_phase.",
      labelNames: ['namespace', 'name', 'strategy', 'traffic_router', 'phase', 'status_phase'],
      registers,
    });
    this.rolloutEvents = new Counter({
      name: 'rollout_events_total',
      help: 'Count of rollout events',
      labelNames: ['namespace', 'name', 'type', 'reason'],
      registers,
    });
    this.analysisRunInfo = new Gauge({
      name: 'analysis_run_info',
      help: 'Information about analysis run: 1, labelled with its phase.',
      labelNames: ['namespace', 'name', 'phase'],
      registers,
    });
    this.analysisRunMetricType = new Gauge({
      name: 'analysis_run_metric_type',
      help: 'Information on the type of a specific metric in the Analysis Runs',
      labelNames: ['namespace', 'name', 'metric', 'type'],
      registers,
    });
    this.analysisRunMetricPhase = new Gauge({
      name: 'analysis_run_metric_phase',
      help: 'The phase of a specific metric in the Analysis Run: 1 for its current phase.',
      labelNames: ['namespace', 'name', 'metric', 'type', 'dry_run', 'phase'],
      registers,
    });
    this.#replicaGauges = opts.replicaGauges === true ? replicaGauges(registers) : undefined;
    this.canaryWeight = new Gauge({
      name: 'stepwise_rollout_canary_weight',
      help: "The canary's weight (0-100) while a canary update is in flight; absent otherwise.",
      labelNames: ['namespace', 'name'],
      registers,
    });
    this.canaryStep = new Gauge({
      name: 'stepwise_rollout_step_index',
      help: 'status.currentStepIndex while a canary update is in flight; absent otherwise.',
      labelNames: ['namespace', 'name'],
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
   * One rollout_info series per Rollout, 1, with Argo's labels (rollout-metrics.ts); a change of
   * any label moves it. Not one per phase with 0s: at 10,000 Rollouts those 50,000 series took
   * /metrics 150-330 ms to render, the event loop blocked all the while. Called after each pass
   * with the cached Rollout; one with no status yet has no series until its first status.
   */
  setRollout(rollout: Rollout): void {
    const labels = rolloutInfoLabels(rollout);
    const key = `${labels.namespace}/${labels.name}`;
    if (rollout.status?.phase === undefined) {
      this.forgetRollout(labels.namespace, labels.name, { events: false });
      return;
    }
    const before = this.#rollouts.get(key);
    if (before === undefined || !sameLabels(before, labels)) {
      if (before !== undefined) this.rolloutInfo.remove({ ...before });
      this.rolloutInfo.set({ ...labels }, 1);
      this.#rollouts.set(key, labels);
    }
    this.#setProgress(key, { namespace: labels.namespace, name: labels.name }, rollout);
    const gauges = this.#replicaGauges;
    if (gauges === undefined) return;
    const at = { namespace: labels.namespace, name: labels.name };
    const figures = replicaFigures(rollout);
    gauges.available.set(at, figures.available);
    gauges.unavailable.set(at, figures.unavailable);
    gauges.desired.set(at, figures.desired);
    gauges.updated.set(at, figures.updated);
  }

  #setProgress(key: string, at: Record<ObjectLabels, string>, rollout: Rollout): void {
    const progress = canaryProgress(rollout);
    if (progress === undefined) {
      this.#dropProgress(key, at);
      return;
    }
    this.canaryWeight.set(at, progress.weight);
    this.canaryStep.set(at, progress.step);
    this.#inFlight.add(key);
  }

  #dropProgress(key: string, at: Record<ObjectLabels, string>): void {
    if (!this.#inFlight.delete(key)) return;
    this.canaryWeight.remove(at);
    this.canaryStep.remove(at);
  }

  /** A Rollout gone: its series go too (per-object series otherwise grow without bound). */
  forgetRollout(namespace: string, name: string, opts: { events?: boolean } = {}): void {
    const key = `${namespace}/${name}`;
    const before = this.#rollouts.get(key);
    if (before !== undefined) this.rolloutInfo.remove({ ...before });
    this.#rollouts.delete(key);
    this.#dropProgress(key, { namespace, name });
    const gauges = this.#replicaGauges;
    if (gauges !== undefined && before !== undefined) {
      for (const g of [gauges.available, gauges.unavailable, gauges.desired, gauges.updated]) {
        g.remove({ namespace, name });
      }
    }
    if (opts.events === false) return;
    for (const labels of this.#eventSeries.get(key)?.values() ?? []) {
      this.rolloutEvents.remove(labels);
    }
    this.#eventSeries.delete(key);
  }

  /** Argo's rollout_events_total: every event recorded about a Rollout (repeats too), by type
   *  and reason. Events about other objects are not counted, as in Argo. */
  countEvent(regarding: KubeObject, type: string, reason: string): void {
    if (regarding.kind !== ROLLOUT_KIND) return;
    const { namespace = '', name = '' } = regarding.metadata ?? {};
    const key = `${namespace}/${name}`;
    const labels = { namespace, name, type, reason };
    let series = this.#eventSeries.get(key);
    if (series === undefined) this.#eventSeries.set(key, (series = new Map<string, EventLabels>()));
    if (!series.has(`${type}/${reason}`)) series.set(`${type}/${reason}`, labels);
    this.rolloutEvents.inc(labels);
  }

  /** An AnalysisRun as the cache holds it: its info, metric type and metric phase series. */
  setAnalysisRun(run: AnalysisRun): void {
    const next = analysisRunSeries(run);
    const key = `${next.namespace}/${next.name}`;
    const before = this.#runs.get(key);
    if (before !== undefined && sameRun(before, next)) return;
    this.forgetAnalysisRun(next.namespace, next.name);
    const at = { namespace: next.namespace, name: next.name };
    this.analysisRunInfo.set({ ...at, phase: next.phase }, 1);
    for (const m of next.metrics) {
      this.analysisRunMetricType.set({ ...at, metric: m.metric, type: m.type }, 1);
      this.analysisRunMetricPhase.set({ ...at, ...m }, 1);
    }
    this.#runs.set(key, next);
  }

  forgetAnalysisRun(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const before = this.#runs.get(key);
    if (before === undefined) return;
    const at = { namespace, name };
    this.analysisRunInfo.remove({ ...at, phase: before.phase });
    for (const m of before.metrics) {
      this.analysisRunMetricType.remove({ ...at, metric: m.metric, type: m.type });
      this.analysisRunMetricPhase.remove({ ...at, ...m });
    }
    this.#runs.delete(key);
  }
}

function sameLabels(a: RolloutInfoLabels, b: RolloutInfoLabels): boolean {
  return (Object.keys(a) as (keyof RolloutInfoLabels)[]).every((k) => a[k] === b[k]);
}

function sameRun(a: AnalysisRunSeries, b: AnalysisRunSeries): boolean {
  return (
    a.phase === b.phase &&
    a.metrics.length === b.metrics.length &&
    a.metrics.every((m, i) => {
      const n = b.metrics[i];
      return (
        n !== undefined &&
        m.metric === n.metric &&
        m.type === n.type &&
        m.dry_run === n.dry_run &&
        m.phase === n.phase
      );
    })
  );
}

function replicaGauges(registers: Registry[]): ReplicaGauges {
  const gauge = (suffix: string, help: string): Gauge<ObjectLabels> =>
    new Gauge({
      name: `rollout_info_replicas_${suffix}`,
      help,
      labelNames: ['namespace', 'name'],
      registers,
    });
  return {
    available: gauge('available', 'The number of available replicas per rollout.'),
    unavailable: gauge('unavailable', 'The number of unavailable replicas per rollout.'),
    desired: gauge('desired', 'The number of desired replicas per rollout.'),
    updated: gauge('updated', 'The number of updated replicas per rollout.'),
  };
}
