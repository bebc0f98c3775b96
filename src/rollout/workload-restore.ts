/**
 * What a Rollout whose `spec.workloadRef` names a Deployment owes that Deployment when it is
 * deleted (argo-rollouts#3855): the replicas it had before the migration scaled it down,
 * recorded on it in PRE_MIGRATION_REPLICAS_ANNOTATION, so removing Stepwise never leaves an app
 * at 0 pods. The deletion waits for that through our finalizer, which only such Rollouts carry:
 * - alive with a Deployment ref and no finalizer: add it; alive without one but ours still on
 *   (the ref was removed): take it off;
 * - deleting with our finalizer: scale the Deployment back when the annotation asks for other
 *   replicas, and take the finalizer off once that many of its pods are available, so the
 *   Rollout's pods (which the garbage collector removes with it) are not gone first. A
 *   Deployment whose pods are not available by the Rollout's progress deadline, counted from
 *   the deletion, is reported and lets the deletion go (it is scaled, just not ready). A
 *   Deployment already gone, or one with nothing recorded (scaleDown: never), does not hold
 *   the deletion; a record that is not a replica count is reported and the Deployment left as
 *   it is, never guessed at.
 * Pure (`now` from the shell): the shell reads the Deployment only when `needsDeployment` says.
 */
import {
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  Reason,
  RESTORE_WORKLOAD_FINALIZER,
} from '../api/index.ts';
import type { Rollout } from '../api/index.ts';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS } from './progressing.ts';

/** The Deployment as the restore reads it. */
export interface DeploymentView {
  readonly metadata?: {
    readonly name?: string;
    readonly generation?: number;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly replicas?: number };
  readonly status?: { readonly observedGeneration?: number; readonly availableReplicas?: number };
}

export type WorkloadStep =
  | { readonly kind: 'addFinalizer' }
  | { readonly kind: 'removeFinalizer' }
  | {
      readonly kind: 'scaleDeployment';
      readonly name: string;
      readonly replicas: number;
      /** The record to keep while the deletion waits for the pods (our apply that leaves it
       *  out removes it, as the hand-back must); absent: handed back without it. */
      readonly record?: string;
    }
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
  /** Waiting for the Deployment's pods: look again then, at the latest (its changes also wake
   *  the Rollout where Deployments are watched). */
  readonly requeueAfterMs?: number;
}

/** How often a deletion waiting for the Deployment's pods looks again. */
const AVAILABILITY_POLL_MS = 1_000;

/**
 * The steps for `rollout`; `deployment` is what `needsDeployment` asked for (undefined: gone).
 * No steps when there is nothing to do, so an unchanged Rollout plans no write.
 */
export function planWorkloadRestore(
  rollout: Pick<Rollout, 'metadata' | 'spec'>,
  deployment: DeploymentView | undefined,
  now: number,
): WorkloadPlan {
  const ref = deploymentRefOf(rollout);
  if (!deleting(rollout)) {
    if (ref !== undefined && !holdsOurs(rollout)) return alive([{ kind: 'addFinalizer' }]);
    if (ref === undefined && holdsOurs(rollout)) return alive([{ kind: 'removeFinalizer' }]);
    return alive([]);
  }
  if (!holdsOurs(rollout)) return gone([]);
  const release: WorkloadStep = { kind: 'removeFinalizer' };
  if (ref === undefined || deployment === undefined) return gone([release]);
  const recorded = deployment.metadata?.annotations?.[PRE_MIGRATION_REPLICAS_ANNOTATION];
  if (recorded === undefined) return gone([release]);
  const replicas = replicaCount(recorded);
  if (replicas === undefined) {
    const message = `Deployment "${ref}" not restored: its ${PRE_MIGRATION_REPLICAS_ANNOTATION} annotation must be a replica count, got "${recorded}"; the Deployment is left as it is`;
    return gone([warning(message), release]);
  }
  // Handed back: its replicas, and none of our annotations (the record included).
  const handBack: WorkloadStep = { kind: 'scaleDeployment', name: ref, replicas };
  // Kubernetes' default for an unset spec.replicas.
  if ((deployment.spec?.replicas ?? 1) !== replicas) {
    const message = `Scaled Deployment "${ref}" back to ${replicas} replicas, as before the migration`;
    const restored: WorkloadStep = {
      kind: 'event',
      type: 'Normal',
      reason: Reason.WorkloadRestored,
      message,
    };
    // Nothing to wait for at 0; else the next pass (reading the record again) sees its pods.
    if (replicas === 0) return gone([handBack, restored, release]);
    return waiting([{ ...handBack, record: recorded }, restored], AVAILABILITY_POLL_MS);
  }
  const available = deployment.status?.availableReplicas ?? 0;
  const seen =
    (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
  if (seen && available >= replicas) return gone([handBack, release]);
  const deadline =
    deletedAt(rollout) +
    (rollout.spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS) * 1000;
  if (now >= deadline) {
    const message = `Deployment "${ref}" has ${available} of ${replicas} pods available ${Math.round((now - deletedAt(rollout)) / 1000)}s after the Rollout's deletion (progressDeadlineSeconds): the deletion goes on`;
    return gone([warning(message), handBack, release]);
  }
  return waiting([], Math.min(AVAILABILITY_POLL_MS, deadline - now));
}

const gone = (steps: readonly WorkloadStep[]): WorkloadPlan => ({ steps, deleting: true });
const waiting = (steps: readonly WorkloadStep[], requeueAfterMs: number): WorkloadPlan => ({
  steps,
  deleting: true,
  requeueAfterMs,
});
const warning = (message: string): WorkloadStep => ({
  kind: 'event',
  type: 'Warning',
  reason: Reason.WorkloadNotRestored,
  message,
});

/** When the deletion was asked for (deletionTimestamp, RFC 3339; a Date from typed clients). */
function deletedAt(rollout: Pick<Rollout, 'metadata'>): number {
  const at: unknown = rollout.metadata.deletionTimestamp;
  const ms = at instanceof Date ? at.getTime() : Date.parse(String(at));
  return Number.isNaN(ms) ? 0 : ms;
}

const alive = (steps: readonly WorkloadStep[]): WorkloadPlan => ({ steps, deleting: false });

/** A replica count as Kubernetes takes it: a non-negative 32-bit integer, in decimal. */
function replicaCount(text: string): number | undefined {
  if (!/^(0|[1-9]\d{0,9})$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 2_147_483_647 ? n : undefined;
}
