// Resilience end to end: a controller restart in the middle of a rollout resumes exactly where
// status says it was, and two controller processes hand leadership over through the Lease.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { ControllerProcess, startController } from './support/controller.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  rolloutBody,
  setImage,
  waitFor,
  phase,
  waitForRollout,
} from './support/rollouts.ts';

before(installCrds);

describe('controller restart mid-rollout', () => {
  it('resumes from status: same step, same pause start, no restart of the steps', async () => {
    const ns = await testNamespace('restart-ctrl');
    const first = await startController();
    await createRollout(
      ns,
      rolloutBody('web', {
        strategy: {
          canary: {
            steps: [
              { setWeight: 25 },
              { pause: {} },
              { setWeight: 50 },
              { pause: { duration: '30s' } },
              { setWeight: 75 },
            ],
          },
        },
      }),
    );
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(
      ns,
      'web',
      'paused at the first pause',
      phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );
    await patchStatus(ns, 'web', { pauseConditions: null });
    const timed = await waitForRollout(
      ns,
      'web',
      'in the timed pause',
      phase('Paused', (r) => r.status?.currentStepIndex === 3),
    );
    const pauseStart = timed.status?.pauseConditions?.[0]?.startTime;
    assert.ok(pauseStart);

    await first.kill(); // a crash, not a graceful stop
    const second = await startController();
    // The new process has read everything and planned: nothing to do until the pause ends.
    await second.waitForLog((l) => l.msg === 'workers started');
    const indexes: number[] = [];
    const closeWatch = await http.watch(
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts?fieldSelector=metadata.name%3Dweb`,
      (e) => {
        const r = e.object as unknown as Rollout;
        if (r.status?.currentStepIndex !== undefined) indexes.push(r.status.currentStepIndex);
      },
    );
    try {
      await patchStatus(ns, 'web', { pauseConditions: null }); // promote past the timed pause
      const done = await waitForRollout(
        ns,
        'web',
        'Healthy after resuming',
        phase('Healthy', (r) => r.status?.stableRS === r.status?.currentPodHash),
      );
      assert.equal(done.status?.currentStepIndex, 5);
    } finally {
      closeWatch.close();
    }
    assert.ok(
      indexes.every((i) => i >= 3),
      `steps never went back: ${indexes.join(',')}`,
    );
    const events = await http.json<{ items: { reason: string; message: string }[] }>(
      'GET',
      `/api/v1/namespaces/${ns}/events`,
    );
    const updated = events.items.filter((e) => e.reason === 'RolloutUpdated');
    assert.equal(updated.length, 1, 'the update to revision 2 started once');
    await second.stop();
  });

  it('a restart during a timed pause keeps the pause start, so the pause is not restarted', async () => {
    const ns = await testNamespace('restart-pause');
    const first = await startController();
    await createRollout(
      ns,
      rolloutBody('api', {
        strategy: { canary: { steps: [{ setWeight: 50 }, { pause: { duration: '4s' } }] } },
      }),
    );
    await waitForRollout(ns, 'api', 'Healthy', phase('Healthy'));
    await setImage(ns, 'api', 'app:2');
    const paused = await waitForRollout(ns, 'api', 'paused', phase('Paused'));
    const start = paused.status?.pauseConditions?.[0]?.startTime;
    await first.kill();
    const second = await startController();
    const seen: (string | undefined)[] = [];
    const closeWatch = await http.watch(
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts?fieldSelector=metadata.name%3Dapi`,
      (e) => seen.push((e.object as unknown as Rollout).status?.pauseConditions?.[0]?.startTime),
    );
    try {
      await waitForRollout(
        ns,
        'api',
        'Healthy after the pause ends',
        phase('Healthy', (r) => r.status?.stableRS === r.status?.currentPodHash),
      );
    } finally {
      closeWatch.close();
    }
    assert.ok(
      seen.filter((s) => s !== undefined).every((s) => s === start),
      `pause start kept: ${seen.join(',')}`,
    );
    await second.stop();
  });
});

describe('leader election', () => {
  it('two processes: one leads, the other takes over when the leader stops', async () => {
    const ns = await testNamespace('leader');
    const args = (id: string) => [
      '--leader-elect=true',
      `--lease-namespace=${ns}`,
      `--identity=${id}`,
    ];
    const a = new ControllerProcess({ args: args('replica-a') });
    await a.ready();
    await a.waitForLog((l) => l.msg === 'leader election: became leader');
    const b = new ControllerProcess({ args: args('replica-b') });
    await b.ready();
    const lease = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
    type Lease = { spec?: { holderIdentity?: string } };
    await waitFor(
      'replica-a holds the Lease',
      lease,
      a.leaseName,
      (l: Lease) => l.spec?.holderIdentity === 'replica-a',
    );
    assert.ok(!b.logs.some((l) => l.msg === 'leader election: became leader'), 'only one leader');

    await createRollout(ns, rolloutBody('web', { replicas: 2 }));
    await waitForRollout(ns, 'web', 'Healthy under replica-a', phase('Healthy'));

    assert.equal(await a.stop(), 0, 'graceful stop exits 0');
    await b.waitForLog((l) => l.msg === 'leader election: became leader', 20_000);
    await waitFor(
      'replica-b holds the Lease',
      lease,
      a.leaseName,
      (l: Lease) => l.spec?.holderIdentity === 'replica-b',
    );
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'canary paused under replica-b', phase('Paused'));
    assert.ok(a.logs.some((l) => l.msg === 'leader election: released the lease'));
    await b.stop();
  });
});
