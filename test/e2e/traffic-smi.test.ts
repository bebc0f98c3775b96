// SMI traffic end to end: the real controller generates a TrafficSplit (split.smi-spec.io
// v1alpha4, the CRD Argo Rollouts' e2e tests install) owned by the Rollout, moves its backends'
// weights at every step, moves traffic back before any pod goes on abort, and refuses a
// TrafficSplit of that name that it does not own.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CanaryStrategy, Rollout } from '../../src/api/index.ts';
import { installRouterCrds } from '../cluster/router-crds.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { WatchHistory, stopWatches } from './support/history.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForRollout,
} from './support/rollouts.ts';
import {
  ARGOCD,
  applyAs,
  collectionPath,
  serviceManifest,
  abortMovesTrafficFirst,
} from './support/traffic.ts';

const SMI = 'split.smi-spec.io/v1alpha4';
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  await installRouterCrds('experimental');
  controller = await startController(); // after the CRDs: it watches what the cluster serves
});
after(() => controller?.kill());
afterEach(stopWatches);

interface TrafficSplit {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  spec: { service: string; backends: { service: string; weight: number }[] };
}

/** A Rollout as Argo CD syncs it: with Argo CD's tracking label and annotation. */
function rollout(name: string, canary: Partial<CanaryStrategy> = {}): Rollout {
  const body = rolloutBody(name, {
    strategy: {
      canary: {
        canaryService: 'web-canary',
        stableService: 'web-stable',
        trafficRouting: { smi: { rootService: 'web' } },
        steps: [{ setWeight: 30 }, { pause: {} }, { setWeight: 60 }, { pause: {} }],
        ...canary,
      },
    },
  });
  return {
    ...body,
    metadata: {
      ...body.metadata,
      labels: { 'app.kubernetes.io/instance': 'shop' },
      annotations: { 'argocd.argoproj.io/tracking-id': `shop:stepwise.dev/Rollout:x/${name}` },
    },
  };
}

async function deployed(prefix: string, canary: Partial<CanaryStrategy> = {}): Promise<string> {
  const ns = await testNamespace(prefix);
  for (const svc of ['web', 'web-stable', 'web-canary']) {
    await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
  }
  await createRollout(ns, rollout('web', canary));
  await waitForRollout(ns, 'web', 'first revision Healthy', phase('Healthy'));
  return ns;
}

const splits = (ns: string) => collectionPath(SMI, 'TrafficSplit', ns);
const getSplit = (ns: string) => http.json<TrafficSplit>('GET', `${splits(ns)}/web`);
const watchSplit = (ns: string) =>
  WatchHistory.start<TrafficSplit>(`${splits(ns)}?fieldSelector=metadata.name%3Dweb`);
const weightOf = (ts: TrafficSplit, service: string) =>
  ts.spec.backends.find((b) => b.service === service)?.weight;
function canaryWeights(history: WatchHistory<TrafficSplit>): number[] {
  const out: number[] = [];
  for (const e of history.events) {
    const w = weightOf(e.object, 'web-canary') ?? -1;
    if (out.at(-1) !== w) out.push(w);
  }
  return out;
}
const paused = (index: number) =>
  phase('Paused', (r: Rollout) => r.status?.currentStepIndex === index);
const resume = (ns: string) => patchStatus(ns, 'web', { pauseConditions: null });

describe('SMI TrafficSplit', () => {
  it('is generated at 0, owned by the Rollout, follows 30, 60, 100, and is back at 0 after the switch', async () => {
    const ns = await deployed('smi-walk');
    const ts = await watchSplit(ns);
    const first = await getSplit(ns);
    const ro = await http.json<Rollout>(
      'GET',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/web`,
    );
    assert.deepEqual(first.spec, {
      service: 'web',
      backends: [
        { service: 'web-canary', weight: 0 },
        { service: 'web-stable', weight: 100 },
      ],
    });
    const owner = first.metadata.ownerReferences?.[0];
    assert.deepEqual(
      [owner?.kind, owner?.name, owner?.uid, owner?.controller],
      ['Rollout', 'web', ro.metadata.uid, true],
    );
    assert.equal(first.metadata.labels?.['app.kubernetes.io/instance'], undefined);
    assert.equal(first.metadata.annotations?.['argocd.argoproj.io/tracking-id'], undefined);
    await setImage(ns, 'web', 'app:2');
    const at30 = await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    assert.deepEqual(await split(ns, at30), [2, 4]);
    assert.equal(weightOf(await getSplit(ns), 'web-stable'), 70);
    const from = ts.mark;
    await ts.window(1_500);
    assert.equal(ts.events.length, from, 'nothing rewritten at the pause: observe(apply(s)) == s');
    await resume(ns);
    await waitForRollout(ns, 'web', 'paused at 60%', paused(3));
    await resume(ns);
    await waitForRollout(
      ns,
      'web',
      'promoted',
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 4,
    );
    await ts.until(
      'weights back on the stable',
      (e) => weightOf(e.object, 'web-stable') === 100 && canaryWeights(ts).length > 1,
    );
    assert.deepEqual(canaryWeights(ts), [0, 30, 60, 100, 0]);
    ts.stop();
  });

  it('abort: traffic back to the stable first, the canary scaled down after abortScaleDownDelaySeconds', async () => {
    const ns = await deployed('smi-abort', { abortScaleDownDelaySeconds: 2 });
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at 30%', paused(1));
    const ts = await watchSplit(ns);
    await abortMovesTrafficFirst(ns, () =>
      ts.until('weight 0', (e) => weightOf(e.object, 'web-canary') === 0),
    );
    assert.deepEqual(canaryWeights(ts), [30, 0]);
    ts.stop();
  });
});

describe('bad input', () => {
  it('a TrafficSplit of that name that the Rollout does not own is InvalidSpec naming it, and stays as it was', async () => {
    const ns = await testNamespace('smi-theirs');
    for (const svc of ['web', 'web-stable', 'web-canary']) {
      await applyAs(ARGOCD, ns, serviceManifest(svc, 'web'));
    }
    const theirs = {
      apiVersion: SMI,
      kind: 'TrafficSplit',
      metadata: { name: 'web' },
      spec: { service: 'web', backends: [{ service: 'web-stable', weight: 100 }] },
    };
    await applyAs(ARGOCD, ns, theirs);
    await createRollout(ns, rollout('web'));
    const invalid = await waitForRollout(
      ns,
      'web',
      'InvalidSpec',
      (r) => r.status?.conditions?.some((c) => c.type === 'InvalidSpec') === true,
    );
    assert.match(
      invalid.status?.message ?? '',
      new RegExp(`TrafficSplit "${ns}/web" exists and is not owned by Rollout "web"`),
    );
    assert.deepEqual((await getSplit(ns)).spec, theirs.spec);
  });
});
