/**
 * Adoption: a Rollout converted from Argo's takes over the ReplicaSets Argo's controller left
 * running, pods untouched. Planned before any strategy, and only while ReplicaSets its selector
 * matches are unclaimed: status takes over where Argo stood (takeover.ts), then each orphan gets
 * our controller reference (and our revision annotation, continuing Argo's number); the strategy
 * plans from the next pass on. When taking over is not safe, nothing is adopted, created or
 * deleted: the `Adopted` condition and an event say why (a ReplicaSet still Argo's, an Argo
 * Experiment, no ReplicaSet with the Rollout's template, a stable that is gone). Pure.
 */
import {
  API_VERSION,
  ARGO_REVISION_ANNOTATION,
  ARGO_SCALE_DOWN_DEADLINE_ANNOTATION,
  ConditionType,
  Reason,
  REVISION_ANNOTATION,
  ROLLOUT_KIND,
  SCALE_DOWN_DEADLINE_ANNOTATION,
} from '../../api/index.ts';
import type { ReplicaSet, RolloutStatus } from '../../api/index.ts';
import { controllerOwnerReference } from '../../api/owner-reference.ts';
import { removeCondition, setCondition } from '../conditions.ts';
import { normal, warning } from '../events.ts';
import { revisionOf } from '../replicasets.ts';
import { sameStatus } from '../same-status.ts';
import { declaredTemplate, replicaSetOfTemplate } from '../template-match.ts';
import { templateDifference } from '../template-defaults.ts';
import type { Observed, Plan, Write } from '../types.ts';
import { sortClaims } from './claims.ts';
import type { HeldBy } from './claims.ts';
import { takeover } from '../takeover.ts';

type Refusal = { readonly reason: Reason; readonly message: string };

/** The adoption pass, or undefined when nothing is left to adopt (the strategy plans).
 *  `stepsHash`: the strategy's hash of its steps, which status takes over (absent: none). */
export function planAdoption(o: Observed, stepsHash?: string): Plan | undefined {
  const claims = sortClaims(o.unclaimedReplicaSets ?? []);
  const { heldByArgoRollouts, heldByArgoOthers } = claims;
  const orphans = [...claims.orphans].sort(
    (a, b) => revisionOf(argoRevision(a)) - revisionOf(argoRevision(b)),
  );
  if (orphans.length + heldByArgoRollouts.length + heldByArgoOthers.length === 0) {
    // Served in place, the Adopted condition is the in-place pass's (in-place/).
    return o.inPlaceArgo === true ? undefined : refusalOutlived(o);
  }
  if (heldByArgoOthers.length > 0) {
    return refuse(o, {
      reason: Reason.ArgoFeatureUnsupported,
      message: `${held(heldByArgoOthers)}: Stepwise has no counterpart for that Argo feature; let it finish (or delete it) under Argo Rollouts first; nothing adopted`,
    });
  }
  if (heldByArgoRollouts.length > 0) {
    return refuse(o, {
      reason: Reason.ArgoRolloutStillOwns,
      message: `${held(heldByArgoRollouts)}, and two controllers must not claim them: scale Argo's controller to 0 and delete that Rollout with --cascade=orphan ('kubectl stepwise migrate --adopt' does both); nothing adopted`,
    });
  }
  const all = [...o.replicaSets, ...orphans];
  const current = replicaSetOfTemplate(all, o.rollout);
  if (current === undefined) return refuse(o, noTemplate(o, all));
  const taken = takeover({
    rollout: o.rollout,
    replicaSets: all,
    current,
    services: o.services,
    ...(stepsHash === undefined ? {} : { stepsHash }),
  });
  if (taken.kind === 'stableMissing') {
    return refuse(o, {
      reason: Reason.StableReplicaSetMissing,
      message: `status.stableRS ${taken.stable} (as Argo Rollouts left it) names no live ReplicaSet the selector matches; nothing adopted`,
    });
  }
  const names = orphans.map(
    (rs) => `${rs.metadata?.name} (revision ${revisionOf(argoRevision(rs))})`,
  );
  const message = `took over ${names.join(', ')} from Argo Rollouts with their pods; stable ${taken.stable}, current ${current.metadata?.name}`;
  const status = withCondition(o, taken.status, {
    reason: Reason.ReplicaSetsAdopted,
    message,
    ok: true,
  });
  // Status first: should an adoption fail half-way, the next pass adopts the rest from the
  // status taken over, rather than a strategy planning from a status that never was.
  const adopt = orphans.map((rs) => adoptWrite(o, rs));
  const event = normal(Reason.ReplicaSetsAdopted, message);
  if (sameStatus(status, o.rollout.status ?? {})) return { writes: [...adopt, event] };
  return { writes: [{ kind: 'applyStatus', status }, ...adopt, event] };
}

