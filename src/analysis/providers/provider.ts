/**
 * What a metric provider is to the AnalysisRun controller: a name and `measure`. A small
 * interface so the shell does not depend on how a provider talks to its backend.
 */
import type { Metric } from '../../api/index.ts';
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
  readonly args: Readonly<Record<string, string>>;
  readonly secrets: SecretSource;
  /** Aborted on timeout or shutdown; a provider that ignores it is abandoned anyway. */
  readonly signal: AbortSignal;
}

export interface AnalysisProvider {
  measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome>;
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
