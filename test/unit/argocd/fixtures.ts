// Rollouts as Argo CD hands them to Lua (plain JSON, as the API server serves them), in each
// state the health check and the actions must tell apart. The statuses follow what the
// controller writes (src/rollout/phase.ts, conditions.ts), checked against the real thing in
// test/e2e/argocd-lua.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import { ACTIONS, ARGOCD_DIR, type ActionName } from '../../lua/argocd-cm.ts';

export const HEALTH_LUA = readFileSync(join(ARGOCD_DIR, 'health.lua'), 'utf8');
export const DISCOVERY_LUA = readFileSync(join(ARGOCD_DIR, 'actions', 'discovery.lua'), 'utf8');
export const ACTION_LUA = Object.fromEntries(
  ACTIONS.map((a) => [a, readFileSync(join(ARGOCD_DIR, 'actions', a, 'action.lua'), 'utf8')]),
) as Record<ActionName, string>;

const T = '2026-03-01T12:00:00Z';

export function rollout(status?: RolloutStatus, spec: Partial<Rollout['spec']> = {}): Rollout {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'uid-web',
      generation: 2,
      resourceVersion: '10',
      labels: { app: 'web' },
    },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'registry.example/web:2.0' }] },
      },
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }],
        },
      },
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

const cond = (
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message: string,
) => ({
  type,
  status,
  reason,
  message,
  lastUpdateTime: T,
  lastTransitionTime: T,
});

const counts = { replicas: 4, updatedReplicas: 1, readyReplicas: 4, availableReplicas: 4 };

export const healthy: RolloutStatus = {
  observedGeneration: '2',
  phase: 'Healthy',
  message: '',
  currentPodHash: 'h2',
  stableRS: 'h2',
  currentStepIndex: 4,
  currentStepHash: 'steps',
  replicas: 4,
  updatedReplicas: 4,
  readyReplicas: 4,
  availableReplicas: 4,
  selector: 'app=web',
  HPAReplicas: 4,
  canary: {},
  pauseConditions: [],
  conditions: [
    cond('Available', 'True', 'AvailableReason', 'Rollout has minimum availability'),
    cond('Progressing', 'True', 'NewReplicaSetAvailable', 'Rollout has completed'),
    cond('Healthy', 'True', 'RolloutHealthy', 'Rollout is healthy'),
    cond('Completed', 'True', 'RolloutCompleted', 'Rollout completed update to revision 2'),
  ],
};

export const progressing: RolloutStatus = {
  ...healthy,
  phase: 'Progressing',
  message: 'more replicas need to be updated',
  currentPodHash: 'h3',
  stableRS: 'h2',
  currentStepIndex: 0,
  ...counts,
  updatedReplicas: 0,
  conditions: [
    cond('Progressing', 'True', 'ReplicaSetUpdated', 'ReplicaSet web-h3 is progressing'),
  ],
};

export const pausedAtStep: RolloutStatus = {
  ...progressing,
  phase: 'Paused',
  message: 'CanaryPauseStep',
  currentStepIndex: 1,
  ...counts,
  controllerPause: true,
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T }],
  conditions: [
    cond('Progressing', 'Unknown', 'RolloutPaused', 'Rollout is paused'),
    cond('Paused', 'True', 'RolloutPaused', 'Rollout is paused'),
  ],
};

export const awaitingApproval: RolloutStatus = {
  ...pausedAtStep,
  message: 'AwaitingApproval',
  pauseConditions: [{ reason: 'AwaitingApproval', startTime: T }],
};

/** Paused by a person (`kubectl stepwise pause`) while at a pause step. */
export const pausedByUser: RolloutStatus = {
  ...pausedAtStep,
  pauseConditions: [
    { reason: 'CanaryPauseStep', startTime: T },
    { reason: 'PausedByUser', startTime: T },
  ],
};

export const inconclusive: RolloutStatus = {
  ...pausedAtStep,
  message: 'InconclusiveAnalysisRun',
  currentStepIndex: 2,
  pauseConditions: [{ reason: 'InconclusiveAnalysisRun', startTime: T }],
  canary: {
    currentStepAnalysisRunStatus: {
      name: 'web-h3-2',
      status: 'Inconclusive',
      message: 'metric "error-rate" is Inconclusive',
    },
  },
};

