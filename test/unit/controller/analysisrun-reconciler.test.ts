// The AnalysisRun shell: measures what is due through the provider registry, writes the status
// the pure evaluation decides (once, with the resourceVersion it read), records its events, comes
// back on the interval; a hanging provider or a missing Secret is an Error measurement, never a
// stall, and no Secret value reaches an event or a log line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AnalysisRun, Metric } from '../../../src/api/index.ts';
import type { ProviderOutcome } from '../../../src/analysis/evaluate/index.ts';
import type { AnalysisProvider, MeasureContext } from '../../../src/analysis/providers/index.ts';
import { CachedSecretSource } from '../../../src/controller/analysis-sources.ts';
import { AnalysisRunReconciler } from '../../../src/controller/analysisrun-reconciler.ts';
import type { Key } from '../../../src/controller/reconciler.ts';
import type { Logger } from '../../../src/kube/log.ts';
import type { ApplyOptions } from '../../../src/kube/kube-api.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';
import { evaluate } from '../../fixtures/analysis/runs.ts';

const KEY: Key = 'ns/run';
const SECRET_VALUE = 's3cr3t-t0ken';

function webMetric(fields: Partial<Metric> = {}): Metric {
  return {
    name: 'rate',
    interval: '10s',
    successCondition: 'result >= 0.95',
    provider: { web: { url: 'http://127.0.0.1:1/{{args.path}}' } },
    ...fields,
  };
}

function runOf(
  metrics: Metric[],
  args: NonNullable<AnalysisRun['spec']['args']> = [],
): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name: 'run', namespace: 'ns', labels: { env: 'prod' } },
    spec: { metrics, args: [{ name: 'path', value: 'rate' }, ...args] },
  };
}

/** A provider double answering from a script (one outcome per call), or by a function. */
function scripted(
  answers: (ProviderOutcome | ((ctx: MeasureContext) => Promise<ProviderOutcome>))[],
) {
  const calls: MeasureContext[] = [];
  const provider: AnalysisProvider = {
    measure: (_m, ctx) => {
      calls.push(ctx);
      const next = answers[Math.min(calls.length - 1, answers.length - 1)];
      if (next === undefined) throw new Error('script exhausted');
      return typeof next === 'function' ? next(ctx) : Promise.resolve(next);
    },
  };
  return { provider, calls };
}

const value = (n: number): ProviderOutcome => ({ ok: true, result: n, value: String(n) });

