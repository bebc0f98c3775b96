/**
 * `spec.workloadRef.scaleDown`: what the referenced Deployment's own replicas should be after this
 * pass, and the write that gets them there (server-side apply of `spec.replicas` and our
 * annotations, forced, so it wins over a GitOps manager's `replicas`).
 *
 * - never: the Deployment is left alone.
 * - onsuccess: to 0 once the Rollout is Healthy (whatever the strategy needed to get there:
 *   blue-green's post-promotion analysis included).
 * - progressively: while the Rollout comes up, the Deployment keeps `spec.replicas − ready pods
 *   of the Rollout` (never more than it had), so ready capacity across both never drops below
 *   `spec.replicas`; 0 once the Rollout is Healthy.
 *
 * The first scale-down records the Deployment's replica count (PRE_MIGRATION_REPLICAS_ANNOTATION)
 * so that handing it back can restore it. Draining it at Healthy also marks it migrated
 * (MIGRATED_ANNOTATION): from then on it is held at 0 in every revision, so a GitOps re-apply of
 * `replicas: 3` is scaled back (Argo's drain runs at revision 1 only: argo-rollouts#4935), and a
 * later dip in the Rollout's ready pods never starts the Deployment's pods again (#4321).
 */
import {
  MANAGED_BY_ANNOTATION,
  MIGRATED_ANNOTATION,
  Phase,
  PRE_MIGRATION_REPLICAS_ANNOTATION,
  Reason,
} from '../../api/index.ts';
import type { Deployment, ReplicaSet, Rollout, RolloutStatus } from '../../api/index.ts';
import { normal } from '../events.ts';
import type { Fragment } from '../order.ts';
import type { Write } from '../types.ts';
import { describe } from './resolve.ts';

export interface ScaleDownInput {
  /** The Rollout as stored (its workloadRef). */
  readonly rollout: Rollout;
  /** The referent as observed. */
  readonly deployment: Deployment;
  /** The Rollout's own ReplicaSets (their ready pods). */
  readonly replicaSets: readonly ReplicaSet[];
  /** The status the strategy planned for this pass. */
  readonly status: RolloutStatus;
}

export interface ScaleDownDecision {
  /** The Deployment's replicas after this pass (absent: left as it is). */
  readonly target?: number;
  /** The Deployment is (or is now marked) migrated: it must be at 0 for the Rollout to be
   *  Healthy. */
  readonly migrated: boolean;
  readonly fragment: Fragment;
}

const NOTHING: ScaleDownDecision = { migrated: false, fragment: {} };

export function scaleDownWorkload(i: ScaleDownInput): ScaleDownDecision {
  const ref = i.rollout.spec.workloadRef;
  const mode = ref?.scaleDown ?? 'never';
  if (ref?.kind !== 'Deployment' || mode === 'never') return NOTHING;
  const annotations = i.deployment.metadata?.annotations ?? {};
  const current = i.deployment.spec?.replicas ?? 1;
  const healthy = i.status.phase === Phase.Healthy;
  const migrated = annotations[MIGRATED_ANNOTATION] === 'true' || healthy;
  const target = migrated
    ? 0
    : mode === 'progressively'
      ? Math.min(current, Math.max(0, (i.rollout.spec.replicas ?? 1) - readyPods(i.replicaSets)))
      : undefined;
  if (target === undefined) return NOTHING;
  const markMigrated = migrated && annotations[MIGRATED_ANNOTATION] !== 'true';
  // At its target already, and nothing to record: no write.
  if (target === current && !markMigrated) return { target, migrated, fragment: {} };
  const want: Record<string, string> = {
    [MANAGED_BY_ANNOTATION]: i.rollout.metadata.name ?? '',
    // The count before our first scale-down, kept as first recorded (every apply carries it:
    // a server-side apply that leaves out a field we own removes it).
    [PRE_MIGRATION_REPLICAS_ANNOTATION]:
      annotations[PRE_MIGRATION_REPLICAS_ANNOTATION] ?? String(current),
    ...(migrated ? { [MIGRATED_ANNOTATION]: 'true' } : {}),
  };
  const body: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: i.deployment.metadata?.name,
      namespace: i.deployment.metadata?.namespace,
      annotations: want,
    },
    spec: { replicas: target } as Deployment['spec'],
  };
  const writes: Write[] = [{ kind: 'scaleWorkload', body }];
  if (target !== current) {
    const message = `Scaled down ${describe(ref)} from ${current} to ${target} (scaleDown: ${mode})`;
    writes.push(normal(Reason.WorkloadScaledDown, message));
  }
  return { target, migrated, fragment: { writes: { scaleDown: writes } } };
}

function readyPods(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets
    .filter((rs) => !rs.metadata?.deletionTimestamp)
    .reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);
}
