/**
 * The imperative shell around src/analysis/evaluate: read the AnalysisRun from the cache, take
 * the measurements `dueMeasurements` asks for (in parallel, each with a timeout), let
 * `reconcileRun` decide the status, apply it to /status (server-side apply, optimistic
 * concurrency), record its events on the run, return when to come back. No analysis logic here.
 */
import { isDeepStrictEqual } from 'node:util';
import { API_VERSION, ANALYSIS_RUN_KIND } from '../api/index.ts';
import type { AnalysisRun, AnalysisRunStatus, Measurement, Metric } from '../api/index.ts';
import {
  dueMeasurements,
  finishMeasurement,
  isCompleted,
  reconcileRun,
  retentionLimit,
} from '../analysis/evaluate/index.ts';
import type {
  ConditionEvaluator,
  DueMeasurement,
  TakenMeasurement,
} from '../analysis/evaluate/index.ts';
import type { Clock } from '../kube/clock.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { KubeApi } from '../kube/kube-api.ts';
import type { Logger } from '../kube/log.ts';
import type { KubeObject } from '../kube/objects.ts';
import { measurementTimeoutMs, providerName, substituteArgs } from '../analysis/providers/index.ts';
import type { ProviderName, ProviderRegistry } from '../analysis/providers/index.ts';
import { resolveRunArgs } from './analysis-sources.ts';
import { callProvider } from './provider-call.ts';
import type { Outcome } from './provider-call.ts';
import type { SecretSource } from './analysis-sources.ts';
import type { Key, Reconciler, Result } from './reconciler.ts';

export interface AnalysisRunCache {
  analysisRun(key: Key): AnalysisRun | undefined;
}

export interface AnalysisRunReconcilerDeps {
  readonly cache: AnalysisRunCache;
  readonly api: KubeApi;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly log: Logger;
  readonly providers: ProviderRegistry;
  readonly secrets: SecretSource;
  readonly evaluate: ConditionEvaluator;
  /** Upper bound on one measurement, whatever the provider's own timeout. Default 60 s. */
  readonly maxMeasurementMs?: number;
  readonly onMeasurement?: (provider: ProviderName | 'unknown', phase: string) => void;
  /**
   * Queues a pass for the run now. Given, a status write is not awaited when a next pass is
   * already scheduled (the write of one measurement overlaps the next), and a write that fails
   * wakes the run. Absent, every pass waits for its write.
   */
  readonly wake?: (key: Key) => void;
}

interface InFlightWrite {
  readonly write: Promise<AnalysisRun>;
  /** The run with the status the write carries, for measuring while it lands. */
  readonly planned: AnalysisRun;
  /** Resource versions the write replaces (a cache showing one of them is stale). */
  readonly older: ReadonlySet<string>;
}

const DEFAULT_MAX_MEASUREMENT_MS = 60_000;

export class AnalysisRunReconciler implements Reconciler {
  readonly #deps: AnalysisRunReconcilerDeps;
  /**
   * key → the run as our last status write left it (the server's answer) and the versions it
   * replaced: while the cache still shows one of those, the next pass starts from what we wrote
   * instead of waiting for the watch to deliver it. Any other version in the cache (ours caught
   * up, a spec change, someone else's write) wins.
   */
  readonly #written = new Map<Key, { older: Set<string>; run: AnalysisRun }>();
  /** key → a status write not yet answered, and the run as it planned it. */
  readonly #inFlight = new Map<Key, InFlightWrite>();

  constructor(deps: AnalysisRunReconcilerDeps) {
    this.#deps = deps;
  }

