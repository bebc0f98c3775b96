/**
 * `status.blueGreen`: the hashes the active and preview Services select, read back from them
 * (not what this pass intends), the preview scale-up checkpoint, and the two analyses' runs.
 */
import type { RolloutStatus } from '../../api/index.ts';
import { compact } from '../status.ts';
import type { PromotionStatuses } from './analysis.ts';

export interface BlueGreenStatusInput {
  readonly activeSelector?: string;
  readonly previewSelector?: string;
  readonly checkPoint: boolean;
  readonly statuses: PromotionStatuses;
}

export function blueGreenStatus(i: BlueGreenStatusInput): Pick<RolloutStatus, 'blueGreen'> {
  const out = compact({
    activeSelector: i.activeSelector,
    previewSelector: i.previewSelector,
    scaleUpPreviewCheckPoint: i.checkPoint || undefined,
    prePromotionAnalysisRunStatus: i.statuses.pre,
    postPromotionAnalysisRunStatus: i.statuses.post,
  });
  return { blueGreen: Object.keys(out).length === 0 ? undefined : out };
}
