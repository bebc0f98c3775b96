/**
 * Whether Argo Rollouts' own controller is running beside us, judged from its leader-election
 * Lease (`argo-rollouts-controller-lock`, in its namespace) the way client-go's elector judges
 * it: held while the holder is set and a renewal was seen less than the lease duration ago, by
 * our clock (the holder's clock is not ours). Two controllers writing the same Rollout,
 * ReplicaSets and Services fight; while Argo's holds its Lease, in-place serving stands aside.
 * Pure.
 */

/** What the shell saw of Argo's Lease (absent from Observed: none, or not watched). */
export interface ArgoControllerLease {
  /** `namespace/name`, for the message. */
  readonly lease: string;
  /** `spec.holderIdentity`; empty or absent: released (Argo gives it up when it stops). */
  readonly holder?: string;
  /** When the shell last saw the Lease change (epoch ms, the shell's clock). */
  readonly renewSeenAt: number;
  /** `spec.leaseDurationSeconds`, in ms. */
  readonly durationMs: number;
}

export interface ArgoControllerRunning {
  readonly lease: string;
  readonly holder: string;
  /** Until when the Lease counts as held without another renewal (epoch ms). */
  readonly heldUntil: number;
}

export function argoControllerRunning(
  lease: ArgoControllerLease | undefined,
  now: number,
): ArgoControllerRunning | undefined {
  if (lease === undefined || lease.holder === undefined || lease.holder === '') return undefined;
  const heldUntil = lease.renewSeenAt + lease.durationMs;
  return now < heldUntil ? { lease: lease.lease, holder: lease.holder, heldUntil } : undefined;
}
