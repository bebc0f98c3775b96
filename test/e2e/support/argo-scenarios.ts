/**
 * The states the takeover tests have Argo Rollouts' controller walk its Rollouts to, in one
 * namespace, each driven the way a person would (create, change the image) and waited for until
 * Argo has settled: the phase, the condition of the same name, and the Services switched (Argo
 * writes them after the status). Each resolves with the hashes Argo left.
 */
import type { Rollout } from '../../../src/api/index.ts';
import { ARGO_API } from './argo.ts';
import { createService, http, rolloutBody, waitFor } from './rollouts.ts';

const HASH = 'rollouts-pod-template-hash';

/** What Argo left: the stable ReplicaSet's hash and the current template's. */
export interface ArgoLeft {
  readonly stable: string;
  readonly current: string;
}

export const CANARY_STEPS = [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }];

/** An argoproj.io Rollout: image `registry.invalid/app:1`, the given strategy and replicas. */
export function argoRollout(
  name: string,
  strategy: Rollout['spec']['strategy'],
  replicas = 4,
): Rollout {
  return { ...rolloutBody(name, { strategy, replicas }), apiVersion: 'argoproj.io/v1alpha1' };
}

async function createArgoRollout(ns: string, body: Rollout): Promise<void> {
  await http.json('POST', `${ARGO_API}/namespaces/${ns}/rollouts`, body);
}

async function setArgoImage(ns: string, name: string, image: string): Promise<void> {
  await http.json(
    'PATCH',
    `${ARGO_API}/namespaces/${ns}/rollouts/${name}?fieldManager=kubectl`,
    {
      spec: {
        template: { spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] } },
      },
    },
    'application/merge-patch+json',
  );
}

/**
 * Waits until Argo reports `phase` for the latest spec, settled (the condition of the same name
 * True: Argo sets it in a later write than the phase), and `extra` holds.
 */
export function waitForArgo(
  ns: string,
  name: string,
  what: string,
  phase: 'Healthy' | 'Paused',
  extra: (r: Rollout) => boolean = () => true,
): Promise<Rollout> {
  return waitFor(
    `Argo: ${name} ${what}`,
    `${ARGO_API}/namespaces/${ns}/rollouts`,
    name,
    (r: Rollout) =>
      r.status?.phase === phase &&
      r.status.observedGeneration === String(r.metadata.generation) &&
      r.status.conditions?.some((c) => c.type === phase && c.status === 'True') === true &&
      extra(r),
  );
}

/** Waits until Service `name` selects pods of hash `hash` (Argo switches them after status). */
async function waitForSelector(ns: string, name: string, hash: string | undefined): Promise<void> {
  await waitFor(
    `Service ${name} selecting ${hash}`,
    `/api/v1/namespaces/${ns}/services`,
    name,
    (svc: { spec?: { selector?: Record<string, string> } }) => svc.spec?.selector?.[HASH] === hash,
  );
}

/** Argo: a canary, first version Healthy, then a second version to its first pause. */
export async function canaryToFirstPause(ns: string): Promise<ArgoLeft> {
  await createService(ns, 'web-canary', 'web');
  await createService(ns, 'web-stable', 'web');
  await createArgoRollout(
    ns,
    argoRollout('web', {
      canary: { canaryService: 'web-canary', stableService: 'web-stable', steps: CANARY_STEPS },
    }),
  );
  await waitForArgo(ns, 'web', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 4);
  await setArgoImage(ns, 'web', 'app:2');
  const paused = await waitForArgo(
    ns,
    'web',
    'paused at step 1 with 4 available',
    'Paused',
    (r) => r.status?.currentStepIndex === 1 && r.status.availableReplicas === 4,
  );
  await waitForSelector(ns, 'web-canary', paused.status?.currentPodHash);
  await waitForSelector(ns, 'web-stable', paused.status?.stableRS);
  return { stable: paused.status?.stableRS ?? '', current: paused.status?.currentPodHash ?? '' };
}

/**
 * Argo: a canary whose second version walks its one step to Healthy, the first ReplicaSet at 0.
 * No pause: a `promote --full` (promoteFull: true on status) sent within a second of Argo's
 * pause was lost in about half of the runs (Argo v1.9.2 logged no event for it and never went
 * on), and a takeover test must not hang on Argo.
 */
export async function canaryCompleted(ns: string): Promise<ArgoLeft> {
  await createService(ns, 'steady-canary', 'steady');
  await createService(ns, 'steady-stable', 'steady');
  await createArgoRollout(
    ns,
    argoRollout('steady', {
      canary: {
        canaryService: 'steady-canary',
        stableService: 'steady-stable',
        steps: [{ setWeight: 50 }],
      },
    }),
  );
  await waitForArgo(ns, 'steady', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 4);
  await setArgoImage(ns, 'steady', 'app:2');
  const done = await waitForArgo(
    ns,
    'steady',
    'Healthy on the second version',
    'Healthy',
    (r) =>
      r.status?.stableRS === r.status?.currentPodHash &&
      r.metadata.annotations?.['rollout.argoproj.io/revision'] === '2' &&
      r.status?.availableReplicas === 4 &&
      r.status.replicas === 4,
  );
  await waitForSelector(ns, 'steady-canary', done.status?.stableRS);
  await waitForSelector(ns, 'steady-stable', done.status?.stableRS);
  return { stable: done.status?.stableRS ?? '', current: done.status?.currentPodHash ?? '' };
}

/** Argo: a blue-green Rollout (3 replicas, no auto-promotion) paused before its switch. */
export async function blueGreenBeforeSwitch(ns: string): Promise<ArgoLeft> {
  await createService(ns, 'bg-active', 'bg');
  await createService(ns, 'bg-preview', 'bg');
  await createArgoRollout(
    ns,
    argoRollout(
      'bg',
      {
        blueGreen: {
          activeService: 'bg-active',
          previewService: 'bg-preview',
          autoPromotionEnabled: false,
        },
      },
      3,
    ),
  );
  await waitForArgo(ns, 'bg', 'Healthy', 'Healthy', (r) => r.status?.availableReplicas === 3);
  await setArgoImage(ns, 'bg', 'app:2');
  const paused = await waitForArgo(
    ns,
    'bg',
    'paused before the switch with the preview up',
    'Paused',
    (r) =>
      (r.status?.pauseConditions ?? []).some((c) => c.reason === 'BlueGreenPause') &&
      r.status?.availableReplicas === 3,
  );
  await waitForSelector(ns, 'bg-preview', paused.status?.currentPodHash);
  await waitForSelector(ns, 'bg-active', paused.status?.stableRS);
  return { stable: paused.status?.stableRS ?? '', current: paused.status?.currentPodHash ?? '' };
}

/** Argo: a canary's first version Healthy (4 pods, both Services on its hash). */
export async function canaryFirstVersion(ns: string, name: string): Promise<ArgoLeft> {
  await createService(ns, `${name}-canary`, name);
  await createService(ns, `${name}-stable`, name);
  await createArgoRollout(
    ns,
    argoRollout(name, {
      canary: {
        canaryService: `${name}-canary`,
        stableService: `${name}-stable`,
        steps: CANARY_STEPS,
      },
    }),
  );
  const healthy = await waitForArgo(
    ns,
    name,
    'Healthy',
    'Healthy',
    (r) => r.status?.availableReplicas === 4,
  );
  await waitForSelector(ns, `${name}-stable`, healthy.status?.stableRS);
  return { stable: healthy.status?.stableRS ?? '', current: healthy.status?.currentPodHash ?? '' };
}
