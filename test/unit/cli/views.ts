// The renderers take sanitised objects, as the commands hand them over: these wrappers let the
// render tests pass fixtures as read from the cluster, through the same sanitiser.
import type { AnalysisRun } from '../../../src/api/analysis.ts';
import type { Rollout } from '../../../src/api/rollout.ts';
import { renderAnalysisRun } from '../../../src/cli/render/analysis.ts';
import type { Paint } from '../../../src/cli/render/color.ts';
import { rolloutInfo, type PhaseInfo, type RolloutInfo } from '../../../src/cli/render/info.ts';
import type { PodLike, ReplicaSetLike } from '../../../src/cli/render/objects.ts';
import { statusLine } from '../../../src/cli/render/status.ts';
import { renderRolloutList } from '../../../src/cli/render/table.ts';
import { sanitised } from '../../../src/cli/sanitise.ts';

export const infoOf = (
  ro: Rollout,
  replicaSets: readonly ReplicaSetLike[],
  pods: readonly PodLike[],
  now: number,
  runs: readonly AnalysisRun[] = [],
): RolloutInfo =>
  rolloutInfo(sanitised(ro), sanitised(replicaSets), sanitised(pods), now, sanitised(runs));

export const renderRun = (run: AnalysisRun, now: number, paint?: Paint): string =>
  renderAnalysisRun(sanitised(run), now, paint);

export const listOf = (
  rollouts: readonly Rollout[],
  opts?: Parameters<typeof renderRolloutList>[1],
): string => renderRolloutList(sanitised(rollouts), opts);

export const lineOf = (phase: PhaseInfo): string => statusLine(sanitised(phase));
