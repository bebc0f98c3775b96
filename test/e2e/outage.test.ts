// API server outages end to end, on a private control plane (its kube-apiserver is stopped and
// started again on the same port and etcd; stopping the shared cluster's would break other runs):
// - a short outage mid-canary: the controller reconnects and the rollout carries on;
// - an outage longer than the renew deadline with leader election: the process ends cleanly,
//   with exit code 3 and one log line saying why, so that its Deployment restarts it.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSet } from '../../src/api/index.ts';
import { startCluster, type Cluster } from '../cluster/cluster.ts';
import type * as Testing from '../cluster/testing.ts';
import type * as Support from './support/controller.ts';
import type { ControllerProcess, LogLine } from './support/controller.ts';
import type * as Rollouts from './support/rollouts.ts';

const SHORT_OUTAGE_MS = 5_000;
const EXIT_LEASE_LOST = 3; // ExitCode.leaseLost in src/controller/config.ts, as documented

let cluster: Cluster | undefined;
// Loaded once KUBECONFIG points at the private cluster (the support modules read it on import).
let rollouts: typeof Rollouts;
let support: typeof Support;
let testing: typeof Testing;

before(async () => {
  cluster = await startCluster({ nodes: 2, log: () => undefined });
  process.env.KUBECONFIG = cluster.kubeconfigPath;
  rollouts = await import('./support/rollouts.ts');
  support = await import('./support/controller.ts');
  testing = await import('../cluster/testing.ts');
  await rollouts.installCrds();
});
after(() => cluster?.stop());

function api(): Cluster {
  assert.ok(cluster, 'the private cluster is up');
  return cluster;
}

/**
 * Runs `watch` again while the server answers 429: a restarted kube-apiserver is ready before its
 * watch caches are, and asks clients to retry (Retry-After: 1) until they are.
 */
async function whenServed<T>(watch: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await watch();
    } catch (err) {
      if (!/HTTP 429/.test(String(err))) throw err;
      await delay(1000); // the server's Retry-After
    }
  }
}

const informerFailed = (l: LogLine): boolean =>
  l.level === 'warn' && /^informer .*: (watch|list) failed$/.test(l.msg);

describe('kube-apiserver outage', () => {
  it('a 5 s outage mid-canary: the rollout reaches its next step after the server returns', async (t) => {
    const ns = await testing.testNamespace('outage');
    const controller = await support.startController({
      args: ['--leader-elect=false', `--namespace=${ns}`],
    });
    t.after(() => controller.kill());
    await rollouts.createRollout(
      ns,
      rollouts.rolloutBody('web', {
        strategy: {
          canary: {
            steps: [
              { setWeight: 25 },
              { pause: { duration: '3s' } },
              { setWeight: 50 },
              { pause: {} },
            ],
          },
        },
      }),
    );
    await rollouts.waitForRollout(ns, 'web', 'Healthy', rollouts.phase('Healthy'));
    await rollouts.setImage(ns, 'web', 'app:2');
    const paused = await rollouts.waitForRollout(
      ns,
      'web',
      'in the timed pause',
      rollouts.phase('Paused', (r) => r.status?.currentStepIndex === 1),
    );

    // The timed pause ends while the server is down: only a reconnected controller moves on.
    await api().stopApiserver();
    await controller.waitForLog(informerFailed);
    await delay(SHORT_OUTAGE_MS); // the outage itself (a fault being injected, not a wait)
    await api().startApiserver();
    const back = performance.now();
    // (Not a read of the step here: the controller may already be past it.)
    const pauseStart = Date.parse(paused.status?.pauseConditions?.[0]?.startTime ?? '');
    assert.ok(Date.now() - pauseStart > 3000, 'the 3 s pause ended while the server was down');

    // Two marks: the controller's own write for the next step (canary ReplicaSet to 2 of 4), and
    // the step done, which also needs kube-controller-manager and kwok (client-go backoff) back.
    const secondsSinceBack = (): string => ((performance.now() - back) / 1000).toFixed(1);
    const canary = `web-${paused.status?.currentPodHash ?? ''}`;
    const scaled = whenServed(() =>
      rollouts.waitFor(
        'canary ReplicaSet scaled for setWeight 50',
        `/apis/apps/v1/namespaces/${ns}/replicasets`,
        canary,
        (rs: ReplicaSet) => rs.spec?.replicas === 2,
      ),
    ).then(() => t.diagnostic(`controller scaled the canary ${secondsSinceBack()}s after return`));
    const next = await whenServed(() =>
      rollouts.waitForRollout(
        ns,
        'web',
        'paused at step 3 after the outage',
        rollouts.phase('Paused', (r) => r.status?.currentStepIndex === 3),
      ),
    );
    t.diagnostic(`rollout at its next step ${secondsSinceBack()}s after kube-apiserver returned`);
    await scaled;
    assert.deepEqual(await rollouts.split(ns, next), [2, 2]);
    const stack = controller.logs.filter((l) => l.level === 'raw');
    assert.deepEqual(stack, [], 'nothing but JSON log lines (no stack traces)');
  });

  it('an outage past the renew deadline with leader election: exit 3, one log line', async (t) => {
    const ns = await testing.testNamespace('outage-lease');
    const controller: ControllerProcess = await support.startController({
      // This controller judges no approval: without the flag it would also log, as an error,
      // that the identity policy is missing whenever the shared cluster has none at the time
      // (helm.test.ts uninstalls the one it installed), and this test counts error lines.
      args: [
        '--leader-elect=true',
        `--lease-namespace=${ns}`,
        `--namespace=${ns}`,
        '--trust-approvals-without-identity-policy',
      ],
    });
    t.after(() => controller.kill());
    await controller.waitForLog((l) => l.msg === 'workers started');

    await api().stopApiserver();
    const down = performance.now();
    // The renew deadline is 10 s; the guard only turns a hang into a readable failure.
    const guard = delay(60_000).then(() => 'still running after 60 s');
    const code = await Promise.race([controller.exited, guard]);
    t.diagnostic(`exited ${((performance.now() - down) / 1000).toFixed(1)}s into the outage`);
    await api().startApiserver(); // for the namespace clean-up

    assert.equal(code, EXIT_LEASE_LOST);
    const errors = controller.logs.filter((l) => l.level === 'error' || l.level === 'raw');
    assert.equal(errors.length, 1, `one error line, got:\n${JSON.stringify(errors, null, 1)}`);
    assert.match(errors[0]?.msg ?? '', /leader Lease lost/);
    assert.equal(errors[0]?.exitCode, EXIT_LEASE_LOST);
  });
});
