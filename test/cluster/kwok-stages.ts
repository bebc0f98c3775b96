// The kwok configuration: kwok's own stages (copied from its module zip by build.sh, or read
// from the Go module cache) that make simulated nodes Ready and pods Running and Ready, plus a
// fault stage of ours. Pods then behave as on a real node, minus containers.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Keep in step with KWOK_VERSION in build.sh. */
export const KWOK_MODULE = 'sigs.k8s.io/kwok@v0.8.0';
/** Where build.sh copies the module's kustomize/stage tree, in the binaries dir. */
export const STAGES_SUBDIR = 'kwok-stages';

/** Paths under the module's kustomize/stage/. */
export const KWOK_STAGE_FILES = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
  // Chaos: a Running pod with the label below fails a second or two later (phase Failed).
  'pod/chaos/pod-container-running-failed.yaml',
] as const;

export const CHAOS_FAILED_LABEL = 'pod-container-running-failed.stage.kwok.x-k8s.io';
export const FAULT_LABEL = 'stepwise.dev/fault';
export const NEVER_READY = 'never-ready';
export const JOB_FAIL = 'job-fail';

/**
 * A pod labelled `stepwise.dev/fault: never-ready` runs but never passes its readiness probe:
 * phase Running, containers started, Ready=False, forever. Its weight beats pod-ready's 0, so
 * kwok always picks it for such pods. It matches only Pending pods, so it applies once.
 */
export const NEVER_READY_STAGE = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: stepwise-pod-never-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.labels["${FAULT_LABEL}"]'
      operator: 'In'
      values:
      - '${NEVER_READY}'
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
  weight: 10000
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: PodScheduled
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: ContainersReady
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: Ready
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: true
        restartCount: 0
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}
`;

/**
 * A Job's pod labelled `stepwise.dev/fault: job-fail` ends Failed (its container exits 1) where
 * kwok's pod-complete would make it Succeeded: the Job controller then counts a failure, and a
 * Job with backoffLimit 0 fails. Its weight beats pod-complete's 0.
 */
export const JOB_FAIL_STAGE = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: stepwise-job-pod-fail
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.labels["${FAULT_LABEL}"]'
      operator: 'In'
      values:
      - '${JOB_FAIL}'
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values:
      - 'Job'
  weight: 10000
  next:
    statusTemplate: |
      {{ $now := Now }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 1
            finishedAt: {{ $now | Quote }}
            reason: Error
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Failed
`;

/** Writes kwok's --config file: every stage as one multi-document YAML. */
export async function writeKwokConfig(file: string, binDir: string): Promise<void> {
  const stageRoot = await findStageRoot(binDir);
  const docs = await Promise.all(KWOK_STAGE_FILES.map((f) => readFile(join(stageRoot, f), 'utf8')));
  await writeFile(
    file,
    [...docs, NEVER_READY_STAGE, JOB_FAIL_STAGE].map((d) => d.trimEnd()).join('\n---\n') + '\n',
  );
}

async function findStageRoot(binDir: string): Promise<string> {
  const copied = join(binDir, STAGES_SUBDIR);
  if (existsSync(copied)) return copied;
  const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', KWOK_MODULE]);
  const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!moduleDir) throw new Error(`go mod download ${KWOK_MODULE} gave no Dir`);
  return join(moduleDir, 'kustomize', 'stage');
}
