/** A Deployment, a ReplicaSet and a PodTemplate to reference, and a Rollout that references one. */
import type {
  Deployment,
  PodTemplate,
  ReplicaSet,
  Rollout,
  RolloutSpec,
  WorkloadRef,
} from '../../../../src/api/index.ts';
import { rolloutFixture } from '../../../fixtures/rollout/sim.ts';

export const podTemplate = (image = 'web:1') => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

export function deploymentFixture(replicas = 3, image = 'web:1', generation = 1): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web-deploy', namespace: 'ns', generation },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: podTemplate(image) },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
  };
}

export function replicaSetReferent(): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-rs', namespace: 'ns', generation: 4 },
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate() },
  };
}

export function podTemplateReferent(): PodTemplate {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'web-pt', namespace: 'ns' },
    template: podTemplate(),
  };
}

/** A Rollout with no template of its own, referencing `ref` (a Deployment by default). */
export function referencing(
  ref: Partial<WorkloadRef> = {},
  spec: Partial<RolloutSpec> = {},
): Rollout {
  const r = rolloutFixture({
    replicas: 2,
    workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web-deploy', ...ref },
    ...spec,
  });
  const { template: _t, selector: _s, ...rest } = r.spec;
  return { ...r, spec: { ...rest, ...spec } };
}
