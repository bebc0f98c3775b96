/**
 * The manager (controller-runtime's Manager and its runnable groups): runs what main.ts declares,
 * in one order, and stops it in the reverse one.
 *
 * Start: probes (health and metrics answer while the caches fill) → informers, with every
 * controller's watches attached → every cache synced → servers → `synced` → the controllers,
 * once this replica leads (at once without an election): each queues every key it owns, then
 * runs its workers.
 *
 * Stop (a signal, or the Lease lost), within `graceMs`: controllers (their queues drain, every
 * pass in flight ends) → the election (the Lease is released) → servers → informers → `flush`
 * → probes. A stop that outlasts the grace period ends with its exit code anyway (0 becomes 1).
 * A Lease lost while running stops everything with exit code 3: another replica may already
 * act, and the Deployment restarts this one as a candidate.
 */
import type { Logger, WorkQueue } from '../kube/index.ts';
import { errorText } from '../kube/index.ts';
import { ExitCode } from './config.ts';
import type { Key, Reconciler } from './reconciler.ts';
import type { Watch } from './watch.ts';
import { runWorkers } from './worker.ts';
import type { WorkerHooks } from './worker.ts';

/** A controller, declared: what wakes it, where the keys wait, who works them, how many. */
export interface Controller {
  readonly name: string;
  readonly queue: WorkQueue<Key>;
  readonly reconciler: Reconciler;
  readonly workers: number;
  readonly watches: readonly Watch[];
  /** Every key it is responsible for: queued when it starts, and after an API outage. */
  readonly keys: () => Iterable<Key>;
  /** After each pass, for metrics. */
  readonly observe?: WorkerHooks['observe'];
}

export interface ManagedInformer {
  start(): void;
  readonly synced: Promise<unknown>;
  stop(): Promise<void>;
}

export interface Runnable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface Election {
  /** `namespace/name` of the Lease, for the logs. */
  readonly lease: string;
  /** Campaigns: `started` once leading, `lost` when leadership ends (also on `stop`). */
  run(started: () => void, lost: () => void): Promise<void>;
  stop(): Promise<void>;
}

export interface ManagerOptions {
  readonly informers: readonly ManagedInformer[];
  readonly controllers: readonly Controller[];
  /** Started before the informers, stopped last. */
  readonly probes?: readonly Runnable[];
  /** Started once the caches have synced. */
  readonly servers?: readonly Runnable[];
  /** Absent: this replica acts from the start. */
  readonly election?: Election;
  readonly graceMs: number;
  readonly log: Logger;
  /** After the servers start, before the controllers (or the campaign). */
  readonly synced?: () => void;
  /** Once the controllers' workers run (this replica leads). */
  readonly leading?: () => void;
  /** Every informer event a watch sees and every pass: the cluster is changing. */
  readonly activity?: () => void;
  /** Before anything stops. */
  readonly stopping?: () => void;
  /** After every writer has stopped (the event recorder's buffer). */
  readonly flush?: () => Promise<void>;
  /** The grace period's timer; default an unref'd setTimeout. */
  readonly after?: (ms: number, fn: () => void) => () => void;
}

export class Manager {
  readonly #o: ManagerOptions;
  readonly #stop = new AbortController();
  #leading: boolean;
  #workers: Promise<void>[] = [];
  #resolve: (code: number) => void = () => undefined;
  readonly #done = new Promise<number>((resolve) => (this.#resolve = resolve));

  constructor(options: ManagerOptions) {
    this.#o = options;
    this.#leading = options.election === undefined;
  }

  /** Whether this replica acts (the Lease's holder, or no election). */
  get leading(): boolean {
    return this.#leading;
  }

  /** Every key back through its controller (the API server answers again after failures). */
  requeueAll(): void {
    if (!this.#leading) return;
    for (const c of this.#o.controllers) for (const key of c.keys()) c.queue.add(key);
  }

  /** Starts everything in order; resolves with the exit code once stopped. */
  async run(): Promise<number> {
    const { informers, controllers, election, log } = this.#o;
    const activity = this.#o.activity ?? ((): void => undefined);
    for (const c of controllers) {
      for (const w of c.watches) w.attach((key) => c.queue.add(key), activity);
    }
    for (const p of this.#o.probes ?? []) await p.start();
    for (const informer of informers) informer.start();
    await Promise.all(informers.map((i) => i.synced));
    for (const s of this.#o.servers ?? []) await s.start();
    this.#o.synced?.();
    if (election === undefined) {
      this.#startControllers();
      return this.#done;
    }
    log.info('waiting for leadership', { lease: election.lease });
    election
      .run(
        () => this.#startControllers(),
        () => this.#lost(election.lease),
      )
      .catch((err: unknown) => {
        log.error('leader election failed', { error: errorText(err) });
        this.#resolve(ExitCode.failed);
      });
    return this.#done;
  }

  /** Stops in reverse order; `why` is logged for a clean stop (a lost Lease logs its own). */
  stop(why: string, code: number): void {
    if (this.#stop.signal.aborted) return;
    const { log } = this.#o;
    if (code === ExitCode.ok) log.info('shutting down', { signal: why });
    this.#stop.abort();
    this.#o.stopping?.();
    const after = this.#o.after ?? unrefAfter;
    const cancel = after(this.#o.graceMs, () => this.#resolve(code || ExitCode.failed));
    void (async () => {
      await Promise.all(this.#o.controllers.map((c) => c.queue.shutDown({ drain: true })));
      await Promise.all(this.#workers);
      await this.#o.election?.stop();
      for (const s of [...(this.#o.servers ?? [])].reverse()) await s.stop();
      await Promise.all(this.#o.informers.map((i) => i.stop()));
      await this.#o.flush?.();
      for (const p of [...(this.#o.probes ?? [])].reverse()) await p.stop();
      cancel();
      if (code === ExitCode.ok) log.info('stopped');
      this.#resolve(code);
    })();
  }

  #startControllers(): void {
    this.#leading = true;
    const activity = this.#o.activity;
    for (const c of this.#o.controllers) {
      for (const key of c.keys()) c.queue.add(key);
      const observe: WorkerHooks['observe'] = (seconds, result) => {
        activity?.();
        c.observe?.(seconds, result);
      };
      this.#workers.push(
        runWorkers(c.queue, c.reconciler, c.workers, this.#o.log, this.#stop.signal, {
          observe,
          keyField: c.name,
        }),
      );
    }
    this.#o.leading?.();
  }

  #lost(lease: string): void {
    // A stop() on shutdown also lands here: nothing to add.
    if (this.#stop.signal.aborted) return;
    this.#o.log.error('leader Lease lost: not renewed within the renew deadline; exiting', {
      lease,
      exitCode: ExitCode.leaseLost,
    });
    this.stop('lease lost', ExitCode.leaseLost);
  }
}

function unrefAfter(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