/** A promote cleared the pause; the controller has not yet acknowledged it. */
export const promotedNotYetSeen: RolloutStatus = { ...pausedAtStep, pauseConditions: [] };

export const aborted: RolloutStatus = {
  ...pausedAtStep,
  phase: 'Degraded',
  message: 'RolloutAborted: Rollout aborted update to revision 3',
  abort: true,
  abortedAt: T,
  currentStepIndex: 0,
  controllerPause: false,
  pauseConditions: [],
  replicas: 4,
  updatedReplicas: 0,
  conditions: [
    cond('Progressing', 'False', 'RolloutAborted', 'Rollout aborted update to revision 3'),
  ],
};

export const invalidSpec: RolloutStatus = {
  ...healthy,
  phase: 'Degraded',
  message: 'InvalidSpec: spec.strategy.canary.stableService: service "web-stable" not found',
  conditions: [
    cond(
      'InvalidSpec',
      'True',
      'InvalidSpec',
      'spec.strategy.canary.stableService: service "web-stable" not found',
    ),
  ],
};

export const deadlineExceeded: RolloutStatus = {
  ...progressing,
  phase: 'Degraded',
  message: 'ProgressDeadlineExceeded: ReplicaSet "web-h3" has timed out progressing.',
  conditions: [
    cond(
      'Progressing',
      'False',
      'ProgressDeadlineExceeded',
      'ReplicaSet "web-h3" has timed out progressing.',
    ),
  ],
};

export const refused: RolloutStatus = {
  ...progressing,
  phase: 'Degraded',
  message: 'ReplicaSetCreateError: pods "web-h3" is forbidden: exceeded quota',
  conditions: [
    cond(
      'Progressing',
      'False',
      'ReplicaSetCreateError',
      'pods "web-h3" is forbidden: exceeded quota',
    ),
    cond('ReplicaFailure', 'True', 'ReplicaSetCreateError', 'exceeded quota'),
  ],
};

/** A new generation the controller has not yet observed (its status is generation 1's). */
export const notObserved: RolloutStatus = { ...healthy, observedGeneration: '1' };

/** A blue-green Rollout (active web-active, preview web-preview). */
export const blueGreenSpec: Partial<Rollout['spec']> = {
  strategy: { blueGreen: { activeService: 'web-active', previewService: 'web-preview' } },
};

/** Blue-green at its BlueGreenPause: preview on h3 and ready, active on h2. */
export const blueGreenPaused: RolloutStatus = {
  ...healthy,
  phase: 'Paused',
  message: 'BlueGreenPause',
  currentPodHash: 'h3',
  stableRS: 'h2',
  replicas: 6,
  updatedReplicas: 2,
  controllerPause: true,
  pauseConditions: [{ reason: 'BlueGreenPause', startTime: T }],
  blueGreen: { activeSelector: 'h2', previewSelector: 'h3' },
  conditions: [
    cond('Progressing', 'Unknown', 'RolloutPaused', 'Rollout is paused'),
    cond('Paused', 'True', 'RolloutPaused', 'Rollout is paused'),
  ],
};

/** Promoted (the pause is completed: controllerPause stays, as Argo's), new pods coming up. */
export const blueGreenCutover: RolloutStatus = {
  ...blueGreenPaused,
  phase: 'Progressing',
  message: 'active service cutover pending',
  pauseConditions: [],
  conditions: [
    cond('Progressing', 'True', 'RolloutResumed', 'Rollout is resumed'),
    cond('Paused', 'False', 'RolloutResumed', 'Rollout is resumed'),
  ],
};

/** Switched to h3; post-promotion analysis running, stable still h2. */
export const blueGreenPostAnalysis: RolloutStatus = {
  ...blueGreenCutover,
  message: 'waiting for analysis to complete',
  blueGreen: {
    activeSelector: 'h3',
    previewSelector: 'h3',
    postPromotionAnalysisRunStatus: { name: 'web-h3-3-post', status: 'Running' },
  },
};
