// Plain objects for the plugin's tests: a Rollout mid-canary with a stable and a canary
// ReplicaSet and their pods.
import type { AnalysisRun, MetricResult } from '../../../src/api/analysis.ts';
import { REVISION_ANNOTATION } from '../../../src/api/keys.ts';
import type { Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import type { PodLike, ReplicaSetLike } from '../../../src/cli/render/objects.ts';

export const NOW = Date.parse('2026-03-01T12:00:00Z');
export const ago = (seconds: number): string => new Date(NOW - seconds * 1000).toISOString();

export function rollout(status: RolloutStatus = {}, over: Partial<Rollout['spec']> = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'uid-web',
      generation: 2,
      resourceVersion: '10',
      creationTimestamp: new Date(NOW - 3600_000),
    },
    spec: {
      replicas: 5,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] },
      },
      strategy: {
        canary: {
          steps: [
            { setWeight: 20 },
            { pause: {} },
            { setWeight: 50 },
            { pause: { duration: '30s' } },
          ],
        },
      },
      ...over,
    },
    status: { observedGeneration: '2', ...status },
  };
}

/** Paused at step 1 with 1 canary pod of 5. */
export const pausedStatus: RolloutStatus = {
  phase: 'Paused',
  message: 'CanaryPauseStep',
  currentPodHash: 'c4n4ry',
  stableRS: '5t4bl3',
  currentStepIndex: 1,
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: ago(60) }],
  controllerPause: true,
  replicas: 5,
  updatedReplicas: 1,
  readyReplicas: 5,
  availableReplicas: 5,
};

export function replicaSet(
  hash: string,
  revision: number,
  replicas: number,
  image: string,
  extra: { available?: number; annotations?: Record<string, string> } = {},
): ReplicaSetLike {
  return {
    metadata: {
      name: `web-${hash}`,
      namespace: 'shop',
      uid: `uid-rs-${hash}`,
      creationTimestamp: ago(600 - revision * 100),
      labels: { app: 'web', 'rollouts-pod-template-hash': hash },
      annotations: { 'stepwise.dev/revision': String(revision), ...extra.annotations },
      ownerReferences: [{ uid: 'uid-web', kind: 'Rollout', name: 'web', controller: true }],
    },
    spec: {
      replicas,
      template: { spec: { containers: [{ name: 'web', image }] } },
    },
    status: {
      replicas,
      readyReplicas: extra.available ?? replicas,
      availableReplicas: extra.available ?? replicas,
    },
  };
}

export function pod(
  rs: ReplicaSetLike,
  suffix: string,
  state: 'ready' | 'starting' | 'crash' = 'ready',
  restarts = 0,
): PodLike {
  const hash = rs.metadata?.labels?.['rollouts-pod-template-hash'] ?? '';
  return {
    metadata: {
      name: `${rs.metadata?.name}-${suffix}`,
      namespace: 'shop',
      creationTimestamp: new Date(NOW - 90_000),
      labels: { app: 'web', 'rollouts-pod-template-hash': hash },
      ownerReferences: [{ uid: rs.metadata?.uid ?? '', kind: 'ReplicaSet', controller: true }],
    },
    spec: { containers: [{ name: 'web' }] },
    status: {
      phase: state === 'starting' ? 'Pending' : 'Running',
      containerStatuses: [
        {
          name: 'web',
          ready: state === 'ready',
          restartCount: restarts,
          state:
            state === 'ready'
              ? { running: {} }
              : state === 'crash'
                ? { waiting: { reason: 'CrashLoopBackOff' } }
                : { waiting: { reason: 'ContainerCreating' } },
        },
      ],
    },
  };
}

export const stableRS = replicaSet('5t4bl3', 1, 5, 'nginx:1.25');
export const canaryRS = replicaSet('c4n4ry', 2, 1, 'nginx:1.26');
export const stablePods = ['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee'].map((s) =>
  pod(stableRS, s),
);
export const canaryPods = [pod(canaryRS, 'zzzzz', 'ready', 2)];

/** An AnalysisRun of Rollout web (uid-web unless `owner`), for revision 2 unless told. */
export function analysisRun(
  name: string,
  phase: string,
  results: MetricResult[],
  extra: { revision?: number; created?: number; owner?: string } = {},
): AnalysisRun {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: {
      name,
      namespace: 'shop',
      creationTimestamp: new Date(ago(extra.created ?? 60)),
      annotations: { [REVISION_ANNOTATION]: String(extra.revision ?? 2) },
      ownerReferences: [
        {
          apiVersion: 'stepwise.dev/v1alpha1',
          kind: 'Rollout',
          name: 'web',
          uid: extra.owner ?? 'uid-web',
        },
      ],
    },
    spec: {
      args: [
        { name: 'canary-hash', value: 'c4n4ry' },
        { name: 'token', valueFrom: { secretKeyRef: { name: 'prom', key: 'token' } } },
      ],
      metrics: results.map((r) => ({
        name: r.name,
        interval: '30s',
        failureLimit: 0,
        successCondition: 'result[0] >= 0.95',
        provider: { prometheus: { query: 'up' } },
      })),
    },
    status: { phase: phase as never, metricResults: results },
  };
}
