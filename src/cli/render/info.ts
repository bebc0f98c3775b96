/**
 * PURE: what the plugin shows about a Rollout, derived from the Rollout, its ReplicaSets and
 * their Pods (plain objects in, plain objects out). Phase rules follow Argo Rollouts' client
 * side (`GetRolloutPhase`): status.phase is trusted only once the spec generation is observed.
 */
import type { AnalysisRun } from '../../api/analysis.ts';
import { analysisRunInfo, type AnalysisRunInfo } from './analysis.ts';
import type { Rollout } from '../../api/rollout.ts';
import { hashOf } from '../../rollout/index.ts';
import { REVISION_ANNOTATION, SCALE_DOWN_DEADLINE_ANNOTATION } from '../../api/keys.ts';
import type { PodLike, ReplicaSetLike, WorkloadLike } from './objects.ts';
import { toTime } from './objects.ts';
import { podStatus, type PodStatus } from './pod.ts';
import type { IconHealth } from './icons.ts';
import {
  pendingApproval,
  pendingText,
  recordedApprovals,
  recordText,
  recordWhere,
} from '../approvals.ts';
import { sanitised, type Sanitised } from '../sanitise.ts';
import { actualWeight as canaryActualWeight } from './strategies/canary.ts';
import { strategyView, type ReplicaSetRef, type StrategyLine } from './strategies/index.ts';

export type Health = IconHealth;
export type RolloutPhase = 'Healthy' | 'Progressing' | 'Paused' | 'Degraded';

export const WAITING_FOR_GENERATION = 'waiting for rollout spec update to be observed';
export const WAITING_FOR_UNPAUSE = 'waiting for rollout to unpause';

export interface PhaseInfo {
  phase: RolloutPhase;
  message: string;
}

/** The phase of a sanitised Rollout: its message is safe to print (statusLine takes only these). */
export const displayPhase = (ro: Sanitised<Rollout>): Sanitised<PhaseInfo> =>
  rolloutPhase(ro) as Sanitised<PhaseInfo>;

/** The phase to show and act on: status.phase only when it describes the current spec. */
export function rolloutPhase(ro: Rollout): PhaseInfo {
  const st = ro.status;
  const generation = ro.metadata.generation;
  if (
    st?.observedGeneration === undefined ||
    (generation !== undefined && st.observedGeneration !== String(generation))
  ) {
    return { phase: 'Progressing', message: WAITING_FOR_GENERATION };
  }
  // A promote cleared the pause conditions and the controller has not yet written a new phase.
  // Only while it still says Paused: a blue-green keeps controllerPause through the switch and
  // post-promotion analysis (Argo's completed BlueGreenPause), with phases of their own.
  if (st.controllerPause && !st.pauseConditions?.length && st.phase === 'Paused') {
    return { phase: 'Progressing', message: WAITING_FOR_UNPAUSE };
  }
  return { phase: st.phase ?? 'Progressing', message: st.message ?? '' };
}

export { isFullyPromoted, setWeight, stepText, stepsOf } from './strategies/canary.ts';

/** The weight actually served (canary): the router's weight, else the canary's share of pods. */
export const actualWeight = (ro: Rollout, replicaSets: readonly ReplicaSetLike[]): number =>
  canaryActualWeight(ro, replicaSets.map(replicaSetRef));

const replicaSetRef = (rs: ReplicaSetLike): ReplicaSetRef => ({
  name: rs.metadata?.name ?? '',
  hash: hashOf(rs),
  revision: revisionOf(rs),
  available: rs.status?.availableReplicas ?? 0,
});

export interface PodInfo {
  name: string;
  status: PodStatus;
  ready: number;
  containers: number;
  restarts: number;
  created: number | undefined;
}

export interface ReplicaSetInfo {
  name: string;
  hash: string | undefined;
  revision: number | undefined;
  health: Health;
  tags: string[];
  desired: number;
  available: number;
  created: number | undefined;
  /** Seconds left before an old ReplicaSet is scaled down; 0 once passed. */
  scaleDownIn: number | undefined;
  images: string[];
  pods: PodInfo[];
}

