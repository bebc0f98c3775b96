/**
 * What a Rollout's metric series say, from the Rollout alone, as Argo Rollouts' collector says it
 * (controller/metrics/rollouts.go), so Argo's dashboards and alerts read ours unchanged:
 * `rollout_info`'s phase in Argo's metric vocabulary (not status.phase), its strategy and
 * traffic router, and the replica figures. Pure.
 */
import { ARGO_GATEWAY_API_PLUGIN, ConditionType, Reason } from '../api/index.ts';
import type { Rollout, RolloutStatus, RouterKey } from '../api/index.ts';
import { setWeightAt, strategyKeyOf } from '../rollout/index.ts';

/** Argo's `rollout_info` phases: where the last reconciliation left the Rollout. */
export const ArgoMetricPhase = {
  Completed: 'Completed',
  Progressing: 'Progressing',
  Paused: 'Paused',
  Timeout: 'Timeout',
  Error: 'Error',
  Abort: 'Abort',
  InvalidSpec: 'InvalidSpec',
} as const;
export type ArgoMetricPhase = (typeof ArgoMetricPhase)[keyof typeof ArgoMetricPhase];

/** The Progressing condition's reason → Argo's phase; any other reason is Progressing. */
const BY_PROGRESSING_REASON: ReadonlyMap<string, ArgoMetricPhase> = new Map([
  [Reason.NewReplicaSetAvailable, ArgoMetricPhase.Completed],
  [Reason.RolloutPaused, ArgoMetricPhase.Paused],
  [Reason.ReplicaSetCreateError, ArgoMetricPhase.Error],
  // Ours: a ReplicaSet update the API server refused (Argo never sets this reason). Like a
  // refused create, nothing moves until the spec or what refused it changes.
  [Reason.ReconciliationError, ArgoMetricPhase.Error],
  [Reason.ProgressDeadlineExceeded, ArgoMetricPhase.Timeout],
  [Reason.RolloutAborted, ArgoMetricPhase.Abort],
]);

/** Argo's calculatePhase: an InvalidSpec condition wins, else the Progressing reason decides. */
export function argoMetricPhase(status: RolloutStatus | undefined): ArgoMetricPhase {
  const conditions = status?.conditions ?? [];
  // Argo removes the condition once the spec is valid again; a False one means the same.
  if (conditions.some((c) => c.type === ConditionType.InvalidSpec && c.status !== 'False')) {
    return ArgoMetricPhase.InvalidSpec;
  }
  const progressing = conditions.find((c) => c.type === ConditionType.Progressing);
  return BY_PROGRESSING_REASON.get(progressing?.reason ?? '') ?? ArgoMetricPhase.Progressing;
}

/** Argo's `traffic_router` values; Gateway API, a plugin in Argo (""), is built in here. */
const ROUTER_LABELS: Readonly<Record<RouterKey, string>> = {
  gatewayAPI: 'GatewayAPI',
  istio: 'Istio',
  nginx: 'Nginx',
  smi: 'SMI',
};
/** Argo's precedence when a spec names several (the last one it checks wins). */
const ROUTER_PRECEDENCE: readonly RouterKey[] = ['smi', 'nginx', 'istio', 'gatewayAPI'];

/** `traffic_router`: "" for a basic canary and for blue-green, as in Argo. */
export function trafficRouterLabel(rollout: Rollout): string {
  const strategy = rollout.spec.strategy;
  if (strategy?.blueGreen !== undefined) return '';
  const routing = strategy?.canary?.trafficRouting;
  if (routing === undefined) return '';
  const key = ROUTER_PRECEDENCE.find((k) => routing[k] !== undefined);
  if (key !== undefined) return ROUTER_LABELS[key];
  return routing.plugins?.[ARGO_GATEWAY_API_PLUGIN] !== undefined ? ROUTER_LABELS.gatewayAPI : '';
}

/** The labels of a Rollout's `rollout_info` series (1). */
export interface RolloutInfoLabels {
  readonly namespace: string;
  readonly name: string;
  /** `canary`, `blueGreen`, or `none` (Argo's word when a spec has neither). */
  readonly strategy: string;
  readonly traffic_router: string;
  /** Argo's metric phase (argoMetricPhase). */
  readonly phase: ArgoMetricPhase;
  /** Ours: status.phase (Healthy, Progressing, Paused, Degraded), as `kubectl get` shows it. */
  readonly status_phase: string;
}

export function rolloutInfoLabels(rollout: Rollout): RolloutInfoLabels {
  return {
    namespace: rollout.metadata.namespace ?? '',
    name: rollout.metadata.name ?? '',
    strategy: strategyKeyOf(rollout.spec.strategy) ?? 'none',
    traffic_router: trafficRouterLabel(rollout),
    phase: argoMetricPhase(rollout.status),
    status_phase: rollout.status?.phase ?? '',
  };
}

/** Argo's `rollout_info_replicas_*` values. */
export interface ReplicaFigures {
  readonly available: number;
  /** status.replicas − status.availableReplicas (pods of every ReplicaSet). */
  readonly unavailable: number;
  /** spec.replicas (default 1). */
  readonly desired: number;
  readonly updated: number;
}

export function replicaFigures(rollout: Rollout): ReplicaFigures {
  const s = rollout.status;
  const available = s?.availableReplicas ?? 0;
  return {
    available,
    unavailable: (s?.replicas ?? 0) - available,
    desired: rollout.spec.replicas ?? 1,
    updated: s?.updatedReplicas ?? 0,
  };
}

/** Where a canary update stands: our stepwise_rollout_canary_weight and _step_index. */
export interface CanaryProgress {
  /** The canary's traffic weight as the router holds it, else the steps' weight (0 aborted). */
  readonly weight: number;
  /** status.currentStepIndex (the steps' length once all are done). */
  readonly step: number;
}

/**
 * Undefined unless a canary update is in flight (a current revision that is not the stable one):
 * a settled Rollout has no progress series, so 10,000 settled Rollouts cost none; an aborted
 * update keeps them (weight 0) until it is retried or reverted.
 */
export function canaryProgress(rollout: Rollout): CanaryProgress | undefined {
  const canary = rollout.spec.strategy?.canary;
  const s = rollout.status;
  if (canary === undefined || s === undefined) return undefined;
  if (s.currentPodHash === undefined || s.stableRS === undefined) return undefined;
  if (s.currentPodHash === s.stableRS) return undefined;
  const step = s.currentStepIndex ?? 0;
  const routed = s.canary?.weights?.canary.weight;
  const weight = routed ?? (s.abort === true ? 0 : setWeightAt(canary.steps ?? [], step));
  return { weight, step };
}
