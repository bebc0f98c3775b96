/**
 * Serving argoproj.io in place: a watch on Argo Rollouts' leader-election Lease (one object,
 * `--argo-controller-lease`), so the planner can tell whether Argo's own controller still runs
 * (src/rollout/in-place/argo-controller.ts). The renewal time the planner judges by is when this
 * process saw the Lease change, on its own clock, as client-go's elector does. Rollouts and
 * AnalysisRuns are woken only when the holder changes (taken, released, another replica): a
 * renewal changes nothing they decide, and a Lease that lapses without a release is caught by
 * the requeue the stand-aside plans.
 */
import { Informer, kubeListWatch, Resources } from '../kube/index.ts';
import type { Clock, KubeApi, KubeObject, Lease, Logger } from '../kube/index.ts';
import type { ArgoControllerLease } from '../rollout/index.ts';
import type { ManagedInformer } from './manager.ts';

export interface ArgoPresenceOptions {
  readonly api: KubeApi;
  /** `namespace/name` of Argo's Lease. */
  readonly lease: string;
  readonly clock: Clock;
  readonly log: Logger;
}

/** client-go's default, for a Lease that does not say. */
const DEFAULT_LEASE_SECONDS = 15;

export class ArgoControllerPresence implements ManagedInformer {
  readonly #informer: Informer<KubeObject>;
  readonly #lease: string;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #listeners: (() => void)[] = [];
  #seen: ArgoControllerLease | undefined;

  constructor(o: ArgoPresenceOptions) {
    const [namespace = '', name = ''] = o.lease.split('/');
    this.#lease = o.lease;
    this.#clock = o.clock;
    this.#log = o.log;
    this.#informer = new Informer<KubeObject>({
      name: `lease ${o.lease} (Argo Rollouts' controller)`,
      source: kubeListWatch(o.api, Resources.Lease, namespace),
      fieldSelector: `metadata.name=${name}`,
      clock: o.clock,
      logger: o.log,
    });
    this.#informer.addEventHandler({
      onAdd: (l) => this.#saw(l as Lease),
      onUpdate: (_old, l) => this.#saw(l as Lease),
      onDelete: () => this.#saw(undefined),
    });
  }

  get synced(): Promise<boolean> {
    return this.#informer.synced;
  }

  hasSynced(): boolean {
    return this.#informer.hasSynced();
  }

  start(): void {
    this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  /** The Lease as last seen (undefined: there is none). */
  sighting(): ArgoControllerLease | undefined {
    return this.#seen;
  }

  /** Called when the holder changes (taken, released, handed to another replica). */
  onHolderChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  #saw(lease: Lease | undefined): void {
    const before = this.#seen?.holder ?? '';
    const holder = lease?.spec?.holderIdentity ?? '';
    this.#seen =
      lease === undefined
        ? undefined
        : {
            lease: this.#lease,
            holder,
            renewSeenAt: this.#clock.now(),
            durationMs: (lease.spec?.leaseDurationSeconds ?? DEFAULT_LEASE_SECONDS) * 1000,
          };
    if (holder === before) return;
    this.#log.info(
      holder === ''
        ? "Argo Rollouts' controller released its Lease: serving in place"
        : "Argo Rollouts' controller holds its Lease: standing aside",
      { lease: this.#lease, holder },
    );
    for (const listener of this.#listeners) listener();
  }
}