function held(list: readonly HeldBy[]): string {
  const byOwner = new Map<string, string[]>();
  for (const h of list) {
    const key = `argoproj.io ${h.kind} ${h.name}`;
    byOwner.set(key, [...(byOwner.get(key) ?? []), h.replicaSet.metadata?.name ?? '']);
  }
  return [...byOwner]
    .map(
      ([owner, rss]) =>
        `ReplicaSet${rss.length > 1 ? 's' : ''} ${rss.join(', ')} controlled by ${owner}`,
    )
    .join('; ');
}

function noTemplate(o: Observed, all: readonly ReplicaSet[]): Refusal {
  const newest = [...all].sort(
    (a, b) => revisionOf(argoRevision(b)) - revisionOf(argoRevision(a)),
  )[0];
  const diff =
    newest?.spec?.template === undefined
      ? undefined
      : templateDifference(
          o.rollout.spec.template,
          declaredTemplate(o.rollout, newest.spec.template),
        );
  const detail =
    newest === undefined ? '' : ` (newest, ${newest.metadata?.name}: ${diff ?? 'differs'})`;
  return {
    reason: Reason.NoMatchingReplicaSet,
    message: `no live ReplicaSet runs the Rollout's template${detail}: declare the template Argo runs, let the Rollout adopt, then change it; nothing adopted`,
  };
}

/** A ReplicaSet with our revision annotation read from Argo's when it has none of ours. */
function argoRevision(rs: ReplicaSet): ReplicaSet {
  const annotations = rs.metadata?.annotations ?? {};
  if (annotations[REVISION_ANNOTATION] !== undefined) return rs;
  const argo = annotations[ARGO_REVISION_ANNOTATION];
  if (argo === undefined) return rs;
  return {
    ...rs,
    metadata: { ...rs.metadata, annotations: { ...annotations, [REVISION_ANNOTATION]: argo } },
  };
}

/** Our controller reference, Argo's revision as ours and its scale-down deadline as ours. */
function adoptWrite(o: Observed, rs: ReplicaSet): Write {
  const meta = rs.metadata ?? {};
  const from = meta.annotations ?? {};
  const annotations: Record<string, string> = {
    [REVISION_ANNOTATION]: String(revisionOf(argoRevision(rs))),
  };
  const deadline =
    from[SCALE_DOWN_DEADLINE_ANNOTATION] ?? from[ARGO_SCALE_DOWN_DEADLINE_ANNOTATION];
  if (deadline !== undefined) annotations[SCALE_DOWN_DEADLINE_ANNOTATION] = deadline;
  const owner = { apiVersion: API_VERSION, kind: ROLLOUT_KIND, metadata: o.rollout.metadata };
  return {
    kind: 'adoptReplicaSet',
    body: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        // Only an orphan as observed is taken: the apply fails if it changed since.
        resourceVersion: meta.resourceVersion,
        annotations,
        ownerReferences: [controllerOwnerReference(owner)],
      },
    },
  };
}

function withCondition(
  o: Observed,
  status: RolloutStatus,
  c: { readonly reason: Reason; readonly message: string; readonly ok: boolean },
): RolloutStatus {
  const conditions = setCondition(
    status.conditions ?? [],
    {
      type: ConditionType.Adopted,
      status: c.ok ? 'True' : 'False',
      reason: c.reason,
      message: c.message,
    },
    new Date(o.now).toISOString(),
  );
  return { ...status, conditions: [...conditions] };
}

/** A refusal whose ReplicaSets are gone (deleted, not adopted) no longer says anything true:
 *  it is taken off, with the Degraded it set, and the strategy plans from the next pass on. */
function refusalOutlived(o: Observed): Plan | undefined {
  const prev = o.rollout.status ?? {};
  const refusal = prev.conditions?.find((c) => c.type === ConditionType.Adopted);
  if (refusal?.status !== 'False') return undefined;
  const status = {
    ...prev,
    phase: undefined,
    message: undefined,
    conditions: [...removeCondition(prev.conditions ?? [], ConditionType.Adopted)],
  };
  return { writes: [{ kind: 'applyStatus', status }] };
}

/** Nothing adopted, created or deleted: the condition and an event say why, once. */
function refuse(o: Observed, r: Refusal): Plan {
  const prev = o.rollout.status ?? {};
  const status = withCondition(
    o,
    {
      ...prev,
      phase: 'Degraded',
      message: `${r.reason}: ${r.message}`,
      observedGeneration: String(o.rollout.metadata.generation ?? 0),
    },
    { ...r, ok: false },
  );
  if (sameStatus(status, prev)) return { writes: [] };
  return { writes: [{ kind: 'applyStatus', status }, warning(r.reason, r.message)] };
}
