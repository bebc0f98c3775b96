// `kubectl stepwise` on a blue-green Rollout run by the real controller on the local control
// plane: get rollout and list show the strategy, the Services and the ReplicaSets they select,
// Argo's role tags and the pause; promote, promote --full, abort, retry, undo and
// status --until move it as they move a canary.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController, type ControllerProcess } from './support/controller.ts';
import { plugin } from './support/plugin.ts';
import {
  createRollout,
  createService,
  getService,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const HASH = 'rollouts-pod-template-hash';

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

/** Namespace with Services web-active / web-preview and a blue-green Rollout `web`, Healthy. */
async function blueGreen(prefix: string): Promise<{ ns: string; first: Rollout }> {
  const ns = await testNamespace(prefix);
  await createService(ns, 'web-active', 'web');
  await createService(ns, 'web-preview', 'web');
  await createRollout(
    ns,
    rolloutBody('web', {
      replicas: 2,
      strategy: {
        blueGreen: {
          activeService: 'web-active',
          previewService: 'web-preview',
          autoPromotionEnabled: false,
          previewReplicaCount: 1,
          scaleDownDelaySeconds: 600,
        },
      },
    }),
  );
  const first = await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  return { ns, first };
}

const pausedAt = (generation: number) =>
  phase(
    'Paused',
    (r) =>
      r.metadata.generation === generation &&
      (r.status?.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause'),
  );

/** The INFO cell of each ReplicaSet row of `get rollout`, by ReplicaSet name. */
function tagsOf(out: string): Record<string, string> {
  const rows = out.split('\n').filter((l) => / ReplicaSet /.test(l));
  return Object.fromEntries(
    rows.map((l) => {
      const name = /⧉ (\S+)/.exec(l)?.[1] ?? '';
      const info = l.split(/ {2,}/).at(-1) ?? '';
      return [name, /^(stable|active|preview)/.test(info) ? info : ''];
    }),
  );
}

describe('the plugin on a blue-green Rollout', () => {
  it('get and list show it; promote switches it; status --until follows it', async () => {
    const { ns, first } = await blueGreen('cli-bg');
    const blue = first.status?.stableRS ?? '';
    assert.ok(blue);
    const healthy = await plugin(['get', 'rollout', 'web', '-n', ns, '--no-color']);
    assert.equal(healthy.code, 0, healthy.stderr);
    assert.match(healthy.stdout, /Strategy: +BlueGreen\n/);
    assert.match(healthy.stdout, new RegExp(`Active: +web-active → web-${blue} \\(revision 1\\)`));
    assert.match(
      healthy.stdout,
      new RegExp(`Preview: +web-preview → web-${blue} \\(revision 1\\)`),
    );
    assert.deepEqual(tagsOf(healthy.stdout), { [`web-${blue}`]: 'stable,active' });

    await setImage(ns, 'web', 'app:2');
    const until = await plugin(['status', 'web', '-n', ns, '--until', 'paused', '-t', '60s']);
    assert.equal(until.code, 0, until.stdout + until.stderr);
    assert.match(until.stdout, /Paused - BlueGreenPause\n$/);
    const paused = await waitForRollout(ns, 'web', 'at the BlueGreenPause', pausedAt(2));
    const green = paused.status?.currentPodHash ?? '';
    assert.notEqual(green, blue);

    const get = await plugin(['get', 'rollout', 'web', '-n', ns, '--no-color']);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /Status: +॥ Paused\nMessage: +BlueGreenPause\nStrategy: +BlueGreen\n/);
    assert.match(get.stdout, new RegExp(`Active: +web-active → web-${blue} \\(revision 1\\)`));
    assert.match(get.stdout, new RegExp(`Preview: +web-preview → web-${green} \\(revision 2\\)`));
    assert.match(
      get.stdout,
      /AutoPromote: +off \(promote by hand\)\n +Pause: +BlueGreenPause: waits for 'promote'/,
    );
    assert.doesNotMatch(get.stdout, /Step:|SetWeight|ActualWeight|canary/);
    assert.deepEqual(tagsOf(get.stdout), {
      [`web-${green}`]: 'preview',
      [`web-${blue}`]: 'stable,active',
    });
    // Argo's numbers at the pause: (desired, current, updated, ready, available) = (2,3,1,2,2).
    assert.match(
      get.stdout,
      /Desired: +2\n +Current: +3\n +Updated: +1\n +Ready: +2\n +Available: +2/,
    );

    const list = await plugin(['list', '-n', ns]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^web +BlueGreen +Paused +- +- +2\/2 +2 +1 +2\n$/m);

    // A plain promote at the pause ends it; the active Service switches once both new pods are
    // available; status waits for Healthy.
    const promote = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promote.code, 0, promote.stderr);
    assert.equal(promote.stdout, "rollout 'web' promoted\n");
    const done = await plugin(['status', 'web', '-n', ns, '-t', '90s']);
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /Healthy\n$/);
    // (The cutover pending in between is health.lua's e2e, argocd-lua.test.ts: pods here can
    // be ready before this command's first read.)
    const active = await getService(ns, 'web-active');
    assert.equal(active.spec?.selector?.[HASH], green);

    const after = await plugin(['get', 'rollout', 'web', '-n', ns, '--no-color']);
    assert.match(after.stdout, new RegExp(`Active: +web-active → web-${green} \\(revision 2\\)`));
    assert.equal(tagsOf(after.stdout)[`web-${green}`], 'stable,active');
    // The old version keeps its pods through its scale-down delay, shown as such.
    assert.match(after.stdout, new RegExp(`⧉ web-${blue} .*delay:\\d+s`));

    const again = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "rollout 'web' is already fully promoted\n");
  });

  it('promote --full, abort, retry', async () => {
    const { ns, first } = await blueGreen('cli-bg-abort');
    const blue = first.status?.stableRS ?? '';

    // Abort at the pause: Degraded, the active Service never left revision 1.
    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(ns, 'web', 'revision 2 paused', pausedAt(2));
    const green = paused.status?.currentPodHash ?? '';
    const abort = await plugin(['abort', 'web', '-n', ns]);
    assert.equal(abort.code, 0, abort.stderr);
    assert.equal(abort.stdout, "rollout 'web' aborted\n");
    const status = await plugin(['status', 'web', '-n', ns, '-t', '60s']);
    assert.equal(status.code, 1, 'status exits 1 on Degraded');
    assert.match(status.stderr, /degraded state with message: RolloutAborted/);
    assert.equal((await getService(ns, 'web-active')).spec?.selector?.[HASH], blue);
    const promoteAborted = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promoteAborted.code, 1);
    assert.match(promoteAborted.stderr, /is aborted; use 'kubectl stepwise retry rollout web'/);

    // Retry: back to the pause. Then promote --full skips it: Healthy on revision 2.
    const retry = await plugin(['retry', 'rollout', 'web', '-n', ns]);
    assert.equal(retry.code, 0, retry.stderr);
    await waitForRollout(
      ns,
      'web',
      'paused again after retry',
      (r) => pausedAt(2)(r) && r.status?.abort !== true,
    );
    const full = await plugin(['promote', 'web', '--full', '-n', ns]);
    assert.equal(full.code, 0, full.stderr);
    assert.equal(full.stdout, "rollout 'web' fully promoted\n");
    await waitForRollout(
      ns,
      'web',
      'Healthy on revision 2',
      phase('Healthy', (r) => r.status?.stableRS === green),
    );
    assert.equal((await getService(ns, 'web-active')).spec?.selector?.[HASH], green);
  });

  it('an approval gate before the switch: get shows it, promote and promote --full point at approve', async () => {
    const ns = await testNamespace('cli-bg-gate');
    await createService(ns, 'web-active', 'web');
    await createService(ns, 'web-preview', 'web');
    await createRollout(
      ns,
      rolloutBody('web', {
        replicas: 1,
        strategy: {
          blueGreen: {
            activeService: 'web-active',
            previewService: 'web-preview',
            approval: { approvers: { users: ['alice'] }, timeout: '1h' },
          },
        },
      }),
    );
    const first = await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    const until = await plugin([
      'status',
      'web',
      '-n',
      ns,
      '--until',
      'awaiting-approval',
      '-t',
      '60s',
    ]);
    assert.equal(until.code, 0, until.stdout + until.stderr);
    const get = await plugin(['get', 'rollout', 'web', '-n', ns, '--no-color']);
    assert.match(
      get.stdout,
      /Awaiting: +before the switch to the new version: 0 of 1 from users alice \(\d+m left, then abort\)/,
    );
    const promote = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promote.code, 1);
    assert.match(
      promote.stderr,
      /waits for approval before the switch; use 'kubectl stepwise approve web'/,
    );
    const full = await plugin(['promote', 'web', '--full', '-n', ns]);
    assert.equal(full.code, 1);
    assert.match(
      full.stderr,
      /has an approval gate ahead \(before the switch\), which a full promotion may not skip/,
    );
    const active = await getService(ns, 'web-active');
    assert.equal(active.spec?.selector?.[HASH], first.status?.stableRS, 'still on revision 1');
  });

  // The template undo copies from a ReplicaSet carries the API server's defaults; the
  // controller still finds that ReplicaSet (Argo's FindNewReplicaSet), so it is a fast rollback.
  it('undo to a revision inside its scale-down delay is a fast rollback', async () => {
    const { ns, first } = await blueGreen('cli-bg-undo');
    const blue = first.status?.stableRS ?? '';
    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(ns, 'web', 'revision 2 paused', pausedAt(2));
    const green = paused.status?.currentPodHash ?? '';
    assert.equal((await plugin(['promote', 'web', '--full', '-n', ns])).code, 0);
    await waitForRollout(
      ns,
      'web',
      'Healthy on revision 2',
      phase('Healthy', (r) => r.status?.stableRS === green),
    );
    const undo = await plugin(['undo', 'web', '-n', ns]);
    assert.equal(undo.code, 0, undo.stderr);
    const seen = await waitForRollout(
      ns,
      'web',
      'the undo observed',
      (r) =>
        r.status?.observedGeneration === String(r.metadata.generation) &&
        r.metadata.generation === 3,
    );
    assert.equal(
      seen.status?.currentPodHash,
      blue,
      `undo went to revision 1 (${blue}), not a new one`,
    );
    const back = await waitForRollout(ns, 'web', 'back on revision 1, Healthy', (r) =>
      phase('Healthy', (x) => x.status?.stableRS === blue)(r),
    );
    assert.equal(back.status?.currentPodHash, blue);
    assert.equal((await getService(ns, 'web-active')).spec?.selector?.[HASH], blue);
  });
});
