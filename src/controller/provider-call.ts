/**
 * One call to a metric provider from the AnalysisRun shell: measure, resume an asynchronous
 * measurement, or stop one, each within a time limit and the controller's stop signal. A provider
 * that throws, hangs past the limit or ignores its signal is an Error outcome, never a stuck
 * worker. No analysis logic here.
 */
import type { Measurement, Metric } from '../api/index.ts';
import type { ProviderOutcome } from '../analysis/evaluate/index.ts';
import type {
  AnalysisProvider,
  MeasureContext,
  PendingOutcome,
  ProviderName,
} from '../analysis/providers/index.ts';
import type { Clock } from '../kube/index.ts';

export type Outcome = ProviderOutcome | PendingOutcome;

export interface ProviderCall {
  readonly provider: AnalysisProvider | undefined;
  readonly name: ProviderName | undefined;
  readonly metric: Metric;
  readonly kind: 'measure' | 'resume' | 'terminate';
  readonly inFlight?: Measurement;
  readonly ctx: Omit<MeasureContext, 'signal'>;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly stop: AbortSignal;
}

export async function callProvider(c: ProviderCall): Promise<Outcome> {
  const { provider, name } = c;
  if (provider === undefined) {
    return {
      ok: false,
      message: `provider ${name ?? '(none)'} is not available in this controller`,
    };
  }
  if (c.kind === 'terminate') return terminate(c, provider);
  if (c.kind === 'resume' && (provider.resume === undefined || c.inFlight === undefined)) {
    return { ok: false, message: `provider ${name} cannot resume a measurement` };
  }
  return withLimit(c, (signal) => {
    const ctx = { ...c.ctx, signal };
    return c.kind === 'resume' && provider.resume !== undefined && c.inFlight !== undefined
      ? provider.resume(c.metric, c.inFlight, ctx)
      : provider.measure(c.metric, ctx);
  });
}

/** The run is being terminated: an asynchronous measurement is stopped, and ends Successful. */
async function terminate(c: ProviderCall, provider: AnalysisProvider): Promise<Outcome> {
  let problem = '';
  if (provider.terminate !== undefined && c.inFlight !== undefined) {
    const inFlight = c.inFlight;
    const stopped = await withLimit(c, async (signal) => {
      await provider.terminate?.(c.metric, inFlight, { ...c.ctx, signal });
      return { ok: true, result: null, value: '' };
    });
    if (stopped.ok === false) problem = ` (could not stop it: ${stopped.message})`;
  }
  return {
    ok: true,
    result: null,
    value: c.inFlight?.value ?? '',
    phase: 'Successful',
    message: `metric terminated${problem}`,
  };
}

/** Races `call` against the time limit and the controller's stop; a throw is an Error outcome. */
async function withLimit(
  c: ProviderCall,
  call: (signal: AbortSignal) => Promise<Outcome>,
): Promise<Outcome> {
  const abort = new AbortController();
  let cancelTimer: () => void = () => undefined;
  let onStop: () => void = () => undefined;
  // A provider that ignores its signal is abandoned: the race settles on the timer or the stop.
  const gaveUp = new Promise<Outcome>((resolve) => {
    const giveUp = (message: string): void => {
      resolve({ ok: false, message });
      abort.abort(new Error(message));
    };
    cancelTimer = c.clock.after(c.timeoutMs, () =>
      giveUp(`measurement timed out after ${c.timeoutMs / 1000}s`),
    );
    onStop = () => giveUp('measurement stopped: controller shutting down');
    if (c.stop.aborted) onStop();
    else c.stop.addEventListener('abort', onStop, { once: true });
  });
  try {
    const answered = call(abort.signal).catch((err: unknown): Outcome => ({
      ok: false,
      message: err instanceof Error ? err.message : String(err),
    }));
    return await Promise.race([answered, gaveUp]);
  } finally {
    cancelTimer();
    c.stop.removeEventListener('abort', onStop);
  }
}
