/**
 * One planned write made against the API server: server-side apply under the controller's field
 * manager (a status apply carries the resourceVersion read, so a change in between is a
 * Conflict, not overwritten), merge patches where an apply would drop fields, events to the
 * sink. The reconciler decides what and in which order; this decides how.
 */
import { API_VERSION, ROLLOUT_APPROVAL_KIND, ROLLOUT_KIND } from '../api/index.ts';
import type { Deployment, ReplicaSet, Rollout, RolloutStatus, Service } from '../api/index.ts';
import { Resources } from '../kube/index.ts';
import type { KubeApi, KubeObject } from '../kube/index.ts';
import type { Write } from '../rollout/index.ts';
import { applyTraffic } from './traffic-shell.ts';
import type { TrafficView } from './traffic-shell.ts';

export interface EventSink {
  event(rollout: Rollout, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** An event the planner asked for, as written (notifications are made from these). */
export type PlannedEvent = Extract<Write, { kind: 'event' }>;

/** Where the writes go. */
export interface WriteTarget {
  readonly api: KubeApi;
  readonly events: EventSink;
  /** Told of every event after it is recorded (the notifications). Must not throw or block. */
  readonly onEvent?: (rollout: Rollout, event: PlannedEvent) => void;
}

/** Makes one write; returns the new resourceVersion for a status, ReplicaSet, Service or
 *  Deployment write (the reconciler's expectations wait for the cache to show it). */
export async function makeWrite(
  target: WriteTarget,
  rollout: Rollout,
  w: Write,
  traffic: TrafficView | undefined,
): Promise<string | undefined> {
  const { api } = target;
  const namespace = rollout.metadata.namespace ?? '';
  const name = rollout.metadata.name ?? '';
  switch (w.kind) {
    case 'applyReplicaSet': {
      const written = await api.apply(w.body as ReplicaSet & { metadata: object });
      return written.metadata?.resourceVersion;
    }
    case 'adoptReplicaSet': {
      // Forced (the controller reference Argo held is gone), but only over the version seen.
      const written = await api.apply(w.body as ReplicaSet & { metadata: object });
      return written.metadata?.resourceVersion;
    }
    case 'deleteReplicaSet':
      await api.delete(Resources.ReplicaSet, namespace, w.name);
      return undefined;
    case 'applyService': {
      const written = await api.apply(w.body as Service & { metadata: object });
      return written.metadata?.resourceVersion;
    }
    case 'scaleWorkload': {
      // Forced: it must win over a GitOps manager's replicas (argo-rollouts#4935).
      const written = await api.apply(w.body as Deployment & { metadata: object }, {
        force: true,
      });
      return written.metadata?.resourceVersion;
    }
    case 'setTraffic':
      // Planned only from an observation, so a view exists.
      if (traffic === undefined) throw new Error(`${rollout.metadata.name}: no traffic router`);
      await applyTraffic(api, traffic, w.state, { canary: w.canaryHash, stable: w.stableHash });
      return undefined;
    case 'evictPod':
      await api.evict(namespace, w.name);
      return undefined;
    case 'patchPodMetadata':
      await api.patchMerge(Resources.Pod, namespace, w.name, { metadata: w.patch });
      return undefined;
    case 'applyStatus': {
      const body: KubeObject & { status: RolloutStatus } = {
        apiVersion: API_VERSION,
        kind: ROLLOUT_KIND,
        // Optimistic concurrency: if anyone (the plugin's promote or abort, say) changed the
        // Rollout since we read it, the apply fails with a Conflict and we plan again, instead
        // of forcing an answer to a question that has changed.
        metadata: { name, namespace, resourceVersion: rollout.metadata.resourceVersion },
        status: w.status,
      };
      const written = await api.applyStatus(body);
      return written.metadata?.resourceVersion;
    }
    case 'applyAnalysisRun':
      await api.apply(w.body);
      return undefined;
    case 'terminateAnalysisRun':
      // A merge patch: an apply of `spec.terminate` alone would drop the spec we applied.
      await api.patchMerge(Resources.AnalysisRun, namespace, w.name, {
        spec: { terminate: true },
      });
      return undefined;
    case 'deleteAnalysisRun':
      await api.delete(Resources.AnalysisRun, namespace, w.name);
      return undefined;
    case 'markApproval':
      await api.applyStatus({
        apiVersion: API_VERSION,
        kind: ROLLOUT_APPROVAL_KIND,
        metadata: { name: w.name, namespace },
        status: w.status,
      });
      return undefined;
    case 'event':
      target.events.event(rollout, w.type, w.reason, w.message);
      target.onEvent?.(rollout, w);
      return undefined;
  }
}
