/** PURE: a pod's status word as kubectl prints it, and how healthy that is. */
import type { PodLike } from './objects.ts';

export type PodHealth = 'Healthy' | 'Progressing' | 'Degraded' | 'Unknown';

export interface PodStatus {
  text: string;
  health: PodHealth;
}

const FAILED = new Set([
  'Failed',
  'Error',
  'CrashLoopBackOff',
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'OOMKilled',
  'ContainerCannotRun',
  'Evicted',
  'DeadlineExceeded',
]);

/** kubectl's printPod status column (init containers, waiting/terminated reasons, deletion). */
export function podStatusText(pod: PodLike): string {
  const st = pod.status ?? {};
  let reason = st.reason || st.phase || 'Unknown';
  const inits = st.initContainerStatuses ?? [];
  let initializing = false;
  for (const [i, c] of inits.entries()) {
    const term = c.state?.terminated;
    if (term && term.exitCode === 0) continue;
    initializing = true;
    const waiting = c.state?.waiting?.reason;
    if (term) {
      reason = term.reason
        ? `Init:${term.reason}`
        : term.signal
          ? `Init:Signal:${term.signal}`
          : `Init:ExitCode:${term.exitCode ?? '?'}`;
    } else if (waiting && waiting !== 'PodInitializing') {
      reason = `Init:${waiting}`;
    } else {
      reason = `Init:${i}/${inits.length}`;
    }
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    for (const c of [...(st.containerStatuses ?? [])].reverse()) {
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`;
      else if (c.ready && c.state?.running) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (pod.metadata?.deletionTimestamp) reason = 'Terminating';
  return reason;
}

export function podStatus(pod: PodLike): PodStatus {
  const text = podStatusText(pod);
  const statuses = pod.status?.containerStatuses ?? [];
  const allReady = statuses.length > 0 && statuses.every((c) => c.ready);
  let health: PodHealth;
  if (text === 'Running') health = allReady ? 'Healthy' : 'Progressing';
  else if (text === 'Succeeded' || text === 'Completed') health = 'Healthy';
  else if (text === 'Unknown') health = 'Unknown';
  else if (FAILED.has(text) || /^(Init:)?(Signal|ExitCode):/.test(text) || /BackOff$/.test(text))
    health = 'Degraded';
  else if (text.startsWith('Init:') && FAILED.has(text.slice(5))) health = 'Degraded';
  else health = 'Progressing';
  return { text, health };
}
