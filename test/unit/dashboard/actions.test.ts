// The dashboard's actions are the plugin's: the same decisions enable the buttons, the same
// status patch is sent (with the read resourceVersion), and refusals keep their words and status.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout } from '../../../src/api/rollout.ts';
import type { KubeClient } from '../../../src/cli/client.ts';
import { pluginActions } from '../../../src/cli/dashboard/actions.ts';
import { CliError } from '../../../src/cli/errors.ts';
import { NOW, pausedStatus, replicaSet, rollout } from '../cli/fixtures.ts';

function fakeClient(ro: Rollout, refuse?: CliError) {
  const patches: object[] = [];
  const specPatches: unknown[] = [];
  const client = {
    getRollout: () => Promise.resolve(ro),
    patchRolloutStatus: (_ns: string, _name: string, patch: object) => {
      if (refuse) return Promise.reject(refuse);
      patches.push(patch);
      return Promise.resolve(ro);
    },
    patchRollout: (_ns: string, _name: string, patch: unknown) => {
      specPatches.push(patch);
      return Promise.resolve(ro);
    },
    listReplicaSets: () =>
      Promise.resolve({
        items: [replicaSet('5t4bl3', 1, 5, 'nginx:1.25'), replicaSet('c4n4ry', 2, 1, 'nginx:1.26')],
      }),
  } as unknown as KubeClient;
  return { client, patches, specPatches };
}

const deps = {
  now: () => NOW,
  env: {},
  connect: () => Promise.reject(new Error('not here')),
  onInterrupt: () => () => undefined,
  readStdin: () => Promise.resolve(''),
};

describe('dashboard actions', () => {
  it('enables what the plugin would write, and says the plugin’s refusal for the rest', () => {
    const { client } = fakeClient(rollout(pausedStatus));
    const offers = pluginActions(client, deps).offers(rollout(pausedStatus), NOW);
    const by = Object.fromEntries(offers.map((o) => [o.action, o]));
    assert.deepEqual(
      offers.map((o) => o.action),
      [
        'promote',
        'promote-full',
        'pause',
        'resume',
        'abort',
        'retry',
        'approve',
        'reject',
        'restart',
        'set-image',
        'undo',
      ],
    );
    assert.equal(by['promote']?.enabled, true);
    assert.equal(by['abort']?.enabled, true);
    assert.equal(by['retry']?.enabled, false);
    assert.equal(
      by['retry']?.note,
      "rollout 'web' is not aborted; retry only restarts an aborted update",
    );
    assert.equal(by['resume']?.enabled, false);
    assert.equal(by['promote']?.confirm, 'Promote web?');
  });

  it('promote sends the plugin’s status patch with the resourceVersion it read', async () => {
    const { client, patches } = fakeClient(rollout(pausedStatus));
    const result = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'promote',
    });
    assert.deepEqual(result, { ok: true, message: "rollout 'web' promoted", status: 200 });
    assert.deepEqual(patches, [
      { metadata: { resourceVersion: '10' }, status: { pauseConditions: null } },
    ]);
  });

  it('an RBAC refusal keeps its words and its 403', async () => {
    const forbidden = new CliError('forbidden: user "v" cannot patch rollouts/status', {
      httpStatus: 403,
    });
    const { client } = fakeClient(rollout(pausedStatus), forbidden);
    const result = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'promote',
    });
    assert.deepEqual(result, { ok: false, message: forbidden.message, status: 403 });
  });

  it('an action the plugin refuses writes nothing and answers 409 with its reason', async () => {
    const { client, patches } = fakeClient(rollout(pausedStatus));
    const result = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'retry',
    });
    assert.equal(result.ok, false);
    assert.equal(result.status, 409);
    assert.match(result.message, /is not aborted/);
    assert.deepEqual(patches, []);
  });

  it('approve and reject apply only at an approval step, and say so in the plugin’s words', () => {
    const { client } = fakeClient(rollout(pausedStatus));
    const by = Object.fromEntries(
      pluginActions(client, deps)
        .offers(rollout({ ...pausedStatus, observedGeneration: '2' }), NOW)
        .map((o) => [o.action, o]),
    );
    assert.equal(by['approve']?.enabled, false);
    assert.match(by['approve']?.note ?? '', /is not waiting for approval/);
    assert.deepEqual(
      by['reject']?.inputs?.map((i) => i.name),
      ['comment'],
    );
  });

  it('set image asks for the container (the template’s, or every one) and the image', async () => {
    const { client, specPatches } = fakeClient(rollout(pausedStatus));
    const offer = pluginActions(client, deps)
      .offers(rollout(pausedStatus), NOW)
      .find((o) => o.action === 'set-image');
    assert.deepEqual(offer?.inputs?.[0]?.options, ['web', '*']);
    const result = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'set-image',
      inputs: { container: 'web', image: 'nginx:1.27' },
    });
    assert.equal(result.ok, true, result.message);
    assert.deepEqual(specPatches, [
      [
        { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'web' },
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
      ],
    ]);
    const bad = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'set-image',
      inputs: { container: 'web', image: 'two words' },
    });
    assert.deepEqual([bad.ok, bad.status], [false, 409]);
    assert.equal(specPatches.length, 1, 'nothing more written');
  });

  it('restart writes spec.restartAt = now; undo a revision that is not a number writes nothing', async () => {
    const { client, specPatches } = fakeClient(rollout(pausedStatus));
    const restarted = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'restart',
    });
    assert.equal(restarted.ok, true, restarted.message);
    assert.deepEqual(specPatches, [
      {
        spec: {
          restartAt: new Date(Math.ceil(NOW / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
        },
      },
    ]);
    const undone = await pluginActions(client, deps).run({
      namespace: 'shop',
      name: 'web',
      action: 'undo',
      inputs: { revision: 'one' },
    });
    assert.deepEqual(
      [undone.ok, undone.message],
      [false, 'invalid revision "one": use a revision number'],
    );
    assert.equal(specPatches.length, 1);
  });
});
