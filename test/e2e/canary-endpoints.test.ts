// The end of a basic canary (no router), on the real control plane: the stable Service's
// EndpointSlices, as the endpoint-slice controller keeps them, never go without a ready
// endpoint while the old stable drains at full weight (src/rollout/canary/services.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { WatchHistory } from './support/history.ts';
import type { Recorded } from './support/history.ts';
import {
  createRollout,
  createService,
  getService,
  installCrds,
  patchStatus,
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

describe('the end of a basic canary', () => {
  it('the stable Service never selects no ready pod: its EndpointSlice keeps ready endpoints from promote to Healthy (Argo: empty while the old stable drains, argo-rollouts#1760)', async () => {
    const ns = await testNamespace('canary-endpoints');
    await createService(ns, 'web-canary', 'web');
    await createService(ns, 'web-stable', 'web');
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
    await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    const paused = await waitForRollout(ns, 'web', 'paused at step 1', phase('Paused'));
    const slices = await WatchHistory.start<EndpointSlice>(
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb-stable`,
    );
    try {
      await slices.until(
        'the stable Service has ready endpoints',
        () => (readyAfterEach(slices.events).at(-1) ?? 0) > 0,
      );
      const from = slices.mark;
      await patchStatus(ns, 'web', { pauseConditions: null });
      await waitForRollout(
        ns,
        'web',
        'fully promoted',
        phase('Healthy', (r) => r.status?.stableRS === paused.status?.currentPodHash),
      );
      // Every state the EndpointSlices passed through, from promote to the end.
      const seen = readyAfterEach(slices.events).slice(from);
      assert.ok(seen.length > 0, 'the EndpointSlices changed on the way');
      assert.ok(!seen.includes(0), `ready endpoints at each change: ${seen.join(' ')}`);
      assert.equal(
        (await getService(ns, 'web-stable')).spec?.selector?.[HASH],
        paused.status?.currentPodHash,
      );
    } finally {
      slices.stop();
    }
  });
});

interface EndpointSlice {
  metadata?: { name?: string };
  endpoints?: { conditions?: { ready?: boolean } }[] | null;
}

/** The ready endpoints of all the slices after each recorded event. */
function readyAfterEach(events: readonly Recorded<EndpointSlice>[]): number[] {
  const latest = new Map<string, EndpointSlice>();
  return events.map((e) => {
    const name = e.object.metadata?.name ?? '';
    if (e.type === 'DELETED') latest.delete(name);
    else latest.set(name, e.object);
    return [...latest.values()]
      .flatMap((s) => s.endpoints ?? [])
      .filter((p) => p.conditions?.ready === true).length;
  });
}
