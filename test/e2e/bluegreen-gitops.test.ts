// GitOps never undoes a blue-green update (issue 21 §6), real controller, local control plane.
// Mid-update (preview on the new hash, paused before promotion) Git's Services are re-applied
// the way the tools do it: server-side apply with force under Argo CD's and Flux's field
// managers, the selector as Git has it (no hash). A Service's selector is an atomic map, so the
// apply takes all of it; the controller must put its hash back at once, never point the active
// Service at the new version before promotion, and the update must go on to the end.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Service } from '../../src/api/index.ts';
import { FIELD_MANAGER, POD_TEMPLATE_HASH_LABEL } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import {
  blueGreenBody,
  selectedHash,
  selectorTrace,
  watchService,
} from './support/bluegreen-history.ts';
import { activeService, previewService } from './support/bluegreen-numbers.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { QUIET_WINDOW_MS } from './support/faults.ts';
import { stopWatches, watchRollout } from './support/history.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const ARGO_CD = 'argocd-controller';
const FLUX = 'kustomize-controller';
/** Generous: the design says "within a second"; this only catches a restore that never comes. */
const RESTORE_BOUND_MS = 10_000;

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
afterEach(stopWatches);
after(() => controller?.kill());

/** Git's copy of a Service of Rollout `app`: the selector without any hash. */
const gitService = (name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app }, ports: [{ port: 80 }] },
});

/** A forced server-side apply under `manager`, as Argo CD or Flux syncs Git. */
async function gitApply(ns: string, name: string, manager: string): Promise<Service> {
  return http.json<Service>(
    'PATCH',
    `/api/v1/namespaces/${ns}/services/${name}?fieldManager=${manager}&force=true`,
    gitService(name, 'app'),
    'application/apply-patch+yaml',
  );
}

/** The managers that own spec.selector through apply. */
function selectorOwners(svc: Service): string[] {
  type Fields = { [k: string]: Fields | undefined };
  return (svc.metadata?.managedFields ?? [])
    .filter((m) => m.operation === 'Apply' && !m.subresource)
    .filter((m) => (m.fieldsV1 as Fields | undefined)?.['f:spec']?.['f:selector'] !== undefined)
    .map((m) => m.manager ?? '')
    .sort();
}

describe("a forced re-apply of Git's Services mid-update", () => {
  it('is put back at once, never sends the active Service to the new version, and the update completes', async (t) => {
    const ns = await testNamespace('bg-gitops');
    // Git created the Services (Argo CD syncs with server-side apply).
    await gitApply(ns, activeService('app'), ARGO_CD);
    await gitApply(ns, previewService('app'), FLUX);
    await createRollout(ns, blueGreenBody('app', { autoPromotionEnabled: false }));
    const healthy = await waitForRollout(
      ns,
      'app',
      'first revision Healthy, active on it',
      phase('Healthy', (r) => r.status?.blueGreen?.activeSelector === r.status?.stableRS),
    );
    const stable = healthy.status?.stableRS ?? '';
    await setImage(ns, 'app', 'app:2');
    const paused = await waitForRollout(
      ns,
      'app',
      'paused before promotion, preview on revision 2',
      phase(
        'Paused',
        (r) =>
          r.status?.currentPodHash !== stable &&
          r.status?.blueGreen?.previewSelector === r.status?.currentPodHash,
      ),
    );
    const current = paused.status?.currentPodHash ?? '';
    assert.equal(paused.status?.blueGreen?.activeSelector, stable);

    const active = await watchService(ns, activeService('app'));
    const preview = await watchService(ns, previewService('app'));
    const rollout = await watchRollout(ns, 'app');
    t.after(() => [active, preview, rollout].forEach((h) => h.stop()));

    // Paused for a person: nothing to write until something happens.
    const quiet = await rollout.window(QUIET_WINDOW_MS);
    assert.deepEqual(
      [...quiet, ...active.events, ...preview.events]
        .filter((e) => e.type === 'MODIFIED')
        .map((e) => `${e.object.kind ?? ''} ${e.object.metadata?.name ?? ''}`),
      [],
      `writes while paused, in ${QUIET_WINDOW_MS} ms`,
    );

    // Argo CD syncs the active Service, Flux the preview one, each with force.
    const cases = [
      { service: activeService('app'), manager: ARGO_CD, history: active, hash: stable },
      { service: previewService('app'), manager: FLUX, history: preview, hash: current },
    ];
    for (const { service, manager, history, hash } of cases) {
      const from = history.mark;
      const started = Date.now();
      const reset = await gitApply(ns, service, manager);
      assert.equal(selectedHash(reset), undefined, `${manager}'s apply took the selector`);
      const at = await history.until(
        `${service} back on ${hash}`,
        (e) => selectedHash(e.object) === hash,
        from,
        RESTORE_BOUND_MS,
      );
      const ms = (history.events[at]?.at ?? 0) - started;
      process.stdout.write(`# ${service} reset by ${manager}, restored in ${ms} ms\n`);
      const restored = history.events[at]?.object;
      assert.deepEqual(
        restored?.spec?.selector,
        { app: 'app', [POD_TEMPLATE_HASH_LABEL]: hash },
        "Git's values kept, the hash back",
      );
      assert.ok(
        restored && selectorOwners(restored).includes(FIELD_MANAGER),
        `the controller owns the selector again: ${restored ? selectorOwners(restored).join(', ') : ''}`,
      );
    }
    const still = await waitForRollout(ns, 'app', 'still paused', phase('Paused'));
    assert.equal(still.status?.currentPodHash, current, 'the same update goes on');
    assert.equal(still.status?.stableRS, stable);
    assert.deepEqual(
      selectorTrace(active.events).filter((h) => h === current),
      [],
      `the active Service never selected revision 2 before promotion: ${selectorTrace(active.events).join(' → ')}`,
    );

    await patchStatus(ns, 'app', { pauseConditions: null });
    const done = await waitForRollout(
      ns,
      'app',
      'promoted: Healthy on revision 2',
      phase(
        'Healthy',
        (r) => r.status?.stableRS === current && r.status?.blueGreen?.activeSelector === current,
      ),
    );
    assert.equal(done.status?.blueGreen?.previewSelector, current);
    const trace = selectorTrace(active.events);
    process.stdout.write(`# active Service: ${trace.join(' → ')}\n`);
    assert.deepEqual(trace, [stable, '-', stable, current], 'active: 1, reset, 1, then 2');

    // Once the update is over, a sync is put back too (steady state: both on revision 2).
    const from = active.mark;
    await gitApply(ns, activeService('app'), ARGO_CD);
    await active.until(
      'the active Service back on revision 2 after a sync at rest',
      (e) => selectedHash(e.object) === current,
      from,
      RESTORE_BOUND_MS,
    );
  });
});
