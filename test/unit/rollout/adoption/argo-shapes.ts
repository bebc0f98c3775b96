// Hand-built objects in the shapes Argo Rollouts' controller leaves (rollout/replicaset.go,
// utils/annotations, utils/conditions, rollout/service.go): ReplicaSets `<rollout>-<hash>`
// labelled with `rollouts-pod-template-hash`, annotated with `rollout.argoproj.io/revision` and
// `…/desired-replicas`, controlled by the argoproj.io Rollout (or orphaned by a delete with
// propagationPolicy=Orphan), their template as the API server stores it (defaults filled in);
// Services whose selector Argo pinned to a hash; the status Argo wrote. The hashes are Argo's
// (Go's fnv over a spew dump): opaque strings here, as they are to Stepwise.
import {
  POD_TEMPLATE_HASH_LABEL,
  type ReplicaSet,
  type Rollout,
  type RolloutStatus,
  type Service,
} from '../../../../src/api/index.ts';
import { rolloutFixture } from '../../../fixtures/rollout/sim.ts';

export const ARGO_STABLE = '5d8f7c9b4';
export const ARGO_CANARY = '7b9c6d4f8';

/** What the API server stores for `{name: web, image}`. */
export function storedTemplate(
  hash: string,
  image: string,
): NonNullable<ReplicaSet['spec']>['template'] {
  return {
    metadata: { labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash } },
    spec: {
      containers: [
        {
          name: 'web',
          image,
          imagePullPolicy: 'IfNotPresent',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    },
  };
}

export type Holder = 'argo-rollout' | 'orphan' | 'argo-experiment' | 'deployment';

export interface ArgoRs {
  readonly hash: string;
  readonly image: string;
  readonly revision: number;
  readonly replicas: number;
  readonly holder?: Holder;
  readonly deadline?: string;
}

const OWNERS: Record<
  Exclude<Holder, 'orphan'>,
  NonNullable<ReplicaSet['metadata']>['ownerReferences']
> = {
  'argo-rollout': [
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      name: 'web',
      uid: 'argo-uid',
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
  'argo-experiment': [
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Experiment',
      name: 'web-7b9c6d4f8-3-0',
      uid: 'exp-uid',
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
  deployment: [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'dep-uid',
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
};

export function argoReplicaSet(r: ArgoRs): ReplicaSet {
  const holder = r.holder ?? 'orphan';
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${r.hash}`,
      namespace: 'ns',
      uid: `rs-${r.hash}`,
      resourceVersion: `${100 + r.revision}`,
      labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: r.hash },
      annotations: {
        'rollout.argoproj.io/revision': String(r.revision),
        'rollout.argoproj.io/desired-replicas': '4',
        ...(r.deadline === undefined ? {} : { 'scale-down-deadline': r.deadline }),
      },
      ...(holder === 'orphan' ? {} : { ownerReferences: OWNERS[holder] }),
    },
    spec: {
      replicas: r.replicas,
      selector: { matchLabels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: r.hash } },
      template: storedTemplate(r.hash, r.image),
    },
    status: { replicas: r.replicas, readyReplicas: r.replicas, availableReplicas: r.replicas },
  };
}

/** A Service as Argo left it: its selector pinned to `hash`, marked by Argo. */
export function argoService(name: string, hash: string): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: 'ns',
      annotations: { 'argo-rollouts.argoproj.io/managed-by-rollouts': 'web' },
    },
    spec: { selector: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash }, ports: [{ port: 80 }] },
  };
}

/** Argo's status at the first `pause: {}` of 25 / pause / 50 / pause 30s (utils/conditions). */
export function argoPausedStatus(pausedAt: string): RolloutStatus {
  return {
    phase: 'Paused',
    message: 'CanaryPauseStep',
    stableRS: ARGO_STABLE,
    currentPodHash: ARGO_CANARY,
    currentStepIndex: 1,
    currentStepHash: '5f7b8d6c9', // Argo's (Go) hash of the steps: never ours
    collisionCount: 0,
    pauseConditions: [{ reason: 'CanaryPauseStep', startTime: pausedAt }],
    controllerPause: true,
    canary: {
      weights: {
        canary: { weight: 25, podTemplateHash: ARGO_CANARY, serviceName: 'web-canary' },
        stable: { weight: 75, podTemplateHash: ARGO_STABLE, serviceName: 'web-stable' },
      },
    },
  };
}

/** The Stepwise Rollout `migrate` writes for Argo's `web` (same spec, our group). */
export function convertedRollout(image: string, status?: RolloutStatus): Rollout {
  const ro = rolloutFixture(
    {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          steps: [
            { setWeight: 25 },
            { pause: {} },
            { setWeight: 50 },
            { pause: { duration: '30s' } },
          ],
        },
      },
    },
    image,
  );
  return status === undefined ? ro : { ...ro, status };
}
