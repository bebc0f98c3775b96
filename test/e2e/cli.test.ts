// kubectl-stepwise against the real control plane, through kubectl's plugin mechanism
// (`kubectl stepwise ...` finds .stepwise/bin/kubectl-stepwise on PATH; `make plugin` writes it).
// No controller runs here: the test writes the Rollout, its status (as the controller would)
// and its ReplicaSets itself, then checks what the plugin shows and writes: people's requests
// land in status under the kubectl-stepwise field manager, never in spec.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { dump, load } from 'js-yaml';
import type { Rollout, RolloutStatus } from '../../src/api/rollout.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { eventually, kubeHttp, testNamespace } from '../cluster/testing.ts';
import {
  PLUGIN_DIR,
  assertOneLineError,
  installCrdsWithKubectl,
  kubectl,
  plugin,
} from './support/plugin.ts';

const http = kubeHttp();
// STEPWISE_PLUGIN_DIR: the same tests against another build (make plugin-binary's).
const BIN = PLUGIN_DIR;
const exec = promisify(execFile);
const HASH = 'rollouts-pod-template-hash';
const STABLE = '5d8f7c9b4a';
const CANARY = '7b6c5d4e3f';
const ROLLOUTS = '/apis/stepwise.dev/v1alpha1';
const tmp = mkdtempSync(join(tmpdir(), 'stepwise-cli-e2e-'));

const getRollout = (ns: string): Promise<Rollout> =>
  http.json<Rollout>('GET', `${ROLLOUTS}/namespaces/${ns}/rollouts/web`);

/** A status write as the controller makes it (its own field manager). */
const controllerStatus = (ns: string, status: object): Promise<Rollout> =>
  http.json<Rollout>(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/web/status?fieldManager=stepwise-controller`,
    { status },
    'application/merge-patch+json',
  );

const pausedStatus = (): RolloutStatus => ({
  phase: 'Paused',
  message: 'CanaryPauseStep',
  observedGeneration: '1',
  currentPodHash: CANARY,
  stableRS: STABLE,
  currentStepIndex: 1,
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: new Date().toISOString() }],
  controllerPause: true,
  replicas: 3,
  updatedReplicas: 1,
  readyReplicas: 3,
  availableReplicas: 3,
});

/** A namespace with Rollout `web` (generation 1) paused at step 1/4, as the controller leaves it. */
async function pausedRollout(prefix: string): Promise<{ ns: string; ro: Rollout }> {
  const ns = await testNamespace(`cli-${prefix}`);
  await http.json('POST', `${ROLLOUTS}/namespaces/${ns}/rollouts`, {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'registry.invalid/app:2' }] },
      },
      strategy: {
        canary: { steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }, { pause: {} }] },
      },
    },
  });
  const ro = await controllerStatus(ns, pausedStatus());
  return { ns, ro };
}

/** The stable (2 pods, revision 1) and canary (1 pod, revision 2) ReplicaSets, owned by `ro`. */
async function replicaSets(ns: string, ro: Rollout): Promise<void> {
  const rs = (hash: string, revision: number, replicas: number, image: string) => {
    const labels = { app: 'web', [HASH]: hash };
    return {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `web-${hash}`,
        labels,
        annotations: { 'stepwise.dev/revision': String(revision) },
        ownerReferences: [
          {
            apiVersion: 'stepwise.dev/v1alpha1',
            kind: 'Rollout',
            name: 'web',
            uid: ro.metadata.uid!,
            controller: true,
          },
        ],
      },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } },
      },
    };
  };
  for (const body of [
    rs(STABLE, 1, 2, 'registry.invalid/app:1'),
    rs(CANARY, 2, 1, 'registry.invalid/app:2'),
  ]) {
    await http.json('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, body);
  }
  await eventually('3 ready pods', async () => {
    const pods = await http.json<{
      items: { status?: { conditions?: { type: string; status: string }[] } }[];
    }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${HASH}`);
    const ready = pods.items.filter((p) =>
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length === 3 ? true : undefined;
  });
}

