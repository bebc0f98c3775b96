/**
 * What a Rollout whose `spec.workloadRef` names a Deployment owes that Deployment when it is
 * deleted (argo-rollouts#3855): the replicas it had before the migration scaled it down,
 * recorded on it in PRE_MIGRATION_REPLICAS_ANNOTATION, so removing Stepwise never leaves an app
 * at 0 pods. The deletion waits for that through our finalizer, which only such Rollouts carry:
 * - alive with a Deployment ref and no finalizer: add it; alive without one but ours still on
 *   (the ref was removed): take it off;
 * - deleting with our finalizer: scale the Deployment back when the annotation asks for other
 *   replicas, then take the finalizer off. A Deployment already gone, or one with nothing
 *   recorded (scaleDown: never), does not hold the deletion; a record that is not a replica
 *   count is reported and the Deployment left as it is, never guessed at.
 * Pure: the shell reads the Deployment only when `needsDeployment` says so.
 */
import {
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  Reason,
  RESTORE_WORKLOAD_FINALIZER,
} from '../api/index.ts';
import type { Rollout } from '../api/index.ts';

/** The Deployment as the restore reads it. */
export interface DeploymentView {
  readonly metadata?: {
    readonly name?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly replicas?: number };
}

export type WorkloadStep =
  | { readonly kind: 'addFinalizer' }
  | { readonly kind: 'removeFinalizer' }
  | { readonly kind: 'scaleDeployment'; readonly name: string; readonly replicas: number }
  | {
      readonly kind: 'event';
      readonly type: 'Normal' | 'Warning';
      readonly reason: Reason;
      readonly message: string;
    };

/** The Deployment `spec.workloadRef` names, read defensively from the raw object (the field
 *  may be absent from our types and schema); undefined for any other kind or none. */
export function deploymentRefOf(rollout: Pick<Rollout, 'spec'>): string | undefined {
  const ref: unknown = (rollout.spec as { readonly workloadRef?: unknown } | undefined)
    ?.workloadRef;
  if (ref === null || typeof ref !== 'object') return undefined;
  const { kind, name, apiVersion } = ref as Record<string, unknown>;
  if (kind !== 'Deployment' || typeof name !== 'string' || name === '') return undefined;
  return apiVersion === undefined || apiVersion === 'apps/v1' ? name : undefined;
}

const deleting = (r: Pick<Rollout, 'metadata'>): boolean =>
  r.metadata.deletionTimestamp !== undefined && r.metadata.deletionTimestamp !== null;
const holdsOurs = (r: Pick<Rollout, 'metadata'>): boolean =>
  (r.metadata.finalizers ?? []).includes(RESTORE_WORKLOAD_FINALIZER);

/** Whether the restore needs to read the Deployment (a deletion our finalizer holds). */
export function needsDeployment(rollout: Pick<Rollout, 'metadata' | 'spec'>): boolean {
  return deleting(rollout) && holdsOurs(rollout) && deploymentRefOf(rollout) !== undefined;
}

export interface WorkloadPlan {
  readonly steps: readonly WorkloadStep[];
  /** A deleting Rollout: its usual plan must not run (nothing is scaled, created or routed
   *  for a Rollout on its way out), whether or not steps remain. */
  readonly deleting: boolean;
}

/**
 * The steps for `rollout`; `deployment` is what `needsDeployment` asked for (undefined: gone).
 * No steps when there is nothing to do, so an unchanged Rollout plans no write.
 */
export function planWorkloadRestore(
  rollout: Pick<Rollout, 'metadata' | 'spec'>,
  deployment: DeploymentView | undefined,
): WorkloadPlan {
  const ref = deploymentRefOf(rollout);
  if (!deleting(rollout)) {
    if (ref !== undefined && !holdsOurs(rollout)) return alive([{ kind: 'addFinalizer' }]);
    if (ref === undefined && holdsOurs(rollout)) return alive([{ kind: 'removeFinalizer' }]);
    return alive([]);
  }
  if (!holdsOurs(rollout)) return { steps: [], deleting: true };
  const release: WorkloadStep = { kind: 'removeFinalizer' };
  if (ref === undefined || deployment === undefined) return { steps: [release], deleting: true };
  const recorded = deployment.metadata?.annotations?.[PRE_MIGRATION_REPLICAS_ANNOTATION];
  if (recorded === undefined) return { steps: [release], deleting: true };
  const replicas = replicaCount(recorded);
  if (replicas === undefined) {
    const message = `Deployment "${ref}" not restored: its ${PRE_MIGRATION_REPLICAS_ANNOTATION} annotation must be a replica count, got "${recorded}"; the Deployment is left as it is`;
    return {
      steps: [
        { kind: 'event', type: 'Warning', reason: Reason.WorkloadNotRestored, message },
        release,
      ],
      deleting: true,
    };
  }
  // Kubernetes' default for an unset spec.replicas.
  if ((deployment.spec?.replicas ?? 1) === replicas) return { steps: [release], deleting: true };
  return {
    steps: [
      { kind: 'scaleDeployment', name: ref, replicas },
      {
        kind: 'event',
        type: 'Normal',
        reason: Reason.WorkloadRestored,
        message: `Scaled Deployment "${ref}" back to ${replicas} replicas, as before the migration`,
      },
      release,
    ],
    deleting: true,
  };
}

const alive = (steps: readonly WorkloadStep[]): WorkloadPlan => ({ steps, deleting: false });

/** A replica count as Kubernetes takes it: a non-negative 32-bit integer, in decimal. */
function replicaCount(text: string): number | undefined {
  if (!/^(0|[1-9]\d{0,9})$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 2_147_483_647 ? n : undefined;
}
