/**
 * The planner's contract: what the shell observed (from the informer caches, plus the time)
 * and the ordered writes it should make. Plain values only, no clients.
 */
import type { PodMetadataPatch } from './pod-metadata.ts';
import type { Refusal } from './progressing.ts';
import type { ObservedWorkload } from './workload-ref/index.ts';
import type { ArgoControllerLease } from './argo-controller.ts';
import type {
  ApprovalRecord,
  Deployment,
  AnalysisRun,
  AnalysisTemplate,
  Pod,
  ReplicaSet,
  Reason,
  Rollout,
  Person,
  RolloutApproval,
  RolloutApprovalStatus,
  RolloutStatus,
  Service,
  TrafficObservation,
  TrafficState,
} from '../api/index.ts';

export interface Observed {
  readonly rollout: Rollout;
  /** ReplicaSets whose controller owner is this Rollout. */
  readonly replicaSets: readonly ReplicaSet[];
  /** ReplicaSets of the Rollout's namespace that its selector matches and no Stepwise Rollout
   *  controls: what Argo Rollouts left running, orphaned or still Argo's (adoption/). Absent:
   *  none. */
  readonly unclaimedReplicaSets?: readonly ReplicaSet[];
  /** Pods of those ReplicaSets (used for restartAt and ephemeral metadata). */
  readonly pods: readonly Pod[];
  /** The Services the Rollout names (servicesOf: canary and stable), by name; absent when not
   *  found. */
  readonly services: ReadonlyMap<string, Service>;
  /** AnalysisRuns whose controller owner is this Rollout (absent: none). */
  readonly analysisRuns?: readonly AnalysisRun[];
  /** AnalysisTemplates of the Rollout's namespace, and ClusterAnalysisTemplates, by name. */
  readonly analysisTemplates?: ReadonlyMap<string, AnalysisTemplate>;
  readonly clusterAnalysisTemplates?: ReadonlyMap<string, AnalysisTemplate>;
  /** RolloutApprovals naming this Rollout (absent: none). */
  readonly approvals?: readonly RolloutApproval[];
  /** The cluster-wide mapping of people to their identities (--approval-people; absent: none). */
  readonly approvalPeople?: readonly Person[];
  /** The traffic router's reading of its objects (only with trafficRouting). */
  readonly traffic?: TrafficObservation;
  /** The object `spec.workloadRef` names, as the cache holds it (absent `object`: not found;
   *  absent altogether: the Rollout has no workloadRef, or the shell did not read it). */
  readonly workload?: ObservedWorkload;
  /** The controller serves argoproj.io in place (`--api-group=argoproj.io`): a status Argo's
   *  controller wrote is taken over once (in-place/). */
  readonly inPlaceArgo?: boolean;
  /** With inPlaceArgo: Argo's own controller's leader Lease as last seen (absent: none, or not
   *  watched). While held, in-place serving stands aside. */
  readonly argoController?: ArgoControllerLease;
  /** Epoch milliseconds, read once by the shell. */
  readonly now: number;
  /** A ReplicaSet write of the last plan that the API server refused (the shell plans again
   *  with it, so the Rollout says why it cannot move). */
  readonly refusal?: Refusal;
}

export type Write =
  /** Server-side apply of a whole ReplicaSet we own (create or update). */
  | { readonly kind: 'applyReplicaSet'; readonly body: ReplicaSet; readonly reason: string }
  | { readonly kind: 'deleteReplicaSet'; readonly name: string }
  /** Server-side apply of our controller reference (and revision) onto an orphaned ReplicaSet,
   *  with its resourceVersion as precondition; its pods are untouched. */
  | { readonly kind: 'adoptReplicaSet'; readonly body: ReplicaSet }
  /** Server-side apply of the fields we own on the user's Service (its selector's hash). */
  | { readonly kind: 'applyService'; readonly body: Service }
  /** Bring the traffic router's objects to this state (the shell's router builds the bodies). */
  | {
      readonly kind: 'setTraffic';
      readonly state: TrafficState;
      /** Pod-template hashes of canary and stable after this pass (DestinationRule subsets). */
      readonly canaryHash: string;
      readonly stableHash: string;
    }
  /** Server-side apply, forced, of what we own on a workloadRef's Deployment: `spec.replicas`
   *  and our annotations (the scale-down). */
  | { readonly kind: 'scaleWorkload'; readonly body: Deployment }
  /** Eviction (PDB-aware delete) of a pod, for restartAt. */
  | { readonly kind: 'evictPod'; readonly name: string }
  /** Merge patch of a pod's role labels/annotations (canary/stableMetadata); null removes. */
  | { readonly kind: 'patchPodMetadata'; readonly name: string; readonly patch: PodMetadataPatch }
  /** Server-side apply of an AnalysisRun we create (idempotent: the same body each time). */
  | { readonly kind: 'applyAnalysisRun'; readonly body: AnalysisRun }
  /** Merge patch `spec.terminate: true` on a run that is no longer current. */
  | { readonly kind: 'terminateAnalysisRun'; readonly name: string }
  | { readonly kind: 'deleteAnalysisRun'; readonly name: string }
  /** The answer to a RolloutApproval (Recorded or Refused), on its status subresource. */
  | { readonly kind: 'markApproval'; readonly name: string; readonly status: RolloutApprovalStatus }
  /** Server-side apply of the whole status we own, through the status subresource. */
  | { readonly kind: 'applyStatus'; readonly status: RolloutStatus }
  | {
      readonly kind: 'event';
      readonly type: 'Normal' | 'Warning';
      readonly reason: Reason;
      readonly message: string;
      /** The step and revision an approval event is about (notifications need them). */
      readonly subject?: EventSubject;
    };

export type EventWrite = Extract<Write, { readonly kind: 'event' }>;

export interface EventSubject {
  readonly step: number;
  readonly revision: string;
  /** The decision an ApprovalRecorded/ApprovalRejected event reports. */
  readonly record?: ApprovalRecord;
  /** ApprovalRequested: when the wait began (epoch ms); its links are bound to it. */
  readonly waitStart?: number;
}

export interface Plan {
  readonly writes: readonly Write[];
  /** When a timer matters (pause expiry, scale-down delay, progress deadline). */
  readonly requeueAfterMs?: number;
}