export interface RevisionInfo {
  revision: number | undefined;
  replicaSets: ReplicaSetInfo[];
  /** The Rollout's AnalysisRuns for this revision, newest first. */
  analysisRuns: AnalysisRunInfo[];
}

export interface ImageInfo {
  image: string;
  tags: string[];
}

export interface RolloutInfo {
  name: string;
  namespace: string;
  phase: RolloutPhase;
  message: string;
  /** `Canary`, `BlueGreen`: as the strategy's view names it. */
  strategy: string;
  /** The strategy's own lines under `Strategy:` (strategies/*.ts). */
  strategyLines: StrategyLine[];
  images: ImageInfo[];
  replicas: { desired: number; current: number; updated: number; ready: number; available: number };
  created: number | undefined;
  revisions: RevisionInfo[];
  /** The approval the rollout waits for, as one line; undefined when not waiting. */
  approval?: string;
  /** Decisions on record for the current revision, one line each. */
  approvals: string[];
  /** The workload spec.workloadRef names, one line (absent: the template is inline). */
  workload?: string;
}

/** `Deployment web, replicas 0 (current 0, ready 0), scaleDown onsuccess`; `(not found)`. */
export function workloadLine(
  ro: Sanitised<Rollout>,
  obj: Sanitised<WorkloadLike> | undefined,
): string | undefined {
  const ref = ro.spec.workloadRef;
  if (ref === undefined) return undefined;
  const what = `${ref.kind} ${ref.name}`;
  if (obj === undefined) return `${what} (not found)`;
  const scaleDown = ref.kind === 'Deployment' ? `, scaleDown ${ref.scaleDown ?? 'never'}` : '';
  if (ref.kind !== 'Deployment') return `${what}${scaleDown}`;
  const st = obj.status ?? {};
  return `${what}, replicas ${obj.spec?.replicas ?? 1} (current ${st.replicas ?? 0}, ready ${st.readyReplicas ?? 0})${scaleDown}`;
}

const ownedBy = (
  refs: readonly { uid: string; kind?: string; name?: string }[] | undefined,
  owner: { uid?: string | undefined; kind: string; name: string | undefined },
): boolean =>
  (refs ?? []).some((r) =>
    owner.uid !== undefined ? r.uid === owner.uid : r.kind === owner.kind && r.name === owner.name,
  );

function replicaSetHealth(rs: ReplicaSetLike): Health {
  const desired = rs.spec?.replicas ?? 1;
  const current = rs.status?.replicas ?? 0;
  if (desired === 0) return current > 0 ? 'Progressing' : 'ScaledDown';
  return (rs.status?.availableReplicas ?? 0) >= desired ? 'Healthy' : 'Progressing';
}

function podInfo(pod: PodLike): PodInfo {
  const statuses = pod.status?.containerStatuses ?? [];
  return {
    name: pod.metadata?.name ?? '',
    status: podStatus(pod),
    ready: statuses.filter((c) => c.ready).length,
    containers: pod.spec?.containers?.length ?? statuses.length,
    restarts: statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0),
    created: toTime(pod.metadata?.creationTimestamp),
  };
}

function revisionOf(rs: ReplicaSetLike): number | undefined {
  const raw = rs.metadata?.annotations?.[REVISION_ANNOTATION];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) ? n : undefined;
}

const byNewest = (a: ReplicaSetInfo, b: ReplicaSetInfo): number =>
  (b.revision ?? -1) - (a.revision ?? -1) || (b.created ?? 0) - (a.created ?? 0);

const NO_RUNS = sanitised<readonly AnalysisRun[]>([]);

