/**
 * The shell of src/rollout/release/workload.ts: reads the Deployment a deleting Rollout's
 * workloadRef names (one GET, only for a deletion our finalizer holds: deletions are rare and
 * nothing else watches Deployments for it), and makes the steps in order, each a server-side
 * apply under stepwise-controller. A failed step throws: the pass is retried with backoff and
 * the finalizer stays until the Deployment has its replicas back.
 */
import {
  API_VERSION,
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  RESTORE_WORKLOAD_FINALIZER,
  ROLLOUT_KIND,
} from '../api/index.ts';
import type { Rollout } from '../api/index.ts';
import { Resources } from '../kube/index.ts';
import type { Clock, KubeApi, KubeObject, Logger } from '../kube/index.ts';
import { deploymentRefOf, needsDeployment, planWorkloadRestore } from '../rollout/index.ts';
import type { DeploymentView, WorkloadStep } from '../rollout/index.ts';
import type { EventSink } from './rollout-reconciler.ts';

export interface WorkloadRestoreDeps {
  readonly api: KubeApi;
  readonly clock: Clock;
  readonly events: EventSink;
  readonly log: Logger;
}

/**
 * Runs the restore's steps for `rollout`. `stop` when the pass ends here: the Rollout is being
 * deleted (its usual plan must not run), or its finalizer changed (the watch event of that
 * write brings the next pass, with a cache that shows it); `requeueAfterMs` while a deletion
 * waits for the Deployment's pods.
 */
export async function restoreWorkload(
  rollout: Rollout,
  deps: WorkloadRestoreDeps,
): Promise<{ readonly stop: boolean; readonly requeueAfterMs?: number }> {
  const deployment = needsDeployment(rollout) ? await readDeployment(rollout, deps.api) : undefined;
  const plan = planWorkloadRestore(rollout, deployment, deps.clock.now());
  for (const step of plan.steps) await run(rollout, step, deps);
  const stop = plan.deleting || plan.steps.length > 0;
  return plan.requeueAfterMs === undefined
    ? { stop }
    : { stop, requeueAfterMs: plan.requeueAfterMs };
}

async function readDeployment(rollout: Rollout, api: KubeApi): Promise<DeploymentView | undefined> {
  const name = deploymentRefOf(rollout) ?? '';
  return api.get<KubeObject & DeploymentView>(
    Resources.Deployment,
    rollout.metadata.namespace ?? '',
    name,
  );
}

/**
 * The apply (under stepwise-controller) that puts our finalizer on, or takes it off: our entry
 * of the finalizers set, alone. An apply without it takes it off; other managers' entries, and
 * a GitOps apply of the Rollout, never touch ours (metadata.finalizers is a set under
 * server-side apply). The resourceVersion makes it conditional, never a create.
 */
export function finalizerApply(rollout: Rollout, on: boolean): KubeObject & { metadata: object } {
  const { name, namespace, resourceVersion } = rollout.metadata;
  return {
    apiVersion: API_VERSION,
    kind: ROLLOUT_KIND,
    metadata: {
      name,
      namespace,
      resourceVersion,
      ...(on ? { finalizers: [RESTORE_WORKLOAD_FINALIZER] } : {}),
    },
  };
}

async function run(rollout: Rollout, step: WorkloadStep, deps: WorkloadRestoreDeps): Promise<void> {
  const { name, namespace } = rollout.metadata;
  const key = `${namespace}/${name}`;
  switch (step.kind) {
    case 'addFinalizer':
    case 'removeFinalizer': {
      await deps.api.apply(finalizerApply(rollout, step.kind === 'addFinalizer'));
      deps.log.info(step.kind === 'addFinalizer' ? 'finalizer added' : 'finalizer removed', {
        rollout: key,
        finalizer: RESTORE_WORKLOAD_FINALIZER,
      });
      return;
    }
    case 'scaleDeployment':
      // Forced: the replicas are ours again (the scale-down took them from Git's manager).
      await deps.api.apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: step.name,
          namespace,
          ...(step.record === undefined
            ? {}
            : { annotations: { [PRE_MIGRATION_REPLICAS_ANNOTATION]: step.record } }),
        },
        spec: { replicas: step.replicas },
      } as KubeObject & { metadata: object });
      deps.log.info('restored the Deployment of a deleted Rollout', {
        rollout: key,
        deployment: step.name,
        replicas: step.replicas,
      });
      return;
    case 'event':
      deps.events.event(rollout, step.type, step.reason, step.message);
      return;
  }
}
