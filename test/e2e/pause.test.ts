// `kubectl stepwise pause|resume` on the real API server: a person's pause is a status pause
// condition beside the controller's (its field manager, not ours, owns it), it holds the steps
// through a new revision, and only `resume` takes it back; `promote` points there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { kubectl } from './support/kubectl.ts';
import {
  createRollout,
  getRollout,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const BIN = join(REPO_ROOT, '.stepwise', 'bin');
const plugin = (args: string[]) =>
  kubectl(['stepwise', ...args], { env: { PATH: `${BIN}:${process.env.PATH ?? ''}` } });
const reasons = (r: { status?: { pauseConditions?: { reason: string }[] } }) =>
  (r.status?.pauseConditions ?? []).map((c) => c.reason);

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

describe('pause and resume from the plugin', () => {
  it('holds the steps through a new revision; promote points at resume; resume lets it go on', async () => {
    const ns = await testNamespace('pause');
    await createRollout(
      ns,
      rolloutBody('web', {
        strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }] } },
      }),
    );
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'at the pause step', phase('Paused'));

    const paused = await plugin(['pause', 'web', '-n', ns]);
    assert.equal(paused.code, 0, paused.stderr);
    const both = await waitForRollout(ns, 'web', 'both pauses', (r) =>
      reasons(r).includes('PausedByUser'),
    );
    assert.deepEqual(reasons(both), ['CanaryPauseStep', 'PausedByUser']);
    const promote = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promote.code, 1);
    assert.match(promote.stderr, /use 'kubectl stepwise resume web'/);

    // A new revision restarts the steps; the person's pause holds it at step 0.
    await setImage(ns, 'web', 'app:3');
    const held = await waitForRollout(ns, 'web', 'new revision, held', (r) =>
      phase('Paused', (x) => reasons(x).join() === 'PausedByUser')(r),
    );
    assert.equal(held.status?.currentStepIndex, 0);
    await new Promise((r) => setTimeout(r, 2_000));
    const still = await getRollout(ns, 'web');
    assert.equal(still.status?.currentStepIndex, 0, 'no step moved while held');
    assert.equal(still.status?.currentPodHash, held.status?.currentPodHash);

    const resumed = await plugin(['resume', 'web', '-n', ns]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const atStep = await waitForRollout(ns, 'web', 'on to the pause step', (r) =>
      phase('Paused', (x) => x.status?.currentStepIndex === 1)(r),
    );
    assert.deepEqual(reasons(atStep), ['CanaryPauseStep']);
    const again = await plugin(['resume', 'web', '-n', ns]);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /waits at a step \(CanaryPauseStep\): use 'kubectl stepwise promote web'/,
    );
  });
});
