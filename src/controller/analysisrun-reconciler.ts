/**
 * The imperative shell around src/analysis/evaluate: read the AnalysisRun from the cache, take
 * the measurements `dueMeasurements` asks for (in parallel, each with a timeout), let
 * `reconcileRun` decide the status, apply it to /status (server-side apply, optimistic
 * concurrency), record its events on the run, return when to come back. No analysis logic here.
 * Every measurement leaves through one Redactor per pass: the values read from Secrets during the
 * pass are `*****` in its message, value and metadata, and so in status, Events, the Rollout's
 * messages and notifications, which are all made from them.
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
import type { Clock, EventRecorder, KubeApi, Logger, KubeObject } from '../kube/index.ts';
import {
  measurementTimeoutMs,
  providerName,
  Redactor,
  substituteArgs,
} from '../analysis/providers/index.ts';
import type { SecretSource as ProviderSecrets } from '../analysis/providers/index.ts';
import type { ProviderName, ProviderRegistry } from '../analysis/providers/index.ts';
import { resolveRunArgs } from './analysis-sources.ts';
import { Expectations } from './expectations.ts';
import { callProvider } from './provider-call.ts';
import { RunStatusWrites } from './run-status-writes.ts';
import type { PendingWrites } from './run-status-writes.ts';
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
   * Queues a pass for the run now. Given, status writes go through RunStatusWrites (a pass never
   * waits for the previous measurement's write) and a write that fails wakes the run. Absent,
   * every pass waits for its write.
   */
  readonly wake?: (key: Key) => void;
  /** Serving argoproj.io in place: Argo's own controller running (its Lease held until then);
   *  nothing is measured or written meanwhile, the run is looked at again after. */
  readonly standAside?: (now: number) => { readonly heldUntil: number } | undefined;
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
  readonly #written: Expectations<AnalysisRun>;
  /** Status writes still on their way (only with `wake`: see RunStatusWrites). */
  readonly #writes: RunStatusWrites;

  constructor(deps: AnalysisRunReconcilerDeps) {
    this.#deps = deps;
    this.#written = new Expectations(deps.clock);
    this.#writes = new RunStatusWrites({
      apply: (run, status) => this.#applyStatus(run, status),
      settled: (key, run, older) => this.#written.expect(key, older, run),
      failed: (key) => {
        this.#written.forget(key);
        deps.wake?.(key);
      },
    });
  }

  async reconcile(key: Key, signal: AbortSignal): Promise<Result> {
    const { cache, clock } = this.#deps;
    const cached = cache.analysisRun(key);
    if (cached === undefined) {
      this.#written.forget(key);
      this.#writes.forget(key);
      return {};
    }
    const argo = this.#deps.standAside?.(clock.now());
    if (argo !== undefined) return { requeueAfterMs: argo.heldUntil - clock.now() + 1000 };
    const pending = this.#writes.pending(key);
    if (pending !== undefined) {
      const version = cached.metadata.resourceVersion ?? '';
      if (pending.failure === undefined && pending.known.has(version)) {
        return this.#passBehindWrites(key, pending, signal);
      }
      // A version we did not write (a terminate, say), or a failed write: let the writes end,
      // then start from the cache. A failure goes to backoff; its measurements are taken again.
      await pending.drained;
      this.#writes.forget(key);
      if (pending.failure !== undefined) {
        this.#written.forget(key);
        throw asError(pending.failure);
      }
    }
    // Kept until the cache shows our write (or anything newer): a pass that writes nothing must
    // not fall back to the stale copy and measure again.
    const ours = this.#written.stale(key, cached.metadata.resourceVersion);
    const run = ours?.written ?? cached;
    if (isCompleted(run.status?.phase)) return {};
    const older = new Set(ours?.replaced ?? []);
    older.add(cached.metadata.resourceVersion ?? '').add(run.metadata.resourceVersion ?? '');
    const taken = await this.#measure(run, clock.now(), signal);
    return this.#decide(key, run, taken, older);
  }

  /** Our writes are still on their way: measure and judge from the newest status decided. */
  async #passBehindWrites(key: Key, pending: PendingWrites, signal: AbortSignal): Promise<Result> {
    const run = pending.planned;
    if (isCompleted(run.status?.phase)) return {};
    const taken = await this.#measure(run, this.#deps.clock.now(), signal);
    return this.#decide(key, run, taken, pending.known);
  }

  async #measure(run: AnalysisRun, now: number, signal: AbortSignal): Promise<TakenMeasurement[]> {
    const due = dueMeasurements(run, now);
    const redactor = new Redactor();
    const secrets = redactor.recording(this.#deps.secrets);
    const args = due.some((d) => d.kind === 'measure') ? await this.#args(run, secrets) : undefined;
    const pass = { redactor, secrets };
    return Promise.all(due.map((d) => this.#take(run, d, args, pass, signal)));
  }

  /**
   * Judge the measurements, write the status and say when to come back. With `wake` the write
   * is not awaited while a next pass is scheduled (RunStatusWrites); a run that completes waits
   * for its writes, so its end is on record when the pass returns.
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
    } else if (this.#deps.wake === undefined) {
      const written = await this.#applyStatus(run, outcome.status);
      const replaced = new Set(older);
      replaced.delete(written.metadata.resourceVersion ?? '');
      this.#written.expect(key, replaced, written);
      emit();
    } else {
      const base = this.#newestWritten(key, run);
      const pending = this.#writes.submit(key, base, outcome.status, older, emit);
      if (outcome.requeueAt === undefined) {
        await pending.drained;
        this.#writes.forget(key);
        if (pending.failure !== undefined) throw asError(pending.failure);
      }
    }
    if (outcome.requeueAt === undefined) return {};
    return { requeueAfterMs: Math.max(0, outcome.requeueAt - clock.now()) };
  }

  /**
   * What to write over: `run`, unless it is a version our last writes replaced. A pass behind
   * our writes starts from the status it planned; when those writes end while it measures, its
   * status must go on top of what they left, not on the version the pass started from (that
   * write would be refused as a Conflict, and the run backed off).
   */
  #newestWritten(key: Key, run: AnalysisRun): AnalysisRun {
    const ours = this.#written.peek(key, run.metadata.resourceVersion);
    return ours === undefined ? run : { ...run, metadata: ours.written.metadata };
  }

  /** The run's args, or the Error every measurement of this pass records. */
  async #args(
    run: AnalysisRun,
    secrets: ProviderSecrets,
  ): Promise<Readonly<Record<string, string>> | Error> {
    try {
      return await resolveRunArgs(run, secrets);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  async #take(
    run: AnalysisRun,
    due: DueMeasurement,
    args: Readonly<Record<string, string>> | Error | undefined,
    pass: { readonly redactor: Redactor; readonly secrets: ProviderSecrets },
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
              secrets: pass.secrets,
              redactor: pass.redactor,
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
    // The one place a measurement leaves: no secret, no more than 1 KiB of any text.
    return {
      metricName: due.metric.name,
      kind: due.kind,
      measurement: pass.redactor.measurement(measurement),
    };
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
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

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
