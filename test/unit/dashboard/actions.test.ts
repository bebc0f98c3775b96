// The dashboard's actions are the plugin's: the same decisions enable the buttons, the same
// status patch is sent (with the read resourceVersion), and refusals keep their words and status.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout } from '../../../src/api/rollout.ts';
import type { KubeClient } from '../../../src/cli/client.ts';
import { pluginActions } from '../../../src/cli/dashboard/actions.ts';
import { CliError } from '../../../src/cli/errors.ts';
import { NOW, pausedStatus, rollout } from '../cli/fixtures.ts';

function fakeClient(ro: Rollout, refuse?: CliError) {
  const patches: object[] = [];
  const client = {
    getRollout: () => Promise.resolve(ro),
    patchRolloutStatus: (_ns: string, _name: string, patch: object) => {
      if (refuse) return Promise.reject(refuse);
      patches.push(patch);
      return Promise.resolve(ro);
    },
  } as unknown as KubeClient;
  return { client, patches };
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
      ['promote', 'promote-full', 'pause', 'resume', 'abort', 'retry'],
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
});
