// The Argo CD Lua (deploy/argocd/) on the objects the real controller writes: one Rollout walked
// through Healthy → Progressing → Paused → promote → Healthy → abort → Degraded → retry →
// promote-full → Healthy on the local control plane, every action run as Argo CD runs it (the Lua
// on the live object, then the merge patch from live to result sent to the /status
// subresource), and health.lua's verdict checked on the live object captured at each phase. A
// blue-green too: Suspended at its BlueGreenPause, Progressing while the cutover is pending.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { rolloutPhase } from '../../src/cli/render/info.ts';
import { testNamespace } from '../cluster/testing.ts';
import { ACTIONS, readLuaSources, type ActionName } from '../lua/argocd-cm.ts';
import {
  action,
  discovery,
  findLua,
  health,
  runLuaMany,
  splitStatusPatch,
  type Health,
} from '../lua/run-lua.ts';
import { startController, type ControllerProcess } from './support/controller.ts';
import { watchRollout, type WatchHistory } from './support/history.ts';
import {
  createRollout,
  createService,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const lua = findLua();
const skip = 'skip' in lua ? lua.skip : false;
const WAITING = 'Waiting for rollout spec update to be observed';
const SRC = readLuaSources();
const HEALTH_LUA = SRC.health;
const DISCOVERY_LUA = SRC.discovery;
const ACTION_LUA = SRC.actions;

let controller: ControllerProcess | undefined;

before(async () => {
  if (skip) return;
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

/** The first object at or after `from` in the watch history that `pred` accepts. */
async function at(
  history: WatchHistory<Rollout>,
  what: string,
  pred: (r: Rollout) => boolean,
  from = 0,
): Promise<{ obj: Rollout; index: number }> {
  const index = await history.until(what, (e) => e.type !== 'DELETED' && pred(e.object), from);
  const obj = history.events[index]?.object;
  assert.ok(obj);
  return { obj, index };
}

const verdict = (obj: Rollout): Health => health(HEALTH_LUA, obj);

function enabledActions(obj: Rollout): ActionName[] {
  const actions = discovery(DISCOVERY_LUA, obj);
  return ACTIONS.filter((a) => actions[a]?.disabled === false);
}

/**
 * Runs an action as Argo CD does (server/application/application.go patchResource): the Lua on
 * the live object, a JSON merge patch from live to result, and, since it touches status only,
 * one merge patch to the /status subresource. Returns the patch and the object written.
 */
async function runAction(
  name: ActionName,
  live: Rollout,
): Promise<{ patch: unknown; written: Rollout }> {
  assert.ok(enabledActions(live).includes(name), `discovery.lua enables ${name}`);
  const result = action(ACTION_LUA[name], live, `${name}/action.lua`);
  const { statusPatch, otherPatch } = splitStatusPatch(live, result);
  assert.equal(otherPatch, undefined, `${name} changes status only`);
  assert.ok(statusPatch, `${name} changes something`);
  const { namespace, name: rollout } = live.metadata;
  // Argo CD's PatchResource passes no fieldManager (the API server names the writer after its
  // user agent); argocd-controller stands for Argo CD here.
  const written = await http.json<Rollout>(
    'PATCH',
    `/apis/stepwise.dev/v1alpha1/namespaces/${namespace}/rollouts/${rollout}/status?fieldManager=argocd-controller`,
    statusPatch,
    'application/merge-patch+json',
  );
  return { patch: statusPatch, written };
}

describe('Argo CD Lua on the Rollouts the controller writes', { skip }, () => {
  it('health.lua follows a canary through every phase; the actions drive it as the plugin does', async () => {
    const ns = await testNamespace('argocd-lua');
    await createService(ns, 'web-canary', 'web');
    await createService(ns, 'web-stable', 'web');
    const history = await watchRollout(ns, 'web');
    try {
      await createRollout(
        ns,
        rolloutBody('web', {
          strategy: {
            canary: {
              canaryService: 'web-canary',
              stableService: 'web-stable',
              steps: [{ setWeight: 25 }, { pause: {} }],
            },
          },
        }),
      );

      // Created, not yet reconciled.
      const created = await at(history, 'the Rollout created', () => true);
      assert.equal(created.obj.status?.observedGeneration, undefined);
      assert.deepEqual(verdict(created.obj), { status: 'Progressing', message: WAITING });

      // The first revision goes straight to Healthy.
      const first = await at(history, 'first revision Healthy', phase('Healthy'));
      assert.deepEqual(verdict(first.obj), { status: 'Healthy', message: '' });
      assert.deepEqual(enabledActions(first.obj), [], 'nothing to do on a Healthy Rollout');
      const stableHash = first.obj.status?.stableRS;
      assert.ok(stableHash);

      // A new template: first a generation the controller has not seen, then the canary
      // progressing, then the pause step.
      let mark = history.mark;
      await setImage(ns, 'web', 'app:2');
      const unseen = await at(
        history,
        'generation 2 not yet observed',
        (r) => r.metadata.generation === 2 && r.status?.observedGeneration === '1',
        mark,
      );
      assert.deepEqual(verdict(unseen.obj), { status: 'Progressing', message: WAITING });
      const progressing = await at(history, 'the canary Progressing', phase('Progressing'), mark);
      assert.deepEqual(verdict(progressing.obj), {
        status: 'Progressing',
        message: progressing.obj.status?.message,
      });
      assert.ok(progressing.obj.status?.message, 'the controller says why it is progressing');
      const paused = await at(
        history,
        'paused at the pause step',
        phase('Paused', (r) => r.status?.currentStepIndex === 1),
        mark,
      );
      assert.deepEqual(verdict(paused.obj), {
        status: 'Suspended',
        message: 'Rollout is paused: CanaryPauseStep',
      });
      assert.deepEqual(enabledActions(paused.obj), ['promote', 'promote-full', 'abort']);
      const canaryHash = paused.obj.status?.currentPodHash;
      assert.ok(canaryHash && canaryHash !== stableHash);

      // promote, as Argo CD runs it: exactly the plugin's status patch, on /status.
      mark = history.mark;
      const promote = await runAction('promote', paused.obj);
      assert.deepEqual(promote.patch, { status: { pauseConditions: null } });
      assert.equal(promote.written.metadata.generation, 2, 'the action did not touch spec');
      const promoted = await at(
        history,
        'fully promoted after the promote action',
        phase('Healthy', (r) => r.status?.stableRS === canaryHash),
        mark,
      );
      assert.deepEqual(verdict(promoted.obj), { status: 'Healthy', message: '' });

      // Another revision, aborted at the pause: Degraded, then retried and fully promoted.
      mark = history.mark;
      await setImage(ns, 'web', 'app:3');
      const paused3 = await at(
        history,
        'revision 3 paused',
        phase('Paused', (r) => r.status?.currentStepIndex === 1 && r.metadata.generation === 3),
        mark,
      );
      mark = history.mark;
      const abort = await runAction('abort', paused3.obj);
      assert.deepEqual(abort.patch, { status: { abort: true } });
      assert.equal(abort.written.status?.abort, true);
      assert.ok(
        abort.written.metadata.managedFields?.some(
          (f) => f.manager === 'argocd-controller' && f.subresource === 'status',
        ),
        'the action was written through the /status subresource',
      );
      const aborted = await at(history, 'aborted: Degraded', phase('Degraded'), mark);
      const abortedHealth = verdict(aborted.obj);
      assert.equal(abortedHealth.status, 'Degraded');
      assert.match(abortedHealth.message ?? '', /^RolloutAborted: \S/);
      assert.deepEqual(enabledActions(aborted.obj), ['promote-full', 'retry']);

      mark = history.mark;
      assert.deepEqual((await runAction('retry', aborted.obj)).patch, { status: { abort: false } });
      const retried = await at(
        history,
        'retried: paused at the pause step again',
        phase('Paused', (r) => r.status?.currentStepIndex === 1 && r.status.abort !== true),
        mark,
      );
      assert.equal(verdict(retried.obj).status, 'Suspended');

      mark = history.mark;
      assert.deepEqual((await runAction('promote-full', retried.obj)).patch, {
        status: { promoteFull: true, pauseConditions: null },
      });
      const full = await at(
        history,
        'fully promoted after promote-full',
        phase('Healthy', (r) => r.status?.stableRS === retried.obj.status?.currentPodHash),
        mark,
      );
      assert.deepEqual(verdict(full.obj), { status: 'Healthy', message: '' });

      // Every state the controller wrote on the way: health.lua agrees with the phase the
      // plugin reads from it.
      const objs = history.events.filter((e) => e.type !== 'DELETED').map((e) => e.object);
      const toHealth: Record<string, string> = {
        Healthy: 'Healthy',
        Progressing: 'Progressing',
        Paused: 'Suspended',
        Degraded: 'Degraded',
      };
      runLuaMany(HEALTH_LUA, objs, 'health.lua').forEach((outcome, i) => {
        const obj = objs[i] as Rollout;
        assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
        assert.equal(
          (outcome.value as Health).status,
          toHealth[rolloutPhase(obj).phase],
          JSON.stringify(obj.status),
        );
      });
    } finally {
      history.stop();
    }
  });

  it('health.lua on a blue-green: Suspended at BlueGreenPause, Progressing while the cutover is pending', async () => {
    const ns = await testNamespace('argocd-lua-bg');
    await createService(ns, 'web-active', 'web');
    await createService(ns, 'web-preview', 'web');
    const history = await watchRollout(ns, 'web');
    try {
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
            },
          },
        }),
      );
      const first = await at(history, 'first revision Healthy', phase('Healthy'));
      assert.deepEqual(verdict(first.obj), { status: 'Healthy', message: '' });
      let mark = history.mark;
      await setImage(ns, 'web', 'app:2');
      const paused = await at(history, 'at the BlueGreenPause', phase('Paused'), mark);
      assert.deepEqual(verdict(paused.obj), {
        status: 'Suspended',
        message: 'Rollout is paused: BlueGreenPause',
      });
      assert.deepEqual(enabledActions(paused.obj), ['promote', 'promote-full', 'abort']);

      mark = history.mark;
      const promote = await runAction('promote', paused.obj);
      assert.deepEqual(promote.patch, { status: { pauseConditions: null } });
      // The new version scales to 2 and the active Service waits for both pods: Progressing
      // with the controller's message, though controllerPause stays set (Argo's completed
      // pause), not "Waiting for rollout to unpause".
      const cutover = await at(
        history,
        'cutover pending',
        phase('Progressing', (r) => r.status?.message === 'active service cutover pending'),
        mark,
      );
      assert.deepEqual(verdict(cutover.obj), {
        status: 'Progressing',
        message: 'active service cutover pending',
      });
      const done = await at(
        history,
        'Healthy on revision 2',
        phase('Healthy', (r) => r.status?.stableRS === paused.obj.status?.currentPodHash),
        mark,
      );
      assert.deepEqual(verdict(done.obj), { status: 'Healthy', message: '' });

      const objs = history.events.filter((e) => e.type !== 'DELETED').map((e) => e.object);
      const toHealth: Record<string, string> = {
        Healthy: 'Healthy',
        Progressing: 'Progressing',
        Paused: 'Suspended',
        Degraded: 'Degraded',
      };
      runLuaMany(HEALTH_LUA, objs, 'health.lua').forEach((outcome, i) => {
        const obj = objs[i] as Rollout;
        assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
        assert.equal(
          (outcome.value as Health).status,
          toHealth[rolloutPhase(obj).phase],
          JSON.stringify(obj.status),
        );
      });
    } finally {
      history.stop();
    }
  });

  it('an InvalidSpec Rollout is Degraded with the condition message', async () => {
    const ns = await testNamespace('argocd-lua-invalid');
    await createRollout(
      ns,
      rolloutBody('bad', { strategy: { canary: { stableService: 'missing' } } }),
    );
    const bad = await waitForRollout(ns, 'bad', 'InvalidSpec', phase('Degraded'));
    const hs = verdict(bad);
    assert.equal(hs.status, 'Degraded');
    assert.match(hs.message ?? '', /^InvalidSpec: .*Service "missing" not found/);
    assert.deepEqual(
      hs.message,
      bad.status?.message,
      'the same text the controller puts in status.message',
    );
  });
});
