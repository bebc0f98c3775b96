/**
 * What a metric provider is to the AnalysisRun controller: `measure` (and, when asynchronous,
 * `resume` and `terminate`), a small interface so the shell does not depend on how a provider
 * talks to its backend; and what a provider module declares to the registry (registry.ts): its
 * name, how it recognises its metrics, its own timeout, the kinds it uses and how it is built.
 */
import type { Measurement, Metric } from '../../api/index.ts';
import type { KubeApi } from '../../kube/kube-api.ts';
import type { KindAccess } from '../../kube/resources.ts';
import type { ProviderOutcome } from '../evaluate/index.ts';
import type { EgressPolicy } from './egress.ts';
import type { Redactor } from './redact.ts';

export interface SecretRef {
  readonly name: string;
  readonly key: string;
}

/** Reads one key of a Secret; throws an Error naming the Secret and key when it cannot. */
export interface SecretSource {
  secretValue(namespace: string, ref: SecretRef): Promise<string>;
}

export interface MeasureContext {
  readonly namespace: string;
  /** The AnalysisRun measured: asynchronous providers own what they create by it. */
  readonly run: { readonly name: string; readonly uid: string };
  /** 1-based number of this measurement of the metric (names what it creates). */
  readonly index: number;
  /**
   * Measurements of the metric the run keeps (`measurementRetention`): an asynchronous provider
   * deletes what it made for older ones, as Argo's `GarbageCollect`. Absent: keep everything.
   */
  readonly keep?: number;
  readonly args: Readonly<Record<string, string>>;
  readonly secrets: SecretSource;
  /** Knows the pass's secret values (args from Secrets included): a header that carries one
   *  is a secret header, never sent on a redirect. */
  readonly redactor?: Redactor;
  /** Aborted on timeout or shutdown; a provider that ignores it is abandoned anyway. */
  readonly signal: AbortSignal;
}

/** An asynchronous measurement still under way (a Job): the shell comes back to it. */
export interface PendingOutcome {
  readonly ok: 'pending';
  /** Kept on the Running measurement, e.g. the Job's name; `resume` reads it back. */
  readonly metadata: Readonly<Record<string, string>>;
  /**
   * When to look again. Absent: whenever the run is next reconciled (an event on what the
   * provider made wakes it), which the schedule allows at once.
   */
  readonly resumeAfterMs?: number;
}

export interface AnalysisProvider {
  measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome | PendingOutcome>;
  /** Asynchronous providers: the outcome of a Running measurement, or still pending. */
  resume?(
    metric: Metric,
    inFlight: Measurement,
    ctx: MeasureContext,
  ): Promise<ProviderOutcome | PendingOutcome>;
  /** Asynchronous providers: stop a Running measurement (the run is being terminated). */
  terminate?(metric: Metric, inFlight: Measurement, ctx: MeasureContext): Promise<void>;
}

/** What the controller hands a provider module when it builds the provider: its client for
 *  what a provider creates (Jobs), and the environment, read once at start-up. */
export interface ProviderDeps {
  readonly api: KubeApi;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where web and Prometheus requests may go (the administrator's allow and deny lists);
   *  absent: the built-in denies only. */
  readonly egress?: EgressPolicy;
}

/** A metric provider as the registry knows it. Its schema fragment lives in src/api/analysis.ts
 *  (MetricProviderSchema), under the same name. */
export interface ProviderModule<Name extends string = string> {
  /** Its key under a metric's `provider`, and its name in messages and metrics. */
  readonly name: Name;
  /** Whether the metric is measured by this provider. */
  matches(metric: Metric): boolean;
  /** How long the provider itself gives one measurement, in ms; undefined: it answers at once
   *  and comes back later (asynchronous), so only the shell's cap applies. */
  timeoutMs(metric: Metric): number | undefined;
  /** Kinds it reads or writes beyond what every AnalysisRun needs (RBAC, informers). */
  readonly kinds: readonly KindAccess[];
  create(deps: ProviderDeps): AnalysisProvider;
}

/** A provider that answers every measurement at once (prometheus, web). */
export interface SynchronousProvider extends AnalysisProvider {
  measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome>;
}
