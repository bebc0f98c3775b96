/**
 * Informers for what Rollouts' `spec.workloadRef`s name (Deployments, ReplicaSets, PodTemplates),
 * started lazily: a kind is watched only once some Rollout references one of its kind, so a
 * cluster without workloadRefs caches no Deployment. Until a kind's first LIST is cached, its
 * Rollouts wait (their pass plans nothing: a referent not yet read is not a missing one); the
 * sync wakes them, and so does every change to a referent.
 *
 * The ReplicaSet informer here is not the controller's own (that one reads only ReplicaSets with
 * our pod-template-hash label): a referenced ReplicaSet is the user's.
 */
import type { Rollout, WorkloadKind } from '../api/index.ts';
import { Informer, kubeListWatch, Resources, watched } from '../kube/index.ts';
import type {
  Clock,
  KindAccess,
  KubeApi,
  KubeObject,
  Logger,
  ResourceType,
} from '../kube/index.ts';
import type { ObservedWorkload, Referent } from '../rollout/index.ts';
import type { ManagedInformer } from './manager.ts';

const TYPES: Readonly<Record<WorkloadKind, ResourceType>> = {
  Deployment: Resources.Deployment,
  ReplicaSet: Resources.ReplicaSet,
  PodTemplate: Resources.PodTemplate,
};

/** What the controller does to referenced workloads: reads all three kinds, and patches a
 *  Deployment's replicas (server-side apply); no `update`. The RBAC in deploy/ grants this. */
export function workloadKinds(): readonly KindAccess[] {
  return [
    watched(Resources.Deployment, 'patch'),
    watched(Resources.ReplicaSet),
    watched(Resources.PodTemplate),
  ];
}

/** The index value a referent's change wakes (Rollouts are indexed by it, caches.ts). */
export function workloadKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** The index value a kind's first sync wakes: every Rollout referencing that kind. */
export function workloadKindKey(kind: string): string {
  return `kind:${kind}`;
}

/** A referent read: `syncing` while its kind's cache is still filling. */
export type WorkloadReading = ObservedWorkload | 'syncing';

export interface WorkloadOptions {
  readonly api: KubeApi;
  /** --namespace; undefined: all. */
  readonly namespace: string | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onResumed: () => void;
}

export class WorkloadInformers implements ManagedInformer {
  /** The manager never waits for these: none exists when the caches first sync. */
  readonly synced: Promise<boolean> = Promise.resolve(true);
  readonly #o: WorkloadOptions;
  readonly #informers = new Map<WorkloadKind, Informer<KubeObject>>();
  readonly #wakes: ((indexValue: string) => void)[] = [];
  #started = false;
  #stopped = false;

  constructor(options: WorkloadOptions) {
    this.#o = options;
  }

  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  /** For /readyz: a lazily started kind still filling does not make the controller unready. */
  hasSynced(): boolean {
    return true;
  }

  /** The kinds watched so far and how many objects each caches (logs, tests). */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.#informers].map(([kind, i]) => [kind, i.size]));
  }

  /** Calls `wake` with the index value of every referent that changes, and of each kind once
   *  its cache has synced. */
  onChange(wake: (indexValue: string) => void): void {
    this.#wakes.push(wake);
  }

  /** What the Rollout's workloadRef names, as cached; undefined without a workloadRef. */
  observe(rollout: Rollout): WorkloadReading | undefined {
    const ref = rollout.spec?.workloadRef;
    if (ref === undefined || !Object.hasOwn(TYPES, ref.kind)) return undefined;
    const informer = this.#ensure(ref.kind);
    if (!informer.hasSynced()) {
      // Failing to list (RBAC without this kind, say): the Rollout says so instead of waiting
      // in silence; the sync, once it comes, wakes it.
      if (informer.stats.errors === 0) return 'syncing';
      const type = TYPES[ref.kind];
      const resource = type.group === '' ? type.plural : `${type.plural}.${type.group}`;
      return {
        unreadable: `the controller cannot list ${resource} (its log says why; does its RBAC grant get, list and watch?)`,
      };
    }
    const object = informer.get(`${rollout.metadata.namespace}/${ref.name}`);
    return object === undefined ? {} : { object: object as Referent };
  }

  #ensure(kind: WorkloadKind): Informer<KubeObject> {
    const existing = this.#informers.get(kind);
    if (existing !== undefined) return existing;
    const informer = new Informer<KubeObject>({
      name: `workloadref-${TYPES[kind].plural}`,
      source: kubeListWatch(this.#o.api, TYPES[kind], this.#o.namespace),
      clock: this.#o.clock,
      logger: this.#o.log,
      onResumed: this.#o.onResumed,
      transform: slimWorkload,
    });
    this.#informers.set(kind, informer);
    const send = (o: KubeObject): void =>
      this.#send(workloadKey(kind, o.metadata?.namespace ?? '', o.metadata?.name ?? ''));
    informer.addEventHandler({ onAdd: send, onUpdate: (_old, o) => send(o), onDelete: send });
    void informer.synced.then((synced) => {
      if (!synced) return;
      this.#o.log.info('workloadRef kind watched', { kind, cached: informer.size });
      this.#send(workloadKindKey(kind));
    });
    if (this.#started && !this.#stopped) informer.start();
    return informer;
  }

  #send(indexValue: string): void {
    for (const wake of this.#wakes) wake(indexValue);
  }
}

/**
 * What the controller keeps of a referent: identity, generation, annotations (ours among them),
 * the template and selector, the replicas it runs. A Deployment's history and conditions are
 * not read.
 */
export function slimWorkload<T extends KubeObject>(obj: T): T {
  const o = obj as Referent & KubeObject;
  const m = o.metadata ?? {};
  const spec = 'spec' in o ? o.spec : undefined;
  const status = 'status' in o ? o.status : undefined;
  const slim: Record<string, unknown> = {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      generation: m.generation,
      labels: m.labels,
      annotations: m.annotations,
      deletionTimestamp: m.deletionTimestamp,
    },
  };
  if ('template' in o && o.template !== undefined) slim.template = o.template;
  if (spec !== undefined) {
    slim.spec = { replicas: spec.replicas, selector: spec.selector, template: spec.template };
  }
  if (status !== undefined) {
    slim.status = {
      replicas: status.replicas,
      readyReplicas: status.readyReplicas,
      availableReplicas: status.availableReplicas,
    };
  }
  return slim as T;
}
