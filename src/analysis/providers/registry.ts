/**
 * The metric providers, one line each. Everything that varies by provider is derived from this
 * list: the provider names (`ProviderName`), which provider measures a metric, how long the shell
 * waits for one measurement, the providers the controller builds and the kinds they need (RBAC).
 * A new provider is its module (a ProviderModule), its schema fragment under `provider` in
 * src/api/analysis.ts, and a line here.
 */
import type { Metric } from '../../api/index.ts';
import type { KindAccess } from '../../kube/resources.ts';
import { job } from './job.ts';
import { prometheus } from './prometheus.ts';
import type { AnalysisProvider, ProviderDeps, ProviderModule } from './provider.ts';
import { web } from './web.ts';

export const PROVIDERS = [prometheus, web, job] as const satisfies readonly ProviderModule[];

export type ProviderName = (typeof PROVIDERS)[number]['name'];

/** The providers a controller runs, by name (tests give only the ones they script). */
export type ProviderRegistry = Readonly<Partial<Record<ProviderName, AnalysisProvider>>>;

/** Past the provider's own timeout: time to report it before the shell gives up on it. */
const TIMEOUT_GRACE_MS = 5_000;

function moduleOf(metric: Metric): (typeof PROVIDERS)[number] | undefined {
  return PROVIDERS.find((p) => p.matches(metric));
}

export function providerName(metric: Metric): ProviderName | undefined {
  return moduleOf(metric)?.name;
}

/** How long the shell waits for one measurement before recording it as Error. */
export function measurementTimeoutMs(metric: Metric, capMs: number): number {
  const own = moduleOf(metric)?.timeoutMs(metric);
  return own === undefined ? capMs : Math.min(capMs, own + TIMEOUT_GRACE_MS);
}

/** Every provider, built once for the controller. */
export function createProviders(deps: ProviderDeps): ProviderRegistry {
  return Object.fromEntries(PROVIDERS.map((p) => [p.name, p.create(deps)]));
}

/** The kinds the providers read or write, with the verbs they use (checked against the RBAC). */
export function providerKinds(): readonly KindAccess[] {
  return PROVIDERS.flatMap((p) => p.kinds);
}
