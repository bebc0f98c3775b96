/**
 * What a metric provider is to the AnalysisRun controller: a name and `measure`. A small
 * interface so the shell does not depend on how a provider talks to its backend.
 */
import type { Measurement, Metric } from '../../api/index.ts';
import type { ProviderOutcome } from '../evaluate/index.ts';

export interface SecretRef {
  readonly name: string;
  readonly key: string;
}

/** Reads one key of a Secret; throws an Error naming the Secret and key when it cannot. */
export interface SecretSource {
  secretValue(namespace: string, ref: SecretRef): Promise<string>;
}

export type ProviderName = 'prometheus' | 'web' | 'job';

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

export type ProviderRegistry = Readonly<Partial<Record<ProviderName, AnalysisProvider>>>;

export function providerName(metric: Metric): ProviderName | undefined {
  const p = metric.provider;
  if (p.prometheus !== undefined) return 'prometheus';
  if (p.web !== undefined) return 'web';
  if (p.job !== undefined) return 'job';
  return undefined;
}

const DEFAULT_TIMEOUT_SECONDS = { prometheus: 30, web: 10, job: 0 } as const;
/** Past the provider's own timeout: time to report it before the shell gives up on it. */
const TIMEOUT_GRACE_MS = 5_000;

/** How long the shell waits for one measurement before recording it as Error. */
export function measurementTimeoutMs(metric: Metric, capMs: number): number {
  const name = providerName(metric);
  if (name === undefined || name === 'job') return capMs;
  const own =
    name === 'web' ? metric.provider.web?.timeoutSeconds : metric.provider.prometheus?.timeout;
  const seconds = own || DEFAULT_TIMEOUT_SECONDS[name];
  return Math.min(capMs, seconds * 1000 + TIMEOUT_GRACE_MS);
}

/** A provider that answers every measurement at once (prometheus, web). */
export interface SynchronousProvider extends AnalysisProvider {
  measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome>;
}
