/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's `leaderelection` does it:
 * - Acquire when the Lease is missing, free (empty holder), or expired: its record has not
 *   changed for `leaseDuration` by OUR clock (observed time, not the holder's timestamps, so
 *   clock skew between nodes does not matter). Retry every `retryPeriod` (jittered ×[1, 2.2)).
 * - Renew every `retryPeriod`. If no renew succeeds within `renewDeadline` of the last success,
 *   leadership is lost: `onStoppedLeading`, and the controller stops work. renewDeadline <
 *   leaseDuration, so we stop before anyone else can take over.
 * - Every write carries the resourceVersion it read (optimistic concurrency): two candidates
 *   cannot both win; the loser gets a Conflict and tries again later.
 * - `stop()` releases the Lease (empty holder, 1 s duration) so another replica takes over at
 *   once instead of waiting out the lease.
 */
import { CONTROLLER_NAME, LEASE_NAME } from '../api/index.ts';
import { microTime, sleep, systemClock, type Clock } from './clock.ts';
import { isConflict } from './errors.ts';
import type { Lease, LeaseClient, LeaseSpec } from './lease.ts';
import { errorText, silentLogger, type Logger } from './log.ts';

export interface LeaderElectionOptions {
  readonly client: LeaseClient;
  readonly namespace: string;
  /** Default `stepwise-controller-leader`. */
  readonly name?: string;
  /** Unique per replica, e.g. `${podName}_${randomUUID()}`. */
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly random?: () => number;
  /** Leadership gained; `signal` aborts when it ends. Start workers here. */
  readonly onStartedLeading: (signal: AbortSignal) => void;
  /** Leadership ended (lost, or given up by `stop()`). Stop workers here. */
  readonly onStoppedLeading: () => void;
  /** The observed holder changed (`undefined`: nobody holds it). */
  readonly onNewLeader?: (identity: string | undefined) => void;
  /**
   * Subscribes to changes of the Lease (a watch): told the Lease as it is now (undefined: gone).
   * A standby then tries at once when the leader releases it, instead of at its next retry.
   * Returns the unsubscribe.
   */
  readonly leaseChanges?: (onLease: (lease: Lease | undefined) => void) => () => void;
}