  async reconcile(key: Key, signal: AbortSignal): Promise<Result> {
    const { cache, clock } = this.#deps;
    const cached = cache.analysisRun(key);
    if (cached === undefined) {
      this.#written.delete(key);
      this.#inFlight.delete(key);
      return {};
    }
    const inFlight = this.#inFlight.get(key);
    if (inFlight !== undefined) return this.#passBehindWrite(key, inFlight, signal);
    const ours = this.#written.get(key);
    const stale = ours !== undefined && ours.older.has(cached.metadata.resourceVersion ?? '');
    const run = stale ? ours.run : cached;
    // Kept until the cache shows our write (or anything newer): a pass that writes nothing must
    // not fall back to the stale copy and measure again.
    if (!stale) this.#written.delete(key);
    if (isCompleted(run.status?.phase)) return {};
    const older = new Set(stale ? ours.older : []);
    older.add(cached.metadata.resourceVersion ?? '').add(run.metadata.resourceVersion ?? '');
    const taken = await this.#measure(run, clock.now(), signal);
    return this.#decide(key, run, taken, older);
  }

  /**
   * The previous pass's status write is still on its way: take this pass's measurements from
   * the status it planned while the write lands, then judge from the server's answer. A slow
   * API server then delays the record of a measurement, never the start of the next one.
   */
  async #passBehindWrite(key: Key, inFlight: InFlightWrite, signal: AbortSignal): Promise<Result> {
    const measuring = this.#measure(inFlight.planned, this.#deps.clock.now(), signal);
    let written: AnalysisRun;
    try {
      written = await inFlight.write;
    } catch (err) {
      // Conflict or outage: start again from the cache, with backoff. Whatever this pass
      // measured is dropped (it is measured again), so no measurement is recorded twice.
      this.#inFlight.delete(key);
      this.#written.delete(key);
      await measuring.catch(() => undefined);
      throw err;
    }
    this.#inFlight.delete(key);
    const writtenVersion = written.metadata.resourceVersion ?? '';
    const older = new Set(inFlight.older);
    older.delete(writtenVersion);
    this.#written.set(key, { older, run: written });
    const taken = await measuring;
    // Our write went through on its resourceVersion, so a version the cache shows that is
    // neither ours nor one we replaced came after it (a terminate, say): judge on that one.
    const cached = this.#deps.cache.analysisRun(key);
    const cachedVersion = cached?.metadata.resourceVersion ?? '';
    const newer =
      cached !== undefined && cachedVersion !== writtenVersion && !older.has(cachedVersion);
    if (newer) this.#written.delete(key);
    const base = newer ? cached : written;
    if (isCompleted(base.status?.phase)) return {};
    return this.#decide(key, base, taken, new Set([...older, writtenVersion, cachedVersion]));
  }

  async #measure(run: AnalysisRun, now: number, signal: AbortSignal): Promise<TakenMeasurement[]> {
    const due = dueMeasurements(run, now);
    const args = due.some((d) => d.kind === 'measure') ? await this.#args(run) : undefined;
    return Promise.all(due.map((d) => this.#take(run, d, args, signal)));
  }

  /**
   * Judge the measurements, write the status and say when to come back. When a next pass is
   * scheduled the write is not awaited: that pass waits for it (see #passBehindWrite), and a
   * failed write wakes the run at once. A run that completes waits for its write.
   */
  async #decide(
    key: Key,
    run: AnalysisRun,
    taken: readonly TakenMeasurement[],
    older: ReadonlySet<string>,
  ): Promise<Result> {
    const { clock } = this.#deps;
    const outcome = reconcileRun(run, [...taken], clock.now());
    const emit = (): void => {
      for (const e of outcome.events) this.#deps.events.event(run, e.type, e.reason, e.message);
    };
    if (isDeepStrictEqual(outcome.status, run.status ?? {})) {
      emit();
    } else if (outcome.requeueAt === undefined || this.#deps.wake === undefined) {
      const written = await this.#applyStatus(run, outcome.status);
      const replaced = new Set(older);
      replaced.delete(written.metadata.resourceVersion ?? '');
      this.#written.set(key, { older: replaced, run: written });
      emit();
    } else {
      const wake = this.#deps.wake;
      const write = this.#applyStatus(run, outcome.status);
      write.then(emit, () => wake(key));
      this.#inFlight.set(key, { write, planned: { ...run, status: outcome.status }, older });
    }
    if (outcome.requeueAt === undefined) return {};
    return { requeueAfterMs: Math.max(0, outcome.requeueAt - clock.now()) };
  }

  /** The run's args, or the Error every measurement of this pass records. */
  async #args(run: AnalysisRun): Promise<Readonly<Record<string, string>> | Error> {
    try {
      return await resolveRunArgs(run, this.#deps.secrets);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  async #take(
    run: AnalysisRun,
    due: DueMeasurement,
    args: Readonly<Record<string, string>> | Error | undefined,
    signal: AbortSignal,
  ): Promise<TakenMeasurement> {
    const { clock, evaluate } = this.#deps;
    const name = providerName(due.metric);
    const started = clock.now();
    const outcome: Outcome =
      args instanceof Error && due.kind !== 'terminate'
        ? { ok: false, message: args.message }
        : await callProvider({
            provider: name === undefined ? undefined : this.#deps.providers[name],
            name,
            metric: due.metric,
            kind: due.kind,
            inFlight: due.inFlight,
            ctx: {
              namespace: run.metadata.namespace ?? '',
              run: { name: run.metadata.name ?? '', uid: run.metadata.uid ?? '' },
              index: measurementIndex(run, due.metric.name),
              keep: retentionLimit(run.spec, due.metric.name),
              args: args instanceof Error ? {} : (args ?? {}),
              secrets: this.#deps.secrets,
            },
            timeoutMs: measurementTimeoutMs(
              due.metric,
              this.#deps.maxMeasurementMs ?? DEFAULT_MAX_MEASUREMENT_MS,
            ),
            clock,
            stop: signal,
          });
    // A resumed measurement keeps the time it started.
    const since =
      due.inFlight?.startedAt === undefined ? started : Date.parse(due.inFlight.startedAt);
    const measurement: Measurement =
      outcome.ok === 'pending'
        ? {
            phase: 'Running',
            startedAt: iso(since),
            metadata: { ...outcome.metadata },
            ...(outcome.resumeAfterMs === undefined
              ? {}
              : { resumeAt: iso(clock.now() + outcome.resumeAfterMs) }),
          }
        : finishMeasurement(
            conditionsWithArgs(due.metric, args),
            outcome,
            evaluate,
            since,
            clock.now(),
          );
    this.#deps.onMeasurement?.(name ?? 'unknown', measurement.phase ?? 'Unknown');
    return { metricName: due.metric.name, kind: due.kind, measurement };
  }

  /** Returns the run as written. A Conflict (the run changed since we read it) throws. */
  async #applyStatus(run: AnalysisRun, status: AnalysisRunStatus): Promise<AnalysisRun> {
    const body: KubeObject & { status: AnalysisRunStatus } = {
      apiVersion: API_VERSION,
      kind: ANALYSIS_RUN_KIND,
      metadata: {
        name: run.metadata.name,
        namespace: run.metadata.namespace,
        resourceVersion: run.metadata.resourceVersion,
      },
      status,
    };
    return (await this.#deps.api.applyStatus(body)) as unknown as AnalysisRun;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** 1-based number of the metric's next measurement: every finished one counts, errors too. */
function measurementIndex(run: AnalysisRun, metric: string): number {
  const r = run.status?.metricResults?.find((m) => m.name === metric);
  return (r?.count ?? 0) + (r?.error ?? 0) + 1;
}

/**
 * Argo resolves `{{args.x}}` in the whole metric, conditions included (thresholds are often
 * args). An argument that cannot be resolved leaves the condition as written, so it fails to
 * compile and the measurement says which placeholder it was.
 */
function conditionsWithArgs(
  metric: Metric,
  args: Readonly<Record<string, string>> | Error | undefined,
): Metric {
  if (args === undefined || args instanceof Error) return metric;
  const resolve = (text: string | undefined): string | undefined => {
    if (text === undefined) return undefined;
    try {
      return substituteArgs(text, args);
    } catch {
      return text;
    }
  };
  return {
    ...metric,
    successCondition: resolve(metric.successCondition),
    failureCondition: resolve(metric.failureCondition),
  };
}