interface ManagedField {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1?: Record<string, Record<string, unknown>>;
}

/** The plugin writes status only: through /status, never a field under spec. */
function assertPluginWroteStatusOnly(ro: Rollout, field: string): void {
  const mine = ((ro.metadata.managedFields ?? []) as ManagedField[]).filter(
    (m) => m.manager === 'kubectl-stepwise',
  );
  assert.equal(mine.length, 1, JSON.stringify(ro.metadata.managedFields));
  const [entry] = mine;
  assert.equal(entry!.operation, 'Update');
  assert.equal(entry!.subresource, 'status');
  assert.deepEqual(Object.keys(entry!.fieldsV1 ?? {}), ['f:status']);
  assert.ok(`f:${field}` in (entry!.fieldsV1!['f:status'] ?? {}), JSON.stringify(entry));
}

before(() => {
  // `make e2e` writes the shim (make plugin); write it here too when run by hand.
  const shim = join(BIN, 'kubectl-stepwise');
  if (!existsSync(shim)) {
    mkdirSync(BIN, { recursive: true });
    const main = join(REPO_ROOT, 'src', 'cli', 'main.ts');
    writeFileSync(
      shim,
      `#!/bin/sh\nexec "${process.execPath}" --disable-warning=ExperimentalWarning "${main}" "$@"\n`,
    );
    chmodSync(shim, 0o755);
  }
});

before(installCrdsWithKubectl);