function setup(
  run: AnalysisRun,
  provider?: AnalysisProvider,
  as: 'web' | 'job' = 'web',
  opts: {
    api?: FakeKubeApi;
    wake?: (key: Key) => void;
    standAside?: (now: number) => { heldUntil: number } | undefined;
  } = {},
) {
  const api = opts.api ?? new FakeKubeApi();
  api.seed(run);
  const clock = new FakeClock(Date.parse('2026-12-01T10:00:00Z'));
  const events: string[] = [];
  const logs: string[] = [];
  const log: Logger = {
    debug: (m, f) => logs.push(m + JSON.stringify(f)),
    info: (m, f) => logs.push(m + JSON.stringify(f)),
    warn: (m, f) => logs.push(m + JSON.stringify(f)),
    error: (m, f) => logs.push(m + JSON.stringify(f)),
  };
  const measured: string[] = [];
  const stored = () => api.stored(Resources.AnalysisRun, 'ns', 'run') as AnalysisRun;
  const reconciler = new AnalysisRunReconciler({
    cache: { analysisRun: () => stored() },
    api,
    events: { event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    clock,
    log,
    providers: provider ? { [as]: provider } : {},
    secrets: new CachedSecretSource(api, clock),
    evaluate,
    onMeasurement: (p, phase) => measured.push(`${p} ${phase}`),
    ...(opts.wake === undefined ? {} : { wake: opts.wake }),
    ...(opts.standAside === undefined ? {} : { standAside: opts.standAside }),
  });
  const stop = new AbortController();
  return { api, clock, events, logs, measured, stored, reconciler, stop };
}

type Harness = ReturnType<typeof setup>;

/** One pass, then time moves to when it asked to come back; returns that delay. */
async function pass(t: Harness): Promise<number | undefined> {
  const { requeueAfterMs } = await t.reconciler.reconcile(KEY, t.stop.signal);
  if (requeueAfterMs !== undefined) t.clock.advance(requeueAfterMs);
  return requeueAfterMs;
}

/** Passes until the run completes (or `max` passes), as the work queue would make them. */
async function runToEnd(t: Harness, max = 20): Promise<AnalysisRun> {
  for (let i = 0; i < max; i++) {
    const after = await pass(t);
    if (after === undefined) break;
  }
  return t.stored();
}

const statusWrites = (t: Harness) => t.api.writes().filter((w) => w.verb === 'applyStatus');

describe('AnalysisRunReconciler', () => {
  it("served in place while Argo's controller holds its Lease: nothing measured or written, back when it would lapse", async () => {
    const p = scripted([value(0.99)]);
    let heldUntil: number | undefined = Date.parse('2026-12-01T10:00:15Z');
    const t = setup(runOf([webMetric({ count: 1 })]), p.provider, 'web', {
      standAside: (now) => (heldUntil !== undefined && now < heldUntil ? { heldUntil } : undefined),
    });
    const first = await t.reconciler.reconcile(KEY, t.stop.signal);
    assert.equal(first.requeueAfterMs, 16_000);
    assert.deepEqual([p.calls.length, t.api.writes().length], [0, 0]);
    heldUntil = undefined; // Argo stopped
    assert.equal((await runToEnd(t)).status?.phase, 'Successful');
    assert.equal(p.calls.length, 1);
  });

  it('measures on its interval and ends Successful after count measurements', async () => {
    const p = scripted([value(0.99)]);
    const t = setup(runOf([webMetric({ count: 3 })]), p.provider);
    const first = await t.reconciler.reconcile(KEY, t.stop.signal);
    assert.equal(first.requeueAfterMs, 10_000, 'comes back after the interval');
    t.clock.advance(10_000);
    const run = await runToEnd(t);
    assert.equal(run.status?.phase, 'Successful');
    const ms = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(ms.length, 3);
    const gaps = ms
      .slice(1)
      .map((m, i) => Date.parse(m.startedAt ?? '') - Date.parse(ms[i]?.startedAt ?? ''));
    assert.deepEqual(gaps, [10_000, 10_000]);
    assert.equal(p.calls[0]?.args['path'], 'rate', 'args reach the provider');
    assert.ok(
      t.events.some((e) => e.startsWith('Normal AnalysisRunSuccessful')),
      t.events.join('\n'),
    );
    assert.deepEqual(t.measured, ['web Successful', 'web Successful', 'web Successful']);
  });

  it('ends Failed when failed measurements pass failureLimit', async () => {
    const p = scripted([value(0.99), value(0.5), value(0.5)]);
    const t = setup(runOf([webMetric({ failureLimit: 1 })]), p.provider);
    const run = await runToEnd(t);
    assert.equal(run.status?.phase, 'Failed');
    assert.equal(run.status?.metricResults?.[0]?.failed, 2);
    assert.ok(
      t.events.some((e) => e.startsWith('Warning AnalysisRunFailed')),
      t.events.join('\n'),
    );
  });

  it('ends Error after consecutiveErrorLimit errors, with the provider message on the measurement', async () => {
    const p = scripted([{ ok: false, message: 'connection refused' }]);
    const t = setup(runOf([webMetric({ consecutiveErrorLimit: 2 })]), p.provider);
    const run = await runToEnd(t);
    assert.equal(run.status?.phase, 'Error');
    const ms = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(ms.length, 3);
    assert.ok(ms.every((m) => m.phase === 'Error' && m.message === 'connection refused'));
  });

  it('records a hanging provider as an Error measurement after its timeout, and aborts its signal', async () => {
    let seen: AbortSignal | undefined;
    const hang = (ctx: MeasureContext) => {
      seen = ctx.signal;
      return new Promise<ProviderOutcome>(() => undefined); // never answers, ignores the signal
    };
    const p = scripted([hang]);
    const t = setup(
      runOf([webMetric({ provider: { web: { url: 'http://x', timeoutSeconds: 2 } } })]),
      p.provider,
    );
    const pending = t.reconciler.reconcile(KEY, t.stop.signal);
    await flush();
    assert.equal(statusWrites(t).length, 0, 'nothing written while the measurement is out');
    t.clock.advance(7_000); // 2 s own timeout + 5 s grace
    const result = await pending;
    assert.ok(result.requeueAfterMs !== undefined);
    const m = t.stored().status?.metricResults?.[0]?.measurements?.[0];
    assert.equal(m?.phase, 'Error');
    assert.match(m?.message ?? '', /timed out after 7s/);
    assert.equal(seen?.aborted, true);
  });

  it('gives up on a measurement at shutdown', async () => {
    const p = scripted([() => new Promise<ProviderOutcome>(() => undefined)]);
    const t = setup(runOf([webMetric()]), p.provider);
    const pending = t.reconciler.reconcile(KEY, t.stop.signal);
    await flush();
    t.stop.abort();
    await pending;
    const m = t.stored().status?.metricResults?.[0]?.measurements?.[0];
    assert.match(m?.message ?? '', /shutting down/);
  });

  it('a missing Secret or key is an Error naming it; a Secret value never reaches events or logs', async () => {
    const secretArg = {
      name: 'token',
      valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } },
    };
    const p = scripted([value(0.99)]);
    const t = setup(runOf([webMetric({ consecutiveErrorLimit: 0 })], [secretArg]), p.provider);
    await pass(t);
    let m = t.stored().status?.metricResults?.[0]?.measurements?.at(-1);
    assert.equal(m?.phase, 'Error');
    assert.equal(m?.message, 'Secret "ns/creds" not found');
    assert.equal(p.calls.length, 0, 'the provider is not asked without its args');

    // A second run: the Secret exists but lacks the key; then one that has it.
    const t2 = setup(runOf([webMetric({ count: 2 })], [secretArg]), p.provider);
    t2.api.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'ns' },
      data: { other: 'eA==' },
    } as never);
    await pass(t2);
    m = t2.stored().status?.metricResults?.[0]?.measurements?.at(-1);
    assert.equal(m?.message, 'key "token" not found in Secret "ns/creds"');
    t2.clock.advance(60_000); // past the Secret cache TTL
    await t2.api.delete(Resources.Secret, 'ns', 'creds');
    t2.api.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'ns' },
      data: { token: Buffer.from(SECRET_VALUE).toString('base64') },
    } as never);
    await runToEnd(t2);
    assert.equal(p.calls.at(-1)?.args['token'], SECRET_VALUE);
    const said = [...t.events, ...t.logs, ...t2.events, ...t2.logs].join('\n');
    assert.ok(!said.includes(SECRET_VALUE), said);
  });

  it('a metric whose provider is not available measures Error saying so', async () => {
    const t = setup(
      runOf([webMetric({ provider: { job: { spec: {} } }, consecutiveErrorLimit: 0 })]),
    );
    const run = await runToEnd(t);
    assert.equal(run.status?.phase, 'Error');
    assert.equal(
      run.status?.metricResults?.[0]?.measurements?.[0]?.message,
      'provider job is not available in this controller',
    );
  });

  it('a pass with nothing due writes nothing', async () => {
    const p = scripted([value(0.99)]);
    const t = setup(runOf([webMetric()]), p.provider);
    await t.reconciler.reconcile(KEY, t.stop.signal);
    assert.equal(statusWrites(t).length, 1);
    t.clock.advance(3_000); // within the interval
    const again = await t.reconciler.reconcile(KEY, t.stop.signal);
    assert.equal(statusWrites(t).length, 1, 'no second status write');
    assert.equal(p.calls.length, 1, 'no second measurement');
    assert.equal(again.requeueAfterMs, 7_000);
  });

  it('applies status with the resourceVersion it read; a stale cache does not make it measure twice', async () => {
    const p = scripted([value(0.99)]);
    const t = setup(runOf([webMetric()]), p.provider);
    const read = t.stored().metadata.resourceVersion;
    const seeded = t.stored();
    // The cache shows the stored run, until the test makes it lag behind our write.
    const lag: { view?: AnalysisRun } = {};
    const reconciler = new AnalysisRunReconciler({
      cache: { analysisRun: () => lag.view ?? t.stored() },
      api: t.api,
      events: { event: () => undefined },
      clock: t.clock,
      log: { debug() {}, info() {}, warn() {}, error() {} },
      providers: { web: p.provider },
      secrets: new CachedSecretSource(t.api, t.clock),
      evaluate,
    });
    await reconciler.reconcile(KEY, t.stop.signal);
    const [write] = statusWrites(t);
    assert.equal((write?.body as AnalysisRun).metadata.resourceVersion, read);
    // A cache that still shows the run as it was before our write: the next pass starts from what
    // it wrote, so nothing is due until the interval has passed.
    lag.view = seeded;
    const writes = statusWrites(t).length;
    const again = await reconciler.reconcile(KEY, t.stop.signal);
    assert.equal(again.requeueAfterMs, 10_000);
    assert.equal(p.calls.length, 1, 'the pass over a stale cache did not measure');
    assert.equal(statusWrites(t).length, writes, 'nor write');
  });

  it('leaves a completed run alone', async () => {
    const run = runOf([webMetric()]);
    run.status = { phase: 'Successful' };
    const p = scripted([value(0.99)]);
    const t = setup(run, p.provider);
    assert.deepEqual(await t.reconciler.reconcile(KEY, t.stop.signal), {});
    assert.equal(t.api.writes().length, 0);
    assert.equal(p.calls.length, 0);
  });

  it('an asynchronous provider: Running until resumed to a verdict, one create per measurement', async () => {
    const calls: string[] = [];
    let polls = 0;
    const job: AnalysisProvider = {
      measure: (_m, ctx) => {
        calls.push(`measure ${ctx.run.name} #${ctx.index}`);
        return Promise.resolve({
          ok: 'pending',
          metadata: { 'job-name': 'run.check.1' },
          resumeAfterMs: 10_000,
        });
      },
      resume: (_m, inFlight) => {
        calls.push(`resume ${inFlight.metadata?.['job-name']}`);
        polls += 1;
        return Promise.resolve(
          polls < 2
            ? { ok: 'pending', metadata: { 'job-name': 'run.check.1' }, resumeAfterMs: 10_000 }
            : {
                ok: true,
                result: false,
                value: 'Failed',
                phase: 'Failed',
                message: 'Job run.check.1 failed',
              },
        );
      },
    };
    const metric: Metric = { name: 'check', provider: { job: { spec: {} } } };
    const t = setup(runOf([metric]), job, 'job');
    assert.equal(await pass(t), 10_000, 'comes back at resumeAt');
    const running = t.stored().status?.metricResults?.[0]?.measurements?.[0];
    assert.equal(running?.phase, 'Running');
    assert.equal(running?.finishedAt, undefined);
    const run = await runToEnd(t);
    assert.equal(run.status?.phase, 'Failed');
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(m?.phase, 'Failed');
    assert.equal(m?.message, 'Job run.check.1 failed');
    assert.equal(m?.startedAt, running?.startedAt, 'a resumed measurement keeps its start');
    assert.deepEqual(calls, ['measure run #1', 'resume run.check.1', 'resume run.check.1']);
  });

  it('a measurement that waits for events (no resumeAt) is still polled every 10 s, without status writes', async () => {
    const seen: MeasureContext[] = [];
    const job: AnalysisProvider = {
      measure: (_m, ctx) => {
        seen.push(ctx);
        return Promise.resolve({ ok: 'pending', metadata: { 'job-name': 'run.check.1' } });
      },
      resume: () => Promise.resolve({ ok: 'pending', metadata: { 'job-name': 'run.check.1' } }),
    };
    const metric: Metric = { name: 'check', provider: { job: { spec: {} } } };
    const run = runOf([metric]);
    const t = setup(
      { ...run, spec: { ...run.spec, measurementRetention: [{ metricName: 'check', limit: 3 }] } },
      job,
      'job',
    );
    assert.equal(await pass(t), 10_000);
    assert.equal(seen[0]?.keep, 3, 'the provider knows how many measurements the run keeps');
    const writes = statusWrites(t).length;
    assert.equal(await pass(t), 10_000, 'resumed, and polled again');
    assert.equal(statusWrites(t).length, writes, 'a measurement still pending writes nothing');
  });

  it('terminating a run stops its asynchronous measurement, which ends Successful', async () => {
    const stopped: string[] = [];
    const job: AnalysisProvider = {
      measure: () =>
        Promise.resolve({ ok: 'pending', metadata: { 'job-name': 'j' }, resumeAfterMs: 60_000 }),
      terminate: (_m, inFlight) => {
        stopped.push(inFlight.metadata?.['job-name'] ?? '');
        return Promise.resolve();
      },
    };
    const metric: Metric = { name: 'check', provider: { job: { spec: {} } } };
    const t = setup(runOf([metric]), job, 'job');
    await pass(t);
    const current = t.stored();
    const terminated: AnalysisRun = { ...current, spec: { ...current.spec, terminate: true } };
    t.api.seed(terminated);
    const run = await runToEnd(t);
    assert.deepEqual(stopped, ['j']);
    const [m] = run.status?.metricResults?.[0]?.measurements ?? [];
    assert.equal(m?.phase, 'Successful');
    assert.match(m?.message ?? '', /terminated/i);
    assert.equal(run.status?.phase, 'Successful');
  });
});