export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #name: string;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  readonly #leaseMs: number;
  readonly #renewMs: number;
  readonly #retryMs: number;
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #leading = false;
  /** Last Lease read or written, and when (our clock) its record last changed. */
  #observed: Lease | undefined;
  #observedAt = 0;
  #holder: string | undefined;
  /** Ends the current wait of a campaign early (a watched release). */
  #wake: (() => void) | undefined;
  /** A release seen while no wait was on: the next wait ends at once. */
  #woken = false;

  constructor(opts: LeaderElectionOptions) {
    this.#o = opts;
    this.#name = opts.name ?? LEASE_NAME;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.logger ?? silentLogger;
    this.#random = opts.random ?? Math.random;
    this.#leaseMs = opts.leaseDurationMs ?? 15_000;
    this.#renewMs = opts.renewDeadlineMs ?? 10_000;
    this.#retryMs = opts.retryPeriodMs ?? 2_000;
    if (!(this.#leaseMs > this.#renewMs && this.#renewMs > this.#retryMs && this.#retryMs > 0)) {
      throw new RangeError('need leaseDuration > renewDeadline > retryPeriod > 0');
    }
  }

  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed on the Lease. */
  leader(): string | undefined {
    return this.#holder;
  }

  /** Campaigns, then leads until leadership is lost or `stop()` is called. Runs once. */
  run(): Promise<void> {
    this.#running ??= this.#run();
    return this.#running;
  }

  /** Stops campaigning or leading; if leading, calls `onStoppedLeading` and releases the Lease. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const stopped = this.#stop.signal;
    const unsubscribe = this.#o.leaseChanges?.((lease) => {
      // A free Lease (released, deleted) or our own (a restart of this pod): try now.
      const holder = lease?.spec?.holderIdentity || undefined;
      if (holder !== undefined && holder !== this.#o.identity) return;
      if (this.#wake) this.#wake();
      else this.#woken = true;
    });
    try {
      while (!stopped.aborted && !(await this.#tryAcquireOrRenew())) {
        await this.#nap(this.#retryMs * (1 + 1.2 * this.#random()), stopped);
      }
    } finally {
      unsubscribe?.();
    }
    if (stopped.aborted) return;
    const leading = new AbortController();
    this.#leading = true;
    this.#log.info('leader election: became leader', {
      lease: this.#name,
      identity: this.#o.identity,
    });
    this.#guard('onStartedLeading', () => this.#o.onStartedLeading(leading.signal));

    let lastRenew = this.#clock.now();
    while (!stopped.aborted) {
      await sleep(this.#clock, this.#retryMs, stopped);
      if (stopped.aborted) break;
      const deadline = lastRenew + this.#renewMs;
      if (
        this.#clock.now() < deadline &&
        (await this.#before(deadline, this.#tryAcquireOrRenew()))
      ) {
        lastRenew = this.#clock.now();
      } else if (this.#clock.now() >= deadline) {
        // Debug only: onStoppedLeading's owner says what happens next, in one line.
        this.#log.debug('leader election: lost the lease (renew deadline passed)', {
          lease: this.#name,
        });
        break;
      }
    }
    this.#leading = false;
    leading.abort();
    this.#guard('onStoppedLeading', () => this.#o.onStoppedLeading());
    if (stopped.aborted) await this.#before(this.#clock.now() + this.#renewMs, this.#release());
  }

  /** Waits `ms`, or less when a watched change of the Lease wakes the campaign. */
  async #nap(ms: number, stopped: AbortSignal): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return;
    }
    const woken = new AbortController();
    this.#wake = () => woken.abort();
    try {
      await sleep(this.#clock, ms, AbortSignal.any([stopped, woken.signal]));
    } finally {
      this.#wake = undefined;
    }
  }

  /** `work`'s result if it settles before `deadline`, else false. */
  async #before(deadline: number, work: Promise<boolean>): Promise<boolean> {
    let cancel = (): void => undefined;
    const timeout = new Promise<boolean>((resolve) => {
      cancel = this.#clock.after(deadline - this.#clock.now(), () => resolve(false));
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      cancel();
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, identity } = this.#o;
    const now = this.#clock.now();
    try {
      const current = await client.get(namespace, this.#name);
      if (!current) {
        this.#observe(await client.create(this.#lease(undefined, now)));
        return true;
      }
      this.#observe(current);
      const holder = current.spec?.holderIdentity || undefined;
      const durationMs = (current.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
      if (holder && holder !== identity && this.#observedAt + durationMs > now) return false;
      this.#observe(await client.update(this.#lease(current, now)));
      return true;
    } catch (err) {
      const msg = isConflict(err) ? 'lost a race for the lease' : 'lease request failed';
      this.#log.debug(`leader election: ${msg}`, { error: errorText(err) });
      return false;
    }
  }

  #lease(current: Lease | undefined, now: number): Lease {
    const spec: LeaseSpec = current?.spec ?? {};
    const mine = spec.holderIdentity === this.#o.identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: current?.metadata ?? { namespace: this.#o.namespace, name: this.#name },
      spec: {
        holderIdentity: this.#o.identity,
        leaseDurationSeconds: Math.ceil(this.#leaseMs / 1000),
        acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (current && !mine ? 1 : 0),
      },
    };
  }

  #observe(lease: Lease): void {
    const a = this.#observed?.spec;
    const b = lease.spec;
    const changed =
      !this.#observed ||
      a?.holderIdentity !== b?.holderIdentity ||
      a?.renewTime !== b?.renewTime ||
      a?.acquireTime !== b?.acquireTime ||
      a?.leaseTransitions !== b?.leaseTransitions ||
      a?.leaseDurationSeconds !== b?.leaseDurationSeconds;
    if (changed) this.#observedAt = this.#clock.now();
    this.#observed = lease;
    const holder = b?.holderIdentity || undefined;
    if (holder !== this.#holder) {
      this.#holder = holder;
      this.#guard('onNewLeader', () => this.#o.onNewLeader?.(holder));
    }
  }

  /** Gives the Lease up so a standby replica takes over at once. */
  async #release(): Promise<boolean> {
    const lease = this.#observed;
    if (!lease || lease.spec?.holderIdentity !== this.#o.identity) return false;
    const now = microTime(this.#clock.now());
    try {
      const spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now };
      this.#observe(await this.#o.client.update({ ...lease, spec: { ...spec, acquireTime: now } }));
      this.#log.info('leader election: released the lease', { lease: this.#name });
      return true;
    } catch (err) {
      this.#log.warn('leader election: release failed', { error: errorText(err) });
      return false;
    }
  }

  #guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#log.error(`leader election: ${what} threw`, { error: errorText(err) });
    }
  }
}

/** An identity unique to this process: the pod name plus a random suffix, as client-go does. */
export function leaderIdentity(podName: string = CONTROLLER_NAME): string {
  return `${podName}_${crypto.randomUUID()}`;
}
