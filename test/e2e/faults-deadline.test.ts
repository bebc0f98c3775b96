// A release whose pods never become Ready (issue 6): the progress deadline fires on time, as in
// Argo Rollouts, with a handful of status writes and silence afterwards. Real controller, local
// control plane, pods made never-ready by the template label `stepwise.dev/fault: never-ready`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import {
  neverReadyTemplate,
  QUIET_WINDOW_MS,
  waitForCanary,
  waitForSplit,
  waitForWarnings,
} from './support/faults.ts';
import { watchRollout } from './support/history.ts';
import {
  createRollout,
  installCrds,
  patchSpec,
  phase,
  rolloutBody,
  split,
  waitForRollout,
} from './support/rollouts.ts';

/** Argo writes a stuck no-steps canary's status a few times (new RS, counts, Degraded). */
const MAX_WRITES_TO_DEADLINE = 10;
const DEADLINE_SECONDS = 10;

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

const progressing = (r: Rollout) => r.status?.conditions?.find((c) => c.type === 'Progressing');

const deadlineExceeded = (r: Rollout): boolean =>
  r.status?.phase === 'Degraded' && (r.status.message ?? '').startsWith('ProgressDeadlineExceeded');

/** A Healthy R=4 plain rolling update (no steps), then a never-ready template. */
async function stuckUpdate(prefix: string, extra: object = {}) {
  const ns = await testNamespace(prefix);
  await createRollout(
    ns,
    rolloutBody('app', {
      progressDeadlineSeconds: DEADLINE_SECONDS,
      strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
      ...extra,
    }),
  );
  await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
  const history = await watchRollout(ns, 'app');
  await patchSpec(ns, 'app', neverReadyTemplate('app'));
  return { ns, history };
}

describe('a never-ready update with no steps', () => {
  it('goes Degraded on the progress deadline at 1/4, with few status writes, then stays quiet', async (t) => {
    const { ns, history } = await stuckUpdate('deadline');
    t.after(() => history.stop());
    const at = await history
      .until(
        'Degraded / ProgressDeadlineExceeded',
        (e) => deadlineExceeded(e.object),
        0,
        // The deadline plus time to notice it; the storm of issue 6 never got there.
        (DEADLINE_SECONDS + 30) * 1000,
      )
      .catch((err: unknown) => {
        const writes = history.count('MODIFIED');
        throw new Error(`${writes} Rollout writes and no deadline: ${String(err).slice(0, 1500)}`);
      });
    const degraded = history.events[at]?.object;
    assert.ok(degraded);
    const writes = history.count('MODIFIED', 0, at + 1);
    t.diagnostic(`Rollout MODIFIED events from the update to Degraded: ${writes}`);
    assert.equal(progressing(degraded)?.status, 'False');
    assert.equal(progressing(degraded)?.reason, 'ProgressDeadlineExceeded');
    assert.deepEqual(await split(ns, degraded), [1, 4], 'canary/stable');
    assert.ok(
      writes <= MAX_WRITES_TO_DEADLINE,
      `${writes} status writes from the update to Degraded (Argo: a few; at most ${MAX_WRITES_TO_DEADLINE})`,
    );
    const later = await history.window(QUIET_WINDOW_MS);
    assert.equal(
      later.filter((e) => e.type === 'MODIFIED').length,
      0,
      `writes after Degraded in ${QUIET_WINDOW_MS} ms: ` +
        JSON.stringify(later.map((e) => e.object.status?.conditions)).slice(0, 1500),
    );
    assert.deepEqual(await split(ns, degraded), [1, 4], 'nothing scaled after the deadline');
  });

  it('with progressDeadlineAbort: aborts, canary 0 / stable 4, Warning events', async (t) => {
    const { ns, history } = await stuckUpdate('deadline-abort', { progressDeadlineAbort: true });
    t.after(() => history.stop());
    const canary = await waitForCanary(ns, 'app');
    const aborted = await waitForRollout(
      ns,
      'app',
      'aborted on the deadline',
      (r) =>
        r.status?.abort === true &&
        r.status.phase === 'Degraded' &&
        (r.status.message ?? '').startsWith('RolloutAborted'),
      (DEADLINE_SECONDS + 30) * 1000,
    );
    assert.equal(aborted.status?.currentPodHash, canary.status?.currentPodHash);
    await waitForSplit(ns, canary, 0, 4, 30_000);
    const warnings = await waitForWarnings(ns, 'app', [
      'ProgressDeadlineExceeded',
      'RolloutAborted',
    ]);
    t.diagnostic(`warnings: ${warnings.map((e) => `${e.reason}: ${e.message}`).join(' | ')}`);
    t.diagnostic(`Rollout MODIFIED events up to now: ${history.count('MODIFIED')}`);
  });
});

describe('a first version whose pods never become Ready', () => {
  it('goes Degraded with ProgressDeadlineExceeded', async () => {
    const ns = await testNamespace('deadline-first');
    const body = rolloutBody('first', {
      progressDeadlineSeconds: DEADLINE_SECONDS,
      strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } },
    });
    body.spec.template = {
      ...body.spec.template,
      metadata: { labels: { app: 'first', [FAULT_LABEL]: NEVER_READY } },
    };
    await createRollout(ns, body);
    const degraded = await waitForRollout(
      ns,
      'first',
      'Degraded / ProgressDeadlineExceeded',
      deadlineExceeded,
      (DEADLINE_SECONDS + 30) * 1000,
    );
    assert.equal(progressing(degraded)?.status, 'False');
    assert.equal(progressing(degraded)?.reason, 'ProgressDeadlineExceeded');
    await waitForWarnings(ns, 'first', ['ProgressDeadlineExceeded']);
  });
});
