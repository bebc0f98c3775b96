// Several controllers side by side (--instance-id, as Argo's): each handles only the Rollouts
// labelled with its id, and the AnalysisRuns made for them; a Rollout labelled for no running
// instance is left alone; each instance elects its own leader on its own Lease.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { QUIET_WINDOW_MS } from './support/faults.ts';
import {
  createRollout,
  getRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitForList,
  waitForRollout,
} from './support/rollouts.ts';

const LABEL = 'stepwise.dev/controller-instance-id';
const controllers: ControllerProcess[] = [];

before(async () => {
  await installCrds();
  for (const id of ['team-a', 'team-b']) {
    controllers.push(
      await startController({
        identity: `ctl-${id}`,
        args: ['--leader-elect=true', `--instance-id=${id}`, '--lease-namespace=default'],
      }),
    );
  }
  // Each takes the Lease of its own instance, so both work at once.
  for (const c of controllers) await c.waitForLog((l) => l.msg === 'workers started');
});
after(async () => {
  for (const c of controllers) await c.stop();
});

function labelled(name: string, id: string | undefined): Rollout {
  const body = rolloutBody(name, {
    strategy: {
      canary: {
        steps: [{ setWeight: 25 }, { pause: {} }],
        analysis: { templates: [{ templateName: 'ok' }] },
      },
    },
  });
  if (id !== undefined) body.metadata.labels = { [LABEL]: id };
  return body;
}

/** Who recorded the events about `name` (events.k8s.io reportingInstance). */
async function reporters(ns: string, name: string): Promise<string[]> {
  const list = await http.json<{
    items: { regarding?: { name?: string }; reportingInstance?: string }[];
  }>('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
  return [
    ...new Set(
      list.items.filter((e) => e.regarding?.name === name).map((e) => e.reportingInstance ?? ''),
    ),
  ];
}

describe('--instance-id', () => {
  it('each instance handles its own Rollouts and runs; an unclaimed one is left alone', async () => {
    const ns = await testNamespace('instances');
    await http.json('POST', `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/analysistemplates`, {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'ok' },
      spec: {
        metrics: [
          {
            name: 'always',
            provider: {
              job: {
                spec: {
                  template: {
                    spec: {
                      restartPolicy: 'Never',
                      containers: [{ name: 'check', image: 'registry.invalid/check:1' }],
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    await createRollout(ns, labelled('alpha', 'team-a'));
    await createRollout(ns, labelled('beta', 'team-b'));
    await createRollout(ns, labelled('gamma', 'team-c'));
    await waitForRollout(ns, 'alpha', 'alpha Healthy', phase('Healthy'));
    await waitForRollout(ns, 'beta', 'beta Healthy', phase('Healthy'));

    for (const name of ['alpha', 'beta']) await setImage(ns, name, 'app:2');
    await waitForRollout(ns, 'alpha', 'alpha paused', phase('Paused'));
    await waitForRollout(ns, 'beta', 'beta paused', phase('Paused'));
    // The background runs carry their Rollout's instance, so only that instance measures them.
    const runs = await waitForList(
      'a background AnalysisRun for each',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/analysisruns`,
      (items: AnalysisRun[]) => items.length === 2,
    );
    assert.deepEqual(
      runs.map((r) => [r.metadata.ownerReferences?.[0]?.name, r.metadata.labels?.[LABEL]]).sort(),
      [
        ['alpha', 'team-a'],
        ['beta', 'team-b'],
      ],
    );
    for (const name of ['alpha', 'beta']) await patchStatus(ns, name, { pauseConditions: null });
    await waitForRollout(ns, 'alpha', 'alpha Healthy again', phase('Healthy'));
    await waitForRollout(ns, 'beta', 'beta Healthy again', phase('Healthy'));

    assert.deepEqual(await reporters(ns, 'alpha'), ['ctl-team-a']);
    assert.deepEqual(await reporters(ns, 'beta'), ['ctl-team-b']);
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    const gamma = await getRollout(ns, 'gamma');
    assert.equal(gamma.status, undefined, 'no instance team-c runs: nobody wrote its status');
    assert.deepEqual(await reporters(ns, 'gamma'), []);
  });

  it('each instance holds its own Lease', async () => {
    for (const id of ['team-a', 'team-b']) {
      const lease = await http.json<{ spec?: { holderIdentity?: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/default/leases/stepwise-controller-leader-${id}`,
      );
      assert.equal(lease.spec?.holderIdentity, `ctl-${id}`);
    }
  });
});
