/**
 * The controller's informers, as one table: which kind each watches, with which selector, and
 * how it keeps what it reads (transform, indexes). main.ts builds them from it, and the memory
 * benchmark weighs each cache through the same transform and indexes.
 */
import { INSTANCE_ID_LABEL, POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';
import type {
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Rollout,
  RolloutApproval,
  Service,
} from '../api/index.ts';
import { JOB_RUN_LABEL } from '../analysis/providers/index.ts';
import { Informer, kubeListWatch, Resources } from '../kube/index.ts';
import type {
  Clock,
  KubeApi,
  Selectors,
  Logger,
  KubeObject,
  ResourceType,
  IndexFunc,
} from '../kube/index.ts';
import {
  analysisRunIndexers,
  approvalIndexers,
  podIndexers,
  replicaSetIndexers,
  rolloutIndexers,
  slimPod,
  serviceIndexers,
  slimService,
  templateIndexers,
} from './caches.ts';

export interface CacheSpec<T extends KubeObject> extends Selectors {
  readonly name: string;
  readonly resource: ResourceType;
  /** A cluster-scoped kind: watched cluster-wide even when --namespace limits the rest. */
  readonly clusterWide?: boolean;
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  readonly transform?: (obj: T) => T;
}

export interface CacheSpecs {
  readonly rollouts: CacheSpec<Rollout & KubeObject>;
  readonly replicaSets: CacheSpec<ReplicaSet & KubeObject>;
  readonly pods: CacheSpec<Pod & KubeObject>;
  readonly services: CacheSpec<Service & KubeObject>;
  readonly analysisRuns: CacheSpec<AnalysisRun & KubeObject>;
  readonly analysisTemplates: CacheSpec<AnalysisTemplate & KubeObject>;
  readonly clusterAnalysisTemplates: CacheSpec<AnalysisTemplate & KubeObject>;
  readonly approvals: CacheSpec<RolloutApproval & KubeObject>;
  /** Jobs of the job metric provider: a change wakes the run that owns the Job. */
  readonly jobs: CacheSpec<KubeObject>;
}

/** `instanceId`: --instance-id; Rollouts and runs with its label, or with none when unset. */
export function cacheSpecs(instanceId: string | undefined): CacheSpecs {
  // ReplicaSets and pods of other workloads (Deployments' included) are never read.
  const hashed = { labelSelector: POD_TEMPLATE_HASH_LABEL };
  const mine = {
    labelSelector:
      instanceId === undefined ? `!${INSTANCE_ID_LABEL}` : `${INSTANCE_ID_LABEL}=${instanceId}`,
  };
  return {
    rollouts: {
      name: 'rollouts',
      resource: Resources.Rollout,
      indexers: rolloutIndexers,
      ...mine,
    },
    replicaSets: {
      name: 'replicasets',
      resource: Resources.ReplicaSet,
      indexers: replicaSetIndexers,
      ...hashed,
    },
    pods: {
      name: 'pods',
      resource: Resources.Pod,
      indexers: podIndexers,
      transform: slimPod,
      ...hashed,
    },
    services: {
      name: 'services',
      resource: Resources.Service,
      indexers: serviceIndexers,
      transform: slimService,
    },
    analysisRuns: {
      name: 'analysisruns',
      resource: Resources.AnalysisRun,
      indexers: analysisRunIndexers,
      ...mine,
    },
    analysisTemplates: {
      name: 'analysistemplates',
      resource: Resources.AnalysisTemplate,
      indexers: templateIndexers,
    },
    clusterAnalysisTemplates: {
      name: 'clusteranalysistemplates',
      resource: Resources.ClusterAnalysisTemplate,
      clusterWide: true,
      indexers: templateIndexers,
    },
    approvals: {
      name: 'rolloutapprovals',
      resource: Resources.RolloutApproval,
      indexers: approvalIndexers,
    },
    jobs: { name: 'analysis-jobs', resource: Resources.Job, labelSelector: JOB_RUN_LABEL },
  };
}

export type ControllerInformers = {
  readonly [K in keyof CacheSpecs]: CacheSpecs[K] extends CacheSpec<infer T> ? Informer<T> : never;
};

export interface InformerContext {
  readonly api: KubeApi;
  /** --namespace; undefined: all. */
  readonly namespace: string | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  /** The API server answers again after failures. */
  readonly onResumed: () => void;
}

export function controllerInformers(specs: CacheSpecs, ctx: InformerContext): ControllerInformers {
  const build = <T extends KubeObject>(spec: CacheSpec<T>): Informer<T> => {
    const { resource, clusterWide, ...rest } = spec;
    return new Informer<T>({
      ...rest,
      source: kubeListWatch<T>(ctx.api, resource, clusterWide ? undefined : ctx.namespace),
      clock: ctx.clock,
      logger: ctx.log,
      onResumed: ctx.onResumed,
    });
  };
  return {
    rollouts: build(specs.rollouts),
    replicaSets: build(specs.replicaSets),
    pods: build(specs.pods),
    services: build(specs.services),
    analysisRuns: build(specs.analysisRuns),
    analysisTemplates: build(specs.analysisTemplates),
    clusterAnalysisTemplates: build(specs.clusterAnalysisTemplates),
    approvals: build(specs.approvals),
    jobs: build(specs.jobs),
  };
}

/**
 * The informers to start. Namespaced (--namespaced), ClusterAnalysisTemplates are left out:
 * they are cluster-scoped, a Role cannot grant reading them, and an informer that may not list
 * never syncs. Their cache stays empty, so a Rollout naming one finds no such template.
 */
export function startedInformers(
  informers: ControllerInformers,
  opts: { readonly namespaced: boolean },
): ControllerInformers[keyof ControllerInformers][] {
  const all = Object.values(informers);
  return opts.namespaced ? all.filter((i) => i !== informers.clusterAnalysisTemplates) : all;
}
