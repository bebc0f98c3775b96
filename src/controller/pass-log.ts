/**
 * The debug line each Rollout pass logs: the writes it planned, one short phrase each, in the
 * order they are made. Enough to follow a Rollout through `kubectl logs` at --log-level=debug
 * without dumping bodies (a ReplicaSet body is kilobytes; an approval may quote a comment).
 */
import type { Write } from '../rollout/index.ts';

export function describeWrite(w: Write): string {
  switch (w.kind) {
    case 'applyReplicaSet':
      return `apply ReplicaSet ${w.body.metadata?.name ?? '?'} replicas=${w.body.spec?.replicas ?? '?'} (${w.reason})`;
    case 'adoptReplicaSet':
      return `adopt ReplicaSet ${w.body.metadata?.name ?? '?'}`;
    case 'deleteReplicaSet':
      return `delete ReplicaSet ${w.name}`;
    case 'applyService':
      return `apply Service ${w.body.metadata?.name ?? '?'}`;
    case 'setTraffic':
      return `set traffic canary=${w.state.canaryWeight}%`;
    case 'scaleWorkload':
      return `scale Deployment ${w.body.metadata?.name ?? '?'} replicas=${w.body.spec?.replicas ?? '?'}`;
    case 'evictPod':
      return `evict Pod ${w.name}`;
    case 'patchPodMetadata':
      return `patch Pod ${w.name} metadata`;
    case 'applyAnalysisRun':
      return `apply AnalysisRun ${w.body.metadata.name ?? '?'}`;
    case 'terminateAnalysisRun':
      return `terminate AnalysisRun ${w.name}`;
    case 'deleteAnalysisRun':
      return `delete AnalysisRun ${w.name}`;
    case 'markApproval':
      return `mark RolloutApproval ${w.name} ${w.status.phase ?? ''}`.trimEnd();
    case 'applyStatus':
      return `apply status phase=${w.status.phase ?? '?'} step=${w.status.currentStepIndex ?? '-'}`;
    case 'event':
      return `event ${w.type} ${w.reason}`;
  }
}

/** The fields of the pass line: `writes` is empty for a pass that changes nothing. */
export function passFields(
  key: string,
  writes: readonly Write[],
  requeueAfterMs: number | undefined,
): Record<string, unknown> {
  return {
    rollout: key,
    writes: writes.map(describeWrite),
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}