after(() => {
  http.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('kubectl finds the plugin', async () => {
  const r = await kubectl(['plugin', 'list']);
  assert.match(
    r.stdout,
    new RegExp(`${BIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/kubectl-stepwise`),
  );
  const v = await plugin(['version']);
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout, /^kubectl-stepwise v0\.1\.0\n/);
  const flag = await plugin(['--version']);
  assert.equal(flag.stdout, v.stdout);
  // The single-file binary is stamped at build time (make plugin-binary); the sources are not.
  const stamped = process.env.STEPWISE_PLUGIN_DIR !== undefined;
  assert.match(
    v.stdout,
    stamped
      ? /\n {2}Commit: [0-9a-f]{40}(-dirty)?\n {2}Build date: \d{4}-\d\d-\d\dT[\d:]{8}Z\n/
      : /\n {2}Commit: unknown\n {2}Build date: unknown\n/,
  );
});

test('the shim that runs the sources answers as the binary does (make plugin, make demo)', async (t) => {
  const shim = join(REPO_ROOT, '.stepwise', 'bin', 'kubectl-stepwise');
  if (BIN === dirname(shim)) return t.skip('the shim is the plugin under test above');
  const run = await exec(shim, ['version']);
  assert.match(run.stdout, /^kubectl-stepwise v0\.1\.0\n {2}Commit: unknown\n/);
});

test('get rollout shows the header and the tree of revisions, ReplicaSets and pods', async () => {
  const { ns, ro } = await pausedRollout('get');
  await replicaSets(ns, ro);
  for (const kind of ['rollout', 'ro', 'swro']) {
    const r = await plugin(['get', kind, 'web', '-n', ns]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.ok(!r.stdout.includes('\x1b'), 'no colour off a terminal');
    assert.match(
      r.stdout,
      new RegExp(
        `^Name: +web\\nNamespace: +${ns}\\nStatus: +॥ Paused\\nMessage: +CanaryPauseStep\\n` +
          'Strategy: +Canary\\n +Step: +1/4\\n +SetWeight: +20\\n +ActualWeight: +33\\n' +
          'Images: +registry.invalid/app:1 \\(stable\\)\\n +registry.invalid/app:2 \\(canary\\)\\n' +
          'Replicas:\\n +Desired: +3\\n +Current: +3\\n +Updated: +1\\n +Ready: +3\\n +Available: +3\\n',
      ),
    );
    const tree = r.stdout.slice(r.stdout.indexOf('\n\nNAME') + 2).split('\n');
    assert.match(tree[0]!, /^NAME +KIND +STATUS +AGE +INFO$/);
    assert.match(tree[1]!, /^⟳ web +Rollout +॥ Paused +\S+$/);
    assert.match(tree[2]!, /^├──# revision:2$/);
    assert.match(
      tree[3]!,
      new RegExp(`^│  └──⧉ web-${CANARY} +ReplicaSet +✔ Healthy +\\S+ +canary$`),
    );
    assert.match(
      tree[4]!,
      new RegExp(`^│     └──□ web-${CANARY}-\\w{5} +Pod +✔ Running +\\S+ +ready:1/1 restarts:0$`),
    );
    assert.match(tree[5]!, /^└──# revision:1$/);
    assert.match(
      tree[6]!,
      new RegExp(`^   └──⧉ web-${STABLE} +ReplicaSet +✔ Healthy +\\S+ +stable$`),
    );
    assert.match(tree[7]!, new RegExp(`^      ├──□ web-${STABLE}-\\w{5} +Pod +✔ Running`));
    assert.match(tree[8]!, new RegExp(`^      └──□ web-${STABLE}-\\w{5} +Pod +✔ Running`));
  }
});

test('get rollout --watch prints a new snapshot when the rollout changes (not a terminal)', async () => {
  const { ns } = await pausedRollout('watch');
  let changed = false;
  const r = await plugin(['get', 'rollout', 'web', '-n', ns, '--watch', '--timeout-seconds', '5'], {
    onStdout: (out) => {
      if (!changed && out.includes('NAME')) {
        changed = true;
        void controllerStatus(ns, { message: 'still paused, by a test' });
      }
    },
  });
  assert.equal(r.code, 0, r.stderr);
  const snapshots = r.stdout.split('\n\nName:');
  assert.equal(snapshots.length, 2, r.stdout);
  assert.match(snapshots[1]!, /Message: +still paused, by a test/);
});

test('list rollouts: a kubectl-style table, with NAMESPACE under -A', async () => {
  const { ns } = await pausedRollout('list');
  for (const args of [['list', 'rollouts'], ['list'], ['list', 'ro']]) {
    const r = await plugin([...args, '-n', ns]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      'NAME  STRATEGY  STATUS  STEP  SET-WEIGHT  READY  DESIRED  UP-TO-DATE  AVAILABLE\n' +
        'web   Canary    Paused  1/4   20          3/3    3        1           3\n',
    );
  }
  const all = await plugin(['list', 'rollouts', '-A']);
  assert.match(all.stdout, /^NAMESPACE +NAME +STRATEGY +STATUS/);
  assert.match(all.stdout, new RegExp(`\\n${ns} +web +Canary +Paused +1/4 +20 `));
});

test('promote, promote --full, abort and retry write status only, under kubectl-stepwise', async () => {
  const { ns, ro: before } = await pausedRollout('requests');
  const unchanged = (ro: Rollout): void => {
    assert.equal(ro.metadata.generation, before.metadata.generation);
    assert.deepEqual(ro.spec, before.spec);
  };

  // paused: promote clears the pause conditions
  let r = await plugin(['promote', 'web', '-n', ns]);
  assert.deepEqual(r, { code: 0, stdout: "rollout 'web' promoted\n", stderr: '' });
  let ro = await getRollout(ns);
  assert.equal(ro.status?.pauseConditions, undefined);
  assert.equal(ro.status?.controllerPause, true);
  unchanged(ro);

  // the controller moved on to step 2 (not paused): promote skips the step
  await controllerStatus(ns, {
    controllerPause: false,
    phase: 'Progressing',
    message: 'x',
    currentStepIndex: 2,
  });
  r = await plugin(['promote', 'web', '-n', ns]);
  assert.equal(r.stdout, "rollout 'web' promoted\n");
  ro = await getRollout(ns);
  assert.equal(ro.status?.currentStepIndex, 3);
  assertPluginWroteStatusOnly(ro, 'currentStepIndex');
  unchanged(ro);

  r = await plugin(['promote', 'web', '--full', '-n', ns]);
  assert.equal(r.stdout, "rollout 'web' fully promoted\n");
  ro = await getRollout(ns);
  assert.equal(ro.status?.promoteFull, true);
  assertPluginWroteStatusOnly(ro, 'promoteFull');

  r = await plugin(['abort', 'web', '-n', ns]);
  assert.deepEqual(r, { code: 0, stdout: "rollout 'web' aborted\n", stderr: '' });
  ro = await getRollout(ns);
  assert.equal(ro.status?.abort, true);
  assertPluginWroteStatusOnly(ro, 'abort');

  r = await plugin(['retry', 'rollout', 'web', '-n', ns]);
  assert.deepEqual(r, { code: 0, stdout: "rollout 'web' retried\n", stderr: '' });
  ro = await getRollout(ns);
  assert.equal(ro.status?.abort, false);
  assertPluginWroteStatusOnly(ro, 'abort');
  unchanged(ro);

  assertOneLineError(
    await plugin(['retry', 'web', '-n', ns]),
    "Error: rollout 'web' is not aborted; retry only restarts an aborted update",
  );
});

test("promote: spec.paused is Git's, so the plugin refuses; a finished rollout says so", async () => {
  const { ns } = await pausedRollout('paused');
  await http.json(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/web`,
    { spec: { paused: true } },
    'application/merge-patch+json',
  );
  assertOneLineError(
    await plugin(['promote', 'web', '-n', ns]),
    /^Error: rollout 'web' is paused in Git \(spec\.paused: true\) and cannot be promoted from the plugin/,
  );
  await http.json(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/web`,
    { spec: { paused: false } },
    'application/merge-patch+json',
  );
  await controllerStatus(ns, {
    ...pausedStatus(),
    phase: 'Healthy',
    message: null,
    observedGeneration: '3',
    stableRS: CANARY,
    currentStepIndex: 4,
    pauseConditions: null,
    controllerPause: null,
  });
  const r = await plugin(['promote', 'web', '-n', ns]);
  assert.deepEqual(r, { code: 0, stdout: "rollout 'web' is already fully promoted\n", stderr: '' });
});

test('status: waits for Healthy, fails on Degraded and on timeout, trusts observed generations only', async () => {
  const { ns } = await pausedRollout('status');
  const progressing = {
    controllerPause: false,
    pauseConditions: null,
    phase: 'Progressing',
    message: 'more replicas need to be updated',
  };
  await controllerStatus(ns, progressing);

  const timeout = await plugin(['status', 'web', '-n', ns, '--timeout', '2s']);
  assert.equal(timeout.code, 1);
  assert.equal(timeout.stdout, 'Progressing - more replicas need to be updated\n');
  assert.equal(timeout.stderr, 'Error: Rollout status watch exceeded timeout\n');

  let patched = false;
  const healthy = await plugin(['status', 'web', '-n', ns, '--timeout', '60s'], {
    onStdout: () => {
      if (patched) return;
      patched = true;
      void controllerStatus(ns, { phase: 'Healthy', message: null });
    },
  });
  assert.deepEqual(healthy, {
    code: 0,
    stdout: 'Progressing - more replicas need to be updated\nHealthy\n',
    stderr: '',
  });

  // a spec change the controller has not observed yet: the Healthy phase is stale
  await http.json(
    'PATCH',
    `${ROLLOUTS}/namespaces/${ns}/rollouts/web`,
    { spec: { replicas: 4 } },
    'application/merge-patch+json',
  );
  const stale = await plugin(['status', 'web', '-n', ns, '--watch=false']);
  assert.deepEqual(stale, {
    code: 0,
    stdout: 'Progressing - waiting for rollout spec update to be observed\n',
    stderr: '',
  });

  await controllerStatus(ns, { ...pausedStatus(), observedGeneration: '2' });
  const paused = await plugin([
    'status',
    'web',
    '-n',
    ns,
    '--success-on-pause',
    '--timeout',
    '30s',
  ]);
  assert.deepEqual(paused, { code: 0, stdout: 'Paused - CanaryPauseStep\n', stderr: '' });

  await controllerStatus(ns, {
    phase: 'Degraded',
    message: 'RolloutAborted: Rollout aborted update to revision 2',
    pauseConditions: null,
    controllerPause: false,
  });
  const degraded = await plugin(['status', 'web', '-n', ns]);
  assert.equal(degraded.code, 1);
  assert.equal(
    degraded.stdout,
    'Degraded - RolloutAborted: Rollout aborted update to revision 2\n',
  );
  assert.equal(
    degraded.stderr,
    'Error: The rollout is in a degraded state with message: RolloutAborted: Rollout aborted update to revision 2\n',
  );
});

test('errors are one line: unknown rollout, bad flag', async () => {
  const ns = await testNamespace('cli-errors');
  assertOneLineError(
    await plugin(['get', 'rollout', 'nope', '-n', ns]),
    `Error: rollout "nope" not found in namespace "${ns}"`,
  );
  assertOneLineError(
    await plugin(['promote', 'nope', '-n', ns]),
    `Error: rollout "nope" not found in namespace "${ns}"`,
  );
  assertOneLineError(
    await plugin(['promote', 'web', '--bogus']),
    "Error: unknown option '--bogus'",
  );
});

/** A kubeconfig for the test cluster's server (or another one) with the given user. */
function kubeconfigFile(name: string, user: Record<string, string>, server?: string): string {
  const admin = load(readFileSync(process.env.KUBECONFIG!, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
  };
  const cluster = { ...admin.clusters[0]!.cluster, ...(server ? { server } : {}) };
  const file = join(tmp, name);
  writeFileSync(
    file,
    dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
    { mode: 0o600 },
  );
  return file;
}

test('an unreachable API server is one line naming the address', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
  const file = kubeconfigFile('closed', { token: 'x' }, `https://127.0.0.1:${port}`);
  assertOneLineError(
    await plugin(['list', '--kubeconfig', file]),
    new RegExp(
      `^Error: cannot reach the Kubernetes API at https://127\\.0\\.0\\.1:${port}: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
    ),
  );
});

test('no permission is one line naming the user, verb and resource', async () => {
  const { ns } = await pausedRollout('forbidden');
  await http.json('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    metadata: { name: 'nobody' },
  });
  const { status } = await http.json<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${ns}/serviceaccounts/nobody/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    },
  );
  const file = kubeconfigFile('nobody', { token: status.token });
  const user = `system:serviceaccount:${ns}:nobody`;
  assertOneLineError(
    await plugin(['abort', 'web', '-n', ns, '--kubeconfig', file]),
    `Error: forbidden: user "${user}" cannot get rollouts in namespace "${ns}"`,
  );

  // may read, may not write status
  await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    metadata: { name: 'rollout-reader' },
    rules: [
      { apiGroups: ['stepwise.dev'], resources: ['rollouts'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await http.json('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'nobody-reads' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rollout-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: ns }],
  });
  const denied = await eventually('the Role to take effect', async () => {
    const r = await plugin(['abort', 'web', '-n', ns, '--kubeconfig', file]);
    return r.stderr.includes('cannot get') ? undefined : r;
  });
  assertOneLineError(
    denied,
    `Error: forbidden: user "${user}" cannot patch rollouts/status in namespace "${ns}"`,
  );
  assert.equal((await getRollout(ns)).status?.abort, undefined);

  // impersonation works the same way (the admin may impersonate)
  assertOneLineError(
    await plugin(['promote', 'web', '-n', ns, '--as', 'someone']),
    `Error: forbidden: user "someone" cannot get rollouts in namespace "${ns}"`,
  );
});