/** An API server whose status writes are answered only when the test says so. */
class SlowStatusApi extends FakeKubeApi {
  readonly held: { resolve: () => void; reject: (err: Error) => void }[] = [];
  /** Runs once a held write has been stored, before its caller hears the answer. */
  afterWrite: () => Promise<unknown> = () => Promise.resolve();
  override applyStatus<T extends KubeObject>(obj: T, opts?: ApplyOptions): Promise<T> {
    return new Promise<void>((resolve, reject) => this.held.push({ resolve, reject }))
      .then(() => super.applyStatus(obj, opts))
      .then(async (written) => {
        await this.afterWrite();
        return written;
      });
  }
}

describe(
  'AnalysisRunReconciler with status writes behind a slow API server',
  { timeout: 10_000 },
  () => {
    const oneSecond = () => runOf([webMetric({ interval: '1s', count: 3 })]);

    it('the next measurement starts on time while the previous write is unanswered; both land in order', async () => {
      const api = new SlowStatusApi();
      const p = scripted([value(0.97), value(0.98), value(0.99)]);
      const t = setup(oneSecond(), p.provider, 'web', { api, wake: () => undefined });
      const first = await t.reconciler.reconcile(KEY, t.stop.signal);
      assert.equal(first.requeueAfterMs, 1_000, 'returns before its write is answered');
      assert.equal(api.held.length, 1);
      t.clock.advance(1_000);
      const second = await t.reconciler.reconcile(KEY, t.stop.signal);
      assert.equal(p.calls.length, 2, 'measured at its time, with the first write still in flight');
      assert.equal(second.requeueAfterMs, 1_000, 'and did not wait for it either');
      assert.equal(api.held.length, 1, 'its status waits behind the first write');
      api.held[0]?.resolve();
      await flush();
      api.held[1]?.resolve();
      await flush();
      const ms = t.stored().status?.metricResults?.[0]?.measurements ?? [];
      assert.deepEqual(
        ms.map((m) => m.value),
        ['0.97', '0.98'],
      );
      assert.deepEqual(
        ms.map((m) => m.startedAt),
        ['2026-12-01T10:00:00.000Z', '2026-12-01T10:00:01.000Z'],
      );
    });

    it('statuses decided behind a slow write are coalesced: the newest one carries every measurement', async () => {
      const api = new SlowStatusApi();
      const p = scripted([value(0.97), value(0.98), value(0.99)]);
      const t = setup(runOf([webMetric({ interval: '1s', count: 5 })]), p.provider, 'web', {
        api,
        wake: () => undefined,
      });
      await t.reconciler.reconcile(KEY, t.stop.signal);
      for (let i = 0; i < 2; i++) {
        t.clock.advance(1_000);
        await t.reconciler.reconcile(KEY, t.stop.signal);
      }
      assert.equal(p.calls.length, 3);
      api.held[0]?.resolve();
      await flush();
      assert.equal(api.held.length, 2, 'one write for the two statuses that waited');
      api.held[1]?.resolve();
      await flush();
      assert.equal(statusWrites(t).length, 2);
      assert.equal(t.stored().status?.metricResults?.[0]?.count, 3);
    });

    it('a write that lands while the next measurement is being taken is built on, not written over', async () => {
      // Seen at 200 runs: the chain of writes ended during a pass behind it, whose status then
      // went out on the resourceVersion that pass started from: a Conflict, and a backoff of
      // seconds, every few measurements.
      const api = new SlowStatusApi();
      const woken: Key[] = [];
      let answer = (_o: ProviderOutcome): void => undefined;
      const slow = new Promise<ProviderOutcome>((resolve) => (answer = resolve));
      const p = scripted([value(0.97), () => slow, value(0.99)]);
      const t = setup(oneSecond(), p.provider, 'web', { api, wake: (k) => woken.push(k) });
      await t.reconciler.reconcile(KEY, t.stop.signal);
      t.clock.advance(1_000);
      const second = t.reconciler.reconcile(KEY, t.stop.signal);
      await flush();
      assert.equal(p.calls.length, 2, 'measuring behind the first write');
      api.held[0]?.resolve();
      await flush();
      answer(value(0.98));
      await second;
      api.held[1]?.resolve();
      await flush();
      assert.deepEqual(woken, [], 'no write was refused');
      const ms = t.stored().status?.metricResults?.[0]?.measurements ?? [];
      assert.deepEqual(
        ms.map((m) => m.value),
        ['0.97', '0.98'],
      );
    });

    it('a refused write wakes the run, its next pass fails into backoff, and nothing is recorded twice', async () => {
      const api = new SlowStatusApi();
      const woken: Key[] = [];
      const p = scripted([value(0.97), value(0.98), value(0.99)]);
      const t = setup(oneSecond(), p.provider, 'web', { api, wake: (k) => woken.push(k) });
      await t.reconciler.reconcile(KEY, t.stop.signal);
      api.held[0]?.reject(new Error('the server said Conflict'));
      await flush();
      assert.deepEqual(woken, [KEY]);
      await assert.rejects(t.reconciler.reconcile(KEY, t.stop.signal), /Conflict/);
      // From the cache again: the lost measurement is taken once more and written once.
      await t.reconciler.reconcile(KEY, t.stop.signal);
      api.held.at(-1)?.resolve();
      await flush();
      const ms = t.stored().status?.metricResults?.[0]?.measurements ?? [];
      assert.equal(ms.length, 1);
      assert.equal(t.stored().status?.metricResults?.[0]?.count, 1);
    });

    it('a terminate that lands after our writes is judged on the next pass, from the cache', async () => {
      const api = new SlowStatusApi();
      const p = scripted([value(0.97)]);
      const t = setup(runOf([webMetric({ interval: '1s', count: 5 })]), p.provider, 'web', {
        api,
        wake: () => undefined,
      });
      await t.reconciler.reconcile(KEY, t.stop.signal);
      api.afterWrite = () => {
        api.afterWrite = () => Promise.resolve();
        return api.patchMerge(Resources.AnalysisRun, 'ns', 'run', { spec: { terminate: true } });
      };
      api.held[0]?.resolve();
      await flush();
      const ended = t.reconciler.reconcile(KEY, t.stop.signal); // the spec change's pass
      await flush();
      assert.equal(api.held.length, 2, 'the terminated run writes its end');
      api.held[1]?.resolve();
      assert.deepEqual(await ended, {});
      assert.equal(t.stored().status?.phase, 'Successful');
      assert.match(t.stored().status?.message ?? '', /terminated/i);
    });
  },
);
