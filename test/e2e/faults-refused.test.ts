// A template the API server refuses (issue 6, item 8): the CRD cannot check a pod template, so
// the refusal comes when the ReplicaSet is created. As in Argo Rollouts, the Rollout must show
// it (phase Degraded, a ReplicaFailure condition and a Warning event carrying the server's
// message), stop writing, and recover once the template is fixed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Rollout } from '../../src/api/index.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { QUIET_WINDOW_MS, waitForWarnings } from './support/faults.ts';
import { watchRollout } from './support/history.ts';
import {
  createRollout,
  installCrds,
  patchSpec,
  phase,
  rolloutBody,
  waitForRollout,
} from './support/rollouts.ts';

let controller: ControllerProcess;
before(async () => {
  await installCrds();
  controller = await startController();
});
after(() => controller?.kill());

const TOO_LONG = 'x'.repeat(64);
const containers = (image: string, name = 'app') => [{ name, image: `registry.invalid/${image}` }];
/** No steps: once the template is fixed the update runs straight to Healthy. */
const PLAIN = { strategy: { canary: { maxSurge: 1, maxUnavailable: 0 } } };

interface RefusedCase {
  readonly name: string;
  /** Spec merge patch that makes the next ReplicaSet unacceptable to the API server. */
  readonly breaks: object;
  /** A part of the API server's refusal that the condition and the event must carry. */
  readonly serverSays: string;
  /** Spec merge patch back to a valid template, with a new image. */
  readonly fix: object;
}

const CASES: readonly RefusedCase[] = [
  {
    name: '(a) no containers',
    breaks: { template: { spec: { containers: [] } } },
    serverSays: 'spec.template.spec.containers',
    fix: { template: { spec: { containers: containers('app:2') } } },
  },
  {
    name: '(b) an invalid container name',
    breaks: { template: { spec: { containers: containers('app:1', 'Bad_Name') } } },
    serverSays: 'Bad_Name',
    fix: { template: { spec: { containers: containers('app:2') } } },
  },
  {
    name: '(c) a 64-character label value',
    breaks: { template: { metadata: { labels: { extra: TOO_LONG } } } },
    serverSays: 'must be no more than 63',
    fix: {
      template: {
        metadata: { labels: { extra: null } },
        spec: { containers: containers('app:2') },
      },
    },
  },
  {
    name: '(d) a non-ASCII label value',
    breaks: { template: { metadata: { labels: { extra: 'café' } } } },
    serverSays: 'café',
    fix: {
      template: {
        metadata: { labels: { extra: null } },
        spec: { containers: containers('app:2') },
      },
    },
  },
  {
    name: '(e) a 64-character canaryMetadata label on an update',
    breaks: {
      strategy: { canary: { canaryMetadata: { labels: { extra: TOO_LONG } } } },
      template: { spec: { containers: containers('app:2') } },
    },
    serverSays: 'must be no more than 63',
    fix: {
      strategy: { canary: { canaryMetadata: null } },
      template: { spec: { containers: containers('app:3') } },
    },
  },
];

const replicaFailure = (r: Rollout) =>
  r.status?.conditions?.find((c) => c.type === 'ReplicaFailure');

/** Degraded with a ReplicaFailure/True/ReplicaSetCreateError condition quoting the server. */
const refused = (serverSays: string) => (r: Rollout) =>
  r.status?.phase === 'Degraded' &&
  replicaFailure(r)?.status === 'True' &&
  replicaFailure(r)?.reason === 'ReplicaSetCreateError' &&
  (replicaFailure(r)?.message ?? '').includes(serverSays);

describe('an update to a template the API server refuses', () => {
  for (const c of CASES) {
    it(`${c.name}: Degraded, ReplicaFailure, a Warning event, quiet; the fix recovers`, async (t) => {
      const ns = await testNamespace('refused');
      await createRollout(ns, rolloutBody('r', PLAIN));
      await waitForRollout(ns, 'r', 'Healthy', phase('Healthy'));
      const history = await watchRollout(ns, 'r');
      t.after(() => history.stop());
      await patchSpec(ns, 'r', c.breaks);
      const at = await history
        .until('Degraded with ReplicaFailure', (e) => refused(c.serverSays)(e.object))
        .catch((err: unknown) => {
          const last = history.events.at(-1)?.object.status;
          throw new Error(
            `${String(err).slice(0, 300)}\nlast status: ${JSON.stringify(last)}\n` +
              `controller errors: ${controllerErrors()}`,
          );
        });
      t.diagnostic(`status writes to the condition: ${history.count('MODIFIED', 0, at + 1)}`);
      const warnings = await waitForWarnings(ns, 'r', ['ReplicaSetCreateError']);
      assert.ok(
        warnings.some(
          (e) => e.reason === 'ReplicaSetCreateError' && e.message.includes(c.serverSays),
        ),
        `event message carries "${c.serverSays}": ${JSON.stringify(warnings)}`,
      );
      const later = await history.window(QUIET_WINDOW_MS);
      assert.equal(later.filter((e) => e.type === 'MODIFIED').length, 0, 'quiet once refused');

      await patchSpec(ns, 'r', c.fix);
      const fixed = await waitForRollout(ns, 'r', 'Healthy after the fix', phase('Healthy'));
      assert.equal(replicaFailure(fixed), undefined, 'ReplicaFailure cleared');
    });
  }
});

describe('a first template the API server refuses', () => {
  it('(f) gets the ReplicaFailure condition, a Warning event and Degraded', async () => {
    const ns = await testNamespace('refused-first');
    const body = rolloutBody('f', PLAIN);
    body.spec.template = { ...body.spec.template, spec: { containers: [] } };
    await createRollout(ns, body);
    await waitForRollout(
      ns,
      'f',
      'Degraded with ReplicaFailure',
      refused('spec.template.spec.containers'),
    ).catch((err: unknown) => {
      throw new Error(`${String(err).slice(0, 1500)}\ncontroller errors: ${controllerErrors()}`);
    });
    await waitForWarnings(ns, 'f', ['ReplicaSetCreateError']);
  });
});

/** The last few error lines the controller logged: what today's code does instead. */
function controllerErrors(): string {
  return controller.logs
    .filter((l) => l.level === 'error' || l.level === 'warn')
    .slice(-3)
    .map((l) => JSON.stringify(l).slice(0, 400))
    .join('\n');
}