/** Everything `get rollout` shows, from the objects as read (and sanitised). `now` is in ms. */
export function rolloutInfo(
  ro: Sanitised<Rollout>,
  allReplicaSets: Sanitised<readonly ReplicaSetLike[]>,
  allPods: Sanitised<readonly PodLike[]>,
  now: number,
  allRuns: Sanitised<readonly AnalysisRun[]> = NO_RUNS,
  workload?: Sanitised<WorkloadLike>,
): RolloutInfo {
  const st = ro.status ?? {};
  const view = strategyView(ro);
  const owner = { uid: ro.metadata.uid, kind: 'Rollout', name: ro.metadata.name };
  const replicaSets = allReplicaSets.filter((rs) => ownedBy(rs.metadata?.ownerReferences, owner));

  const infos = replicaSets.map((rs): ReplicaSetInfo => {
    const hash = hashOf(rs);
    const tags = view.tags(ro, hash);
    const rsOwner = { uid: rs.metadata?.uid, kind: 'ReplicaSet', name: rs.metadata?.name };
    const pods = allPods
      .filter((p) =>
        p.metadata?.ownerReferences?.length
          ? ownedBy(p.metadata.ownerReferences, rsOwner)
          : hash !== undefined && hashOf(p) === hash,
      )
      .map(podInfo)
      .sort((a, b) => a.name.localeCompare(b.name));
    const deadline = toTime(rs.metadata?.annotations?.[SCALE_DOWN_DEADLINE_ANNOTATION]);
    return {
      name: rs.metadata?.name ?? '',
      hash,
      revision: revisionOf(rs),
      health: replicaSetHealth(rs),
      tags,
      desired: rs.spec?.replicas ?? 1,
      available: rs.status?.availableReplicas ?? 0,
      created: toTime(rs.metadata?.creationTimestamp),
      scaleDownIn:
        deadline === undefined || (rs.spec?.replicas ?? 1) === 0
          ? undefined
          : Math.max(0, Math.ceil((deadline - now) / 1000)),
      images: (rs.spec?.template?.spec?.containers ?? []).flatMap((c) => c.image ?? []),
      pods,
    };
  });
  infos.sort(byNewest);

  const revisions: RevisionInfo[] = [];
  for (const rs of infos) {
    const last = revisions.at(-1);
    if (last && last.revision === rs.revision) last.replicaSets.push(rs);
    else revisions.push({ revision: rs.revision, replicaSets: [rs], analysisRuns: [] });
  }
  const runs = allRuns
    .filter((r) => ownedBy(r.metadata.ownerReferences, owner))
    .map(analysisRunInfo)
    .sort((a, b) => (b.created ?? 0) - (a.created ?? 0) || b.name.localeCompare(a.name));
  for (const run of runs) {
    revisions.find((rev) => rev.revision === run.revision)?.analysisRuns.push(run);
  }

  const { phase, message } = rolloutPhase(ro);
  return {
    name: ro.metadata.name ?? '',
    namespace: ro.metadata.namespace ?? '',
    phase,
    message,
    strategy: view.name,
    strategyLines: view.header(ro, replicaSets.map(replicaSetRef), now),
    images: imagesOf(ro, infos),
    replicas: {
      desired: ro.spec.replicas ?? 1,
      current: st.replicas ?? 0,
      updated: st.updatedReplicas ?? 0,
      ready: st.readyReplicas ?? 0,
      available: st.availableReplicas ?? 0,
    },
    created: toTime(ro.metadata.creationTimestamp),
    revisions,
    ...approvalLines(ro, now),
    ...(ro.spec.workloadRef === undefined ? {} : { workload: workloadLine(ro, workload) }),
  };
}

function approvalLines(ro: Rollout, now: number): { approval?: string; approvals: string[] } {
  const pending = pendingApproval(ro, now);
  return {
    ...(pending !== undefined ? { approval: pendingText(pending) } : {}),
    approvals: recordedApprovals(ro).map((r) => recordText(r, recordWhere(ro, r))),
  };
}

/** Images of the ReplicaSets with a role (stable first), else those of the template. */
function imagesOf(ro: Rollout, infos: readonly ReplicaSetInfo[]): ImageInfo[] {
  const images = new Map<string, string[]>();
  const tagged = infos
    .filter((rs) => rs.tags.length > 0)
    .sort((a, b) => Number(b.tags.includes('stable')) - Number(a.tags.includes('stable')));
  for (const rs of tagged) {
    for (const image of rs.images) {
      const tags = images.get(image) ?? [];
      for (const t of rs.tags) if (!tags.includes(t)) tags.push(t);
      images.set(image, tags);
    }
  }
  if (images.size === 0) {
    for (const c of ro.spec.template?.spec?.containers ?? []) {
      if (c.image) images.set(c.image, []);
    }
  }
  return [...images].map(([image, tags]) => ({ image, tags }));
}
