/**
 * PURE: the list rows and the Rollout view from the objects the shared watches hold. Every
 * input passes through sanitised() once here, so no string from the cluster reaches the page
 * with a control character in it (and the page shows it as text in any case).
 */
import type { AnalysisRun } from '../../api/analysis.ts';
import type { Rollout } from '../../api/rollout.ts';
import { rolloutInfo, rolloutPhase } from '../../cli/render/info.ts';
import { toTime, type PodLike, type ReplicaSetLike } from '../../cli/render/objects.ts';
import { strategyView } from '../../cli/render/strategies/index.ts';
import { sanitised } from '../../cli/sanitise.ts';
import { metricCharts } from './charts.ts';
import { approvalAsk } from './approval-ask.ts';
import { needsMe } from './pauses.ts';
import { strategyPart } from './strategies.ts';
import type { ActionOffer, ConditionView, DetailView, EventView, RowView } from './wire.ts';

export const keyOf = (ro: Rollout): string =>
  `${ro.metadata.namespace ?? ''}/${ro.metadata.name ?? ''}`;

export function rowOf(raw: Rollout): RowView {
  const ro = sanitised(raw);
  const { phase, message } = rolloutPhase(ro);
  const view = strategyView(ro);
  const cells = view.listCells(ro);
  const why = needsMe(ro);
  const approval = approvalAsk(ro);
  return {
    key: keyOf(ro),
    namespace: ro.metadata.namespace ?? '',
    name: ro.metadata.name ?? '',
    phase,
    message,
    strategy: view.name,
    step: cells.step,
    setWeight: cells.setWeight,
    images: (ro.spec.template?.spec?.containers ?? []).flatMap((c) => c.image ?? []),
    ...(why !== undefined ? { needsMe: why } : {}),
    ...(approval !== undefined ? { approval } : {}),
  };
}

/** Rows sorted: people wanted first, then by namespace and name. */
export function rowsOf(rollouts: readonly Rollout[]): RowView[] {
  return rollouts
    .map(rowOf)
    .sort(
      (a, b) =>
        Number(b.needsMe !== undefined) - Number(a.needsMe !== undefined) ||
        a.namespace.localeCompare(b.namespace) ||
        a.name.localeCompare(b.name),
    );
}

/** A core/v1 Event as the API server serves events.k8s.io ones too. */
export interface EventLike {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly lastTimestamp?: string | null;
  readonly eventTime?: string | null;
  readonly series?: { readonly count?: number; readonly lastObservedTime?: string } | null;
  readonly metadata?: { readonly creationTimestamp?: string };
  readonly involvedObject?: {
    readonly kind?: string;
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
  };
}

export const MAX_EVENTS = 20;
export const MAX_CHARTED_RUNS = 3;

/** The Rollout's Events, newest first, at most MAX_EVENTS. */
export function eventsOf(ro: Rollout, events: readonly EventLike[]): EventView[] {
  const uid = ro.metadata.uid;
  return events
    .filter((e) => {
      const o = e.involvedObject;
      return (
        o?.kind === 'Rollout' &&
        o.name === ro.metadata.name &&
        o.namespace === ro.metadata.namespace &&
        (uid === undefined || o.uid === undefined || o.uid === uid)
      );
    })
    .map((raw): EventView => {
      const e = sanitised(raw);
      const at =
        toTime(e.series?.lastObservedTime ?? undefined) ??
        toTime(e.lastTimestamp ?? undefined) ??
        toTime(e.eventTime ?? undefined) ??
        toTime(e.metadata?.creationTimestamp);
      return {
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        at,
        count: e.series?.count ?? e.count ?? 1,
      };
    })
    .sort((a, b) => (b.at ?? 0) - (a.at ?? 0))
    .slice(0, MAX_EVENTS);
}

export interface DetailInputs {
  readonly rollout: Rollout;
  readonly replicaSets: readonly ReplicaSetLike[];
  readonly pods: readonly PodLike[];
  readonly analysisRuns: readonly AnalysisRun[];
  readonly events: readonly EventLike[];
  readonly actions: readonly ActionOffer[];
  readonly now: number;
}

export function detailOf(i: DetailInputs): DetailView {
  const ro = sanitised(i.rollout);
  const rs = sanitised(
    i.replicaSets.filter((r) => r.metadata?.namespace === ro.metadata.namespace),
  );
  const pods = sanitised(i.pods.filter((p) => p.metadata?.namespace === ro.metadata.namespace));
  const runs = sanitised(
    i.analysisRuns.filter((r) => r.metadata.namespace === ro.metadata.namespace),
  );
  const info = rolloutInfo(ro, rs, pods, i.now, runs);
  const conditions = (ro.status?.conditions ?? []).map((c): ConditionView => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? '',
    message: c.message ?? '',
    lastTransitionTime: c.lastTransitionTime ?? '',
  }));
  const why = needsMe(ro);
  const uid = ro.metadata.uid;
  const charted = runs
    .filter((r) => r.metadata.ownerReferences?.some((o) => o.kind === 'Rollout' && o.uid === uid))
    .sort(
      (a, b) =>
        (toTime(b.metadata.creationTimestamp) ?? 0) - (toTime(a.metadata.creationTimestamp) ?? 0),
    )
    .slice(0, MAX_CHARTED_RUNS);
  return {
    info,
    strategy: strategyPart(ro, info, rs),
    conditions,
    events: eventsOf(ro, i.events),
    analysis: charted.flatMap(metricCharts),
    actions: i.actions,
    ...(why !== undefined ? { needsMe: why } : {}),
  };
}
