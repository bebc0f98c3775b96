/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: acquire when the
 * Lease is free or its holder has not renewed within leaseDuration (measured on our own clock
 * from when we last saw the record change, so clock skew between replicas does not matter);
 * renew every retryPeriod; give up leadership when no renew succeeded within renewDeadline;
 * release on shutdown so a standby takes over at its next retry, not after expiry.
 * Optimistic concurrency (resourceVersion) decides races.
 */
import type { Clock } from './clock.ts';
import { microTime, sleep, systemClock } from './clock.ts';
import { isAlreadyExists, isConflict } from './errors.ts';
import type { KubeApi } from './kube-api.ts';
import type { Logger } from './log.ts';
import { errorText, silentLogger } from './log.ts';
import type { KubeObject } from './objects.ts';
import { Resources } from './resources.ts';

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectorOptions {
  readonly api: KubeApi;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
}

export class LeaderElector {
  readonly #o: LeaderElectorOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  #leader = false;
  #lease: Lease | undefined;
  /** What we last saw (holder + renewTime) and when, on our clock. */
  #observed = { record: '', at: 0 };

  constructor(opts: LeaderElectorOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.log ?? silentLogger;
  }

  isLeader(): boolean {
    return this.#leader;
  }

  get #durationMs(): number {
    return this.#o.leaseDurationMs ?? 15_000;
  }

  /** Campaigns, then renews, until `signal` aborts or leadership is lost. */
  async run(signal: AbortSignal): Promise<void> {
    const retry = this.#o.retryPeriodMs ?? 2_000;
    while (!signal.aborted && !this.#leader) {
      if (await this.#tryAcquireOrRenew()) break;
      await sleep(this.#clock, retry, signal);
    }
    if (signal.aborted) return;
    this.#leader = true;
    this.#log.info('became leader', {
      lease: `${this.#o.namespace}/${this.#o.name}`,
      identity: this.#o.identity,
    });
    this.#o.onStartedLeading();
    let lastRenew = this.#clock.now();
    while (!signal.aborted) {
      await sleep(this.#clock, retry, signal);
      if (signal.aborted) break;
      if (await this.#tryAcquireOrRenew()) {
        lastRenew = this.#clock.now();
      } else if (this.#clock.now() - lastRenew >= (this.#o.renewDeadlineMs ?? 10_000)) {
        this.#leader = false;
        this.#log.error('lost leadership: no renew within the renew deadline', {
          identity: this.#o.identity,
        });
        this.#o.onStoppedLeading();
        return;
      }
    }
  }

  /** Gives the Lease up (holder cleared) so a standby takes over at once. */
  async release(): Promise<void> {
    if (!this.#leader || this.#lease === undefined) return;
    this.#leader = false;
    const now = microTime(this.#clock.now());
    try {
      await this.#o.api.update<Lease>({
        ...this.#lease,
        spec: { ...this.#lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
      });
      this.#log.info('released leadership', { identity: this.#o.identity });
    } catch (err) {
      this.#log.warn('could not release the Lease; it expires on its own', {
        error: errorText(err),
      });
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { api, namespace, name, identity } = this.#o;
    const now = this.#clock.now();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.#durationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const current = await api.get<Lease>(Resources.Lease, namespace, name);
      if (current === undefined) {
        this.#lease = await api.create<Lease>({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec,
        });
        return true;
      }
      const record = `${current.spec?.holderIdentity ?? ''}|${current.spec?.renewTime ?? ''}`;
      if (record !== this.#observed.record) this.#observed = { record, at: now };
      const holder = current.spec?.holderIdentity ?? '';
      const held = holder !== '' && holder !== identity;
      const durationMs = (current.spec?.leaseDurationSeconds ?? 15) * 1000;
      if (held && this.#observed.at + durationMs > now) return false;
      const mine = holder === identity;
      this.#lease = await api.update<Lease>({
        ...current,
        spec: {
          ...spec,
          acquireTime: mine ? (current.spec?.acquireTime ?? spec.acquireTime) : spec.acquireTime,
          leaseTransitions: (current.spec?.leaseTransitions ?? 0) + (mine ? 0 : 1),
        },
      });
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) {
        this.#log.warn('lease request failed', { error: errorText(err) });
      }
      return false;
    }
  }
}
