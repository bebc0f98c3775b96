// A blue-green Rollout as the controller writes it (status.blueGreen read back from the
// Services), for the plugin's tests: revision 1 (bl4e) serves on the active Service, revision 2
// (gr33n) runs its preview pod on the preview Service.
import type { BlueGreenStrategy, Rollout, RolloutStatus } from '../../../src/api/rollout.ts';
import { NOW, ago, pod, replicaSet, rollout } from './fixtures.ts';

export const T0 = ago(60);

export function blueGreenRollout(
  status: RolloutStatus = {},
  strategy: Partial<BlueGreenStrategy> = {},
  over: Partial<Rollout['spec']> = {},
): Rollout {
  return rollout(status, {
    replicas: 2,
    strategy: {
      blueGreen: { activeService: 'web-active', previewService: 'web-preview', ...strategy },
    },
    ...over,
  });
}

/** Healthy on revision 1: both Services select it. */
export const bgHealthy: RolloutStatus = {
  phase: 'Healthy',
  message: '',
  currentPodHash: 'bl4e',
  stableRS: 'bl4e',
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  blueGreen: { activeSelector: 'bl4e', previewSelector: 'bl4e' },
};

/** Paused before the switch: preview on revision 2 (1 pod), active on revision 1 (2 pods). */
export const bgPaused: RolloutStatus = {
  ...bgHealthy,
  phase: 'Paused',
  message: 'BlueGreenPause',
  currentPodHash: 'gr33n',
  replicas: 3,
  updatedReplicas: 1,
  controllerPause: true,
  pauseConditions: [{ reason: 'BlueGreenPause', startTime: T0 }],
  blueGreen: {
    activeSelector: 'bl4e',
    previewSelector: 'gr33n',
    prePromotionAnalysisRunStatus: { name: 'web-gr33n-2-pre', status: 'Successful' },
  },
};

/** Switched to revision 2, post-promotion analysis running; stable still revision 1. */
export const bgPostPromotion: RolloutStatus = {
  ...bgPaused,
  phase: 'Progressing',
  message: 'waiting for analysis to complete',
  controllerPause: false,
  pauseConditions: [],
  replicas: 4,
  updatedReplicas: 2,
  blueGreen: {
    activeSelector: 'gr33n',
    previewSelector: 'gr33n',
    prePromotionAnalysisRunStatus: { name: 'web-gr33n-2-pre', status: 'Successful' },
    postPromotionAnalysisRunStatus: { name: 'web-gr33n-2-post', status: 'Running' },
  },
};

export const blueRS = replicaSet('bl4e', 1, 2, 'nginx:1.25');
export const greenRS = replicaSet('gr33n', 2, 1, 'nginx:1.26');
export const bluePods = [pod(blueRS, 'aaaaa'), pod(blueRS, 'bbbbb')];
export const greenPods = [pod(greenRS, 'zzzzz')];
export { NOW };
