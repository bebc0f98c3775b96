/**
 * Deployments for the workloadRef tests: the user's own workload, created, changed and re-applied
 * the way Git (through a GitOps tool) would, and waited on by watch.
 */
import type { Deployment, Rollout, RolloutSpec, WorkloadRef } from '../../../src/api/index.ts';
import { http, waitFor } from './rollouts.ts';

const DEPLOYMENTS = (ns: string): string => `/apis/apps/v1/namespaces/${ns}/deployments`;

export function deploymentBody(name: string, replicas: number, image = 'app:1'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] },
      },
    },
  };
}

/** Server-side apply under a GitOps tool's field manager, forced (as Argo CD's SSA sync). */
export async function applyDeployment(
  ns: string,
  body: Deployment,
  fieldManager = 'argocd-controller',
): Promise<Deployment> {
  return http.json<Deployment>(
    'PATCH',
    `${DEPLOYMENTS(ns)}/${body.metadata?.name}?fieldManager=${fieldManager}&force=true`,
    body,
    'application/apply-patch+yaml',
  );
}

export function getDeployment(ns: string, name: string): Promise<Deployment> {
  return http.json<Deployment>('GET', `${DEPLOYMENTS(ns)}/${name}`);
}

export function waitForDeployment(
  ns: string,
  name: string,
  what: string,
  pred: (d: Deployment) => boolean,
  timeoutMs = 60_000,
): Promise<Deployment> {
  return waitFor(what, DEPLOYMENTS(ns), name, pred, timeoutMs);
}

/** The Deployment's spec.replicas and the pods it still has. */
export const deploymentAt =
  (replicas: number) =>
  (d: Deployment): boolean =>
    d.spec?.replicas === replicas &&
    (d.status?.replicas ?? 0) === replicas &&
    (d.status?.availableReplicas ?? 0) === replicas;

/** A Rollout with no template of its own, referencing the Deployment `name`. */
export function referencingRollout(
  name: string,
  spec: Partial<RolloutSpec>,
  ref: Partial<WorkloadRef> = {},
): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas: 1,
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name, ...ref },
      strategy: { blueGreen: { activeService: name } },
      ...spec,
    },
  };
}

/** (desired, current, updated, ready, available), as Argo's ExpectReplicaCounts. */
export const counts = (r: Rollout): number[] => [
  r.spec.replicas ?? 1,
  r.status?.replicas ?? 0,
  r.status?.updatedReplicas ?? 0,
  r.status?.readyReplicas ?? 0,
  r.status?.availableReplicas ?? 0,
];
