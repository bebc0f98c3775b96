// The dashboard's shared watches: one list + watch per kind, whatever the number of viewers; a
// kind the user may not list is said on the page while the others carry on; a watch event
// reaches the hub's viewers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient, WatchHandler, WatchResource } from '../../../src/cli/client.ts';
import { startWatches } from '../../../src/cli/dashboard/watches.ts';
import { CliError } from '../../../src/cli/errors.ts';
import { pausedStatus, rollout } from '../cli/fixtures.ts';

function fakeClient(forbidden: ReadonlySet<WatchResource>) {
  const calls: string[] = [];
  const handlers = new Map<WatchResource, WatchHandler>();
  const client = {
    listObjects: (resource: WatchResource, namespace: string | undefined) => {
      calls.push(`list ${resource} ${namespace ?? '*'}`);
      if (forbidden.has(resource)) {
        return Promise.reject(
          new CliError(`forbidden: user "v" cannot list ${resource} in all namespaces`, {
            httpStatus: 403,
          }),
        );
      }
      const items = resource === 'rollouts' ? [rollout(pausedStatus)] : [];
      return Promise.resolve({ items, resourceVersion: '5' });
    },
    watch: (
      resource: WatchResource,
      namespace: string | undefined,
      _q: object,
      on: WatchHandler,
    ) => {
      calls.push(`watch ${resource} ${namespace ?? '*'}`);
      handlers.set(resource, on);
      let end: (v: unknown) => void = () => undefined;
      return { done: new Promise((r) => (end = r)), stop: () => end(null) };
    },
  } as unknown as KubeClient;
  return { client, calls, handlers };
}

describe('dashboard watches', () => {
  it('lists each kind once over all namespaces, and says which it may not read', async () => {
    const { client, calls } = fakeClient(new Set(['pods']));
    const w = startWatches(client, undefined);
    await w.started;
    assert.deepEqual(calls.filter((c) => c.startsWith('list')).sort(), [
      'list analysisruns *',
      'list events *',
      'list pods *',
      'list replicasets *',
      'list rollouts *',
    ]);
    assert.deepEqual(w.hub.problems, [
      'pods: forbidden: user "v" cannot list pods in all namespaces',
    ]);
    assert.equal(w.hub.rows().length, 1);
    assert.equal(w.hub.scope, 'all namespaces');
    w.stop();
  });

  it('passes a watch event on to the viewers, in the namespace asked for', async () => {
    const { client, calls, handlers } = fakeClient(new Set());
    const w = startWatches(client, 'shop');
    await w.started;
    assert.ok(calls.includes('watch rollouts shop'));
    const heard = new Promise<void>((resolve) => w.hub.subscribe(resolve));
    const ro = rollout(pausedStatus);
    handlers.get('rollouts')?.('ADDED', {
      ...ro,
      metadata: { ...ro.metadata, name: 'api', uid: 'uid-api', resourceVersion: '6' },
    });
    await heard;
    assert.deepEqual(
      w.hub.rows().map((r) => r.key),
      ['shop/api', 'shop/web'],
    );
    w.stop();
  });
});
