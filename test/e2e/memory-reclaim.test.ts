// Idle-time memory reclaim (issue 11) in the real controller: it runs once the controller is
// quiet, never right after it has worked, and a controller that observes nothing new does not
// repeat it. With a release whose pods never become Ready, the deadline still fires on time and
// the Degraded Rollout stays unwritten while reclaims come and go.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testNamespace } from '../cluster/testing.ts';
import { startController, type ControllerProcess } from './support/controller.ts';
import { neverReadyTemplate, QUIET_WINDOW_MS } from './support/faults.ts';
import { watchRollout } from './support/history.ts';
import {
  createRollout,
  installCrds,
  patchSpec,
  phase,
  rolloutBody,
  waitForRollout,
} from './support/rollouts.ts';

const IDLE_MS = 1000;
const RECLAIMED = 'memory reclaimed while idle';

// The controller is scoped to this file's namespace: other files' pods, running beside this one
// under `make e2e`, would be activity that puts a reclaim off.
const ns = await testNamespace('reclaim');
let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController({
    args: ['--leader-elect=false', `--reclaim-memory-after=${IDLE_MS}ms`, `--namespace=${ns}`],
  });
});
after(() => controller?.kill());

/** When each reclaim finished, by the controller's log (same host clock as this process). */
const reclaimTimes = (): number[] =>
  controller.logs.filter((l) => l.msg === RECLAIMED).map((l) => Date.parse(String(l.time)));

describe('idle-time memory reclaim', () => {
  it('runs once the controller is quiet after start-up, and not again while nothing happens', async () => {
    await controller.waitForLog((l) => l.msg === RECLAIMED, 30_000);
    const first = reclaimTimes().length;
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    assert.equal(reclaimTimes().length, first, 'nothing grew, so nothing more to give back');
  });

  it('with pods that never become Ready: never right after a write, the deadline on time, then quiet', async (t) => {
    await createRollout(ns, rolloutBody('app', { progressDeadlineSeconds: 5 }));
    await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
    const history = await watchRollout(ns, 'app');
    t.after(() => history.stop());
    const from = history.mark;
    await patchSpec(ns, 'app', neverReadyTemplate('app'));
    await history.until(
      'Degraded on the deadline',
      (e) => phase('Degraded')(e.object),
      from,
      40_000,
    );
    const quiet = await history.window(QUIET_WINDOW_MS);
    assert.equal(quiet.filter((e) => e.type === 'MODIFIED').length, 0, 'Degraded: no writes');
    const writesAt = history.events
      .slice(from)
      .filter((e) => e.type === 'MODIFIED')
      .map((e) => e.at);
    const reclaims = reclaimTimes();
    for (const at of reclaims) {
      // A reclaim needs IDLE_MS without a pass or an event; a write is both (100 ms of slack
      // for the log line and the watch event to travel).
      const recentWrite = writesAt.find((w) => w < at && at - w < IDLE_MS - 100);
      assert.equal(recentWrite, undefined, `a reclaim ${at - (recentWrite ?? 0)} ms after a write`);
    }
    t.diagnostic(`${reclaims.length} reclaims, ${writesAt.length} Rollout writes after the update`);
    const duringQuiet = reclaims.filter((at) => at >= Date.now() - QUIET_WINDOW_MS);
    assert.ok(duringQuiet.length <= 1, `${duringQuiet.length} reclaims in one quiet window`);
  });
});
