/**
 * PURE: the blue-green part of `get rollout` and `list`: which ReplicaSet the active and the
 * preview Service select (read back from the Services by the controller, not what it intends),
 * the pre- and post-promotion AnalysisRuns, and the pause before the switch. Blue-green has no
 * steps and no weights: the list shows '-' there.
 */
import { PauseReason } from '../../../api/reasons.ts';
import type { Rollout, RolloutAnalysisRunStatus } from '../../../api/rollout.ts';
import type { ReplicaSetRef, StrategyLine, StrategyView } from './view.ts';

const BLUE_GREEN_PAUSE: string = PauseReason.BlueGreenPause;

/** `web-active → web-5t4bl3 (revision 1)`: the Service and the ReplicaSet its selector picks. */
function selects(
  service: string,
  hash: string | undefined,
  replicaSets: readonly ReplicaSetRef[],
): string {
  if (!hash) return `${service} → no revision selected yet`;
  const rs = replicaSets.find((r) => r.hash === hash);
  if (rs === undefined) return `${service} → pod-template-hash ${hash} (no such ReplicaSet)`;
  return `${service} → ${rs.name}${rs.revision !== undefined ? ` (revision ${rs.revision})` : ''}`;
}

function runText(run: RolloutAnalysisRunStatus | undefined): string {
  if (run === undefined) return 'not started';
  return `${run.name} ${run.status}${run.message ? `: ${run.message}` : ''}`;
}

/** The pause before the switch, with the auto-promotion countdown when there is one. */
function pauseText(ro: Rollout, now: number): string | undefined {
  const pause = ro.status?.pauseConditions?.find((c) => c.reason === BLUE_GREEN_PAUSE);
  if (pause === undefined) return undefined;
  const bg = ro.spec.strategy.blueGreen;
  const seconds = bg?.autoPromotionSeconds ?? 0;
  const started = Date.parse(pause.startTime);
  if (bg?.autoPromotionEnabled !== false && seconds > 0 && !Number.isNaN(started)) {
    const left = Math.max(0, Math.ceil((started + seconds * 1000 - now) / 1000));
    return `${BLUE_GREEN_PAUSE}: promotes itself in ${left}s (or 'promote' now)`;
  }
  return `${BLUE_GREEN_PAUSE}: waits for 'promote'`;
}

function autoPromotion(ro: Rollout): string {
  const bg = ro.spec.strategy.blueGreen;
  if (bg?.autoPromotionEnabled === false) return 'off (promote by hand)';
  const seconds = bg?.autoPromotionSeconds ?? 0;
  return seconds > 0 ? `after ${seconds}s` : 'on';
}

export const blueGreenView: StrategyView = {
  name: 'BlueGreen',
  tags(ro, hash) {
    const st = ro.status ?? {};
    const tags: string[] = [];
    if (hash === undefined) return tags;
    if (hash === st.stableRS) tags.push('stable');
    // As Argo's plugin: a ReplicaSet both Services select is "active", not "preview" too.
    if (hash === st.blueGreen?.activeSelector) tags.push('active');
    else if (hash === st.blueGreen?.previewSelector) tags.push('preview');
    return tags;
  },
  header(ro, replicaSets, now) {
    const bg = ro.spec.strategy.blueGreen;
    const st = ro.status?.blueGreen ?? {};
    const lines: StrategyLine[] = [];
    if (bg === undefined) return lines;
    lines.push(['Active:', selects(bg.activeService, st.activeSelector, replicaSets)]);
    if (bg.previewService) {
      lines.push(['Preview:', selects(bg.previewService, st.previewSelector, replicaSets)]);
    }
    lines.push(['AutoPromote:', autoPromotion(ro)]);
    const pause = pauseText(ro, now);
    if (pause !== undefined) lines.push(['Pause:', pause]);
    if (bg.prePromotionAnalysis !== undefined || st.prePromotionAnalysisRunStatus !== undefined) {
      lines.push(['PrePromotion:', runText(st.prePromotionAnalysisRunStatus)]);
    }
    if (bg.postPromotionAnalysis !== undefined || st.postPromotionAnalysisRunStatus !== undefined) {
      lines.push(['PostPromotion:', runText(st.postPromotionAnalysisRunStatus)]);
    }
    return lines;
  },
  listCells: () => ({ step: '-', setWeight: '-' }),
};
