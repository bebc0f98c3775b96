// The whole plugin (commander, client-node, kubeconfig, rendering) against a fake API server on
// 127.0.0.1: requests and their exact patches, 409 retries, watches, and one-line errors.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect } from '../../../src/cli/client.ts';
import type { CliDeps } from '../../../src/cli/context.ts';
import { run } from '../../../src/cli/program.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import {
  analysisRun,
  canaryPods,
  canaryRS,
  pausedStatus,
  rollout,
  stablePods,
  stableRS,
} from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'stepwise-cli-'));
const kubeconfig = join(dir, 'kubeconfig');
const api = new FakeApiServer();

class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

interface Result {
  code: number;
  out: string;
  err: string;
}

async function cli(
  args: string[],
  opts: { env?: Record<string, string>; interrupt?: (fire: () => void) => void } = {},
): Promise<Result> {
  const out = new Sink();
  const err = new Sink();
  const env = { KUBECONFIG: kubeconfig, HOME: dir, ...opts.env };
  const deps: CliDeps = {
    out,
    err,
    env,
    connect: (g) => connect(g, env),
    now: () => Date.now(),
    onInterrupt: (handler) => {
      opts.interrupt?.(handler);
      return () => undefined;
    },
    readStdin: () => Promise.resolve(''),
  };
  const code = await run(args, deps);
  return { code, out: out.text, err: err.text };
}

const obj = <T>(o: T) => structuredClone(o) as never;

before(async () => {
  await api.start();
  api.writeKubeconfig(kubeconfig, 'shop');
});
after(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.patches.length = 0;
  api.forbid = undefined;
  api.conflicts = 0;
  api.put('rollouts', obj(rollout(pausedStatus)));
  for (const rs of [stableRS, canaryRS]) api.put('replicasets', obj(rs));
  for (const p of [...stablePods, ...canaryPods]) api.put('pods', obj(p));
});

test('get rollout: the tree, in the context namespace, without colour off a terminal', async () => {
  for (const kind of ['rollout', 'ro', 'swro']) {
    const r = await cli(['get', kind, 'web']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Name: +web\nNamespace: +shop\nStatus: +॥ Paused\n/);
    assert.match(r.out, /└──⧉ web-5t4bl3 +ReplicaSet +✔ Healthy +\S+ +stable/);
    assert.ok(!r.out.includes('\x1b'));
  }
  const forced = await cli(['get', 'rollout', 'web'], { env: { FORCE_COLOR: '1' } });
  assert.ok(forced.out.includes('\x1b[36m॥ Paused'));
  const off = await cli(['get', 'rollout', 'web', '--no-color'], { env: { FORCE_COLOR: '1' } });
  assert.ok(!off.out.includes('\x1b'));
});

test('list rollouts: table; -A adds NAMESPACE; empty namespace says so on stderr', async () => {
  const r = await cli(['list', 'rollouts']);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.out.split('\n')[0],
    'NAME  STRATEGY  STATUS  STEP  SET-WEIGHT  READY  DESIRED  UP-TO-DATE  AVAILABLE',
  );
  assert.match(r.out.split('\n')[1]!, /^web +Canary +Paused +1\/4 +20 +5\/5 +5 +1 +5$/);
  const all = await cli(['list', '-A']);
  assert.match(all.out, /^NAMESPACE +NAME +STRATEGY/);
  assert.match(all.out, /\nshop +web +Canary/);
  const empty = await cli(['list', 'ro', '-n', 'empty']);
  assert.equal(empty.code, 0);
  assert.equal(empty.out, '');
  assert.equal(empty.err, 'No resources found in empty namespace.\n');
});

test('promote: merge patch on /status under kubectl-stepwise with the resourceVersion', async () => {
  const before = api.get('rollouts', 'shop', 'web')!;
  const r = await cli(['promote', 'web']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, "rollout 'web' promoted\n");
  assert.equal(api.patches.length, 1);
  const [p] = api.patches;
  assert.equal(p!.contentType, 'application/merge-patch+json');
  assert.equal(p!.fieldManager, 'kubectl-stepwise');
  assert.deepEqual(p!.body, {
    metadata: { resourceVersion: before.metadata.resourceVersion },
    status: { pauseConditions: null },
  });
  const after = api.get('rollouts', 'shop', 'web') as unknown as ReturnType<typeof rollout>;
  assert.equal(after.status?.pauseConditions, undefined);
  assert.deepEqual(after.spec, rollout(pausedStatus).spec);
});

test('promote: on 409 Conflict it reads again and retries', async () => {
  api.conflicts = 2;
  const r = await cli(['promote', 'web', '--full']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, "rollout 'web' fully promoted\n");
  assert.equal(api.patches.length, 3);
  assert.deepEqual(api.patches[2]!.body['status'], { promoteFull: true, pauseConditions: null });
});

test('promote: gives up after repeated conflicts with one line', async () => {
  api.conflicts = 100;
  const r = await cli(['promote', 'web']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^Error: conflict: .*; try again\n$/);
  assert.equal(api.patches.length, 5);
});

test('promote: spec.paused in Git is refused, nothing written', async () => {
  api.put('rollouts', obj(rollout(pausedStatus, { paused: true })));
  const r = await cli(['promote', 'web']);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /^Error: rollout 'web' is paused in Git \(spec\.paused: true\) and cannot be promoted from the plugin/,
  );
  assert.equal(r.err.split('\n').length, 2);
  assert.equal(api.patches.length, 0);
});

test('abort, then retry (also `retry NAME`); retry of a running rollout is refused', async () => {
  const abort = await cli(['abort', 'web']);
  assert.equal(abort.out, "rollout 'web' aborted\n");
  assert.deepEqual(api.patches.at(-1)!.body['status'], { abort: true });
  const retry = await cli(['retry', 'rollout', 'web']);
  assert.equal(retry.out, "rollout 'web' retried\n");
  assert.deepEqual(api.patches.at(-1)!.body['status'], { abort: false });
  const again = await cli(['retry', 'web']);
  assert.equal(again.code, 1);
  assert.equal(
    again.err,
    "Error: rollout 'web' is not aborted; retry only restarts an aborted update\n",
  );
});

test('status --watch=false prints the phase once', async () => {
  const r = await cli(['status', 'web', '--watch=false']);
  assert.deepEqual(r, { code: 0, out: 'Paused - CanaryPauseStep\n', err: '' });
});

test('status: follows changes until Healthy (exit 0) or Degraded (exit 1)', async () => {
  const healthy = cli(['status', 'web', '--timeout', '10s']);
  await until(() => api.watcherCount('rollouts') > 0);
  const ro = rollout({
    ...pausedStatus,
    phase: 'Progressing',
    message: 'more replicas need to be updated',
    pauseConditions: [],
    controllerPause: false,
  });
  api.put('rollouts', obj(ro));
  api.put('rollouts', obj(rollout({ ...ro.status, phase: 'Healthy', message: '' })));
  assert.deepEqual(await healthy, {
    code: 0,
    out: 'Paused - CanaryPauseStep\nProgressing - more replicas need to be updated\nHealthy\n',
    err: '',
  });

  const degraded = cli(['status', 'web']);
  await until(() => api.watcherCount('rollouts') > 0);
  api.put(
    'rollouts',
    obj(
      rollout({
        ...pausedStatus,
        phase: 'Degraded',
        message: 'RolloutAborted: Rollout aborted update to revision 2',
      }),
    ),
  );
  const d = await degraded;
  assert.equal(d.code, 1);
  assert.equal(
    d.err,
    'Error: The rollout is in a degraded state with message: RolloutAborted: Rollout aborted update to revision 2\n',
  );
});

test('status: --success-on-pause, timeouts and a stale generation', async () => {
  assert.equal((await cli(['status', 'web', '--success-on-pause'])).code, 0);
  const t0 = Date.now();
  const timeout = await cli(['status', 'web', '-t', '300ms']);
  assert.equal(timeout.code, 1);
  assert.equal(timeout.err, 'Error: Rollout status watch exceeded timeout\n');
  assert.ok(Date.now() - t0 < 5000);
  api.put('rollouts', obj(rollout({ ...pausedStatus, observedGeneration: '1' })));
  const stale = await cli(['status', 'web', '--timeout', '200ms']);
  assert.equal(stale.out, 'Progressing - waiting for rollout spec update to be observed\n');
});

test('get --watch off a terminal: a snapshot per visible change; ends at --timeout-seconds', async () => {
  const watching = cli(['get', 'rollout', 'web', '--watch', '--timeout-seconds', '2']);
  await until(() => api.watcherCount('pods') > 0 && api.watcherCount('rollouts') > 0);
  await new Promise((r) => setTimeout(r, 300));
  api.put(
    'rollouts',
    obj(
      rollout({
        ...pausedStatus,
        phase: 'Progressing',
        message: 'step 2',
        currentStepIndex: 2,
        pauseConditions: [],
        controllerPause: false,
      }),
    ),
  );
  const r = await watching;
  assert.equal(r.code, 0, r.err);
  const snapshots = r.out.split('\n\nName:');
  assert.equal(snapshots.length, 2, r.out);
  assert.match(snapshots[1]!, /Status: +◌ Progressing\nMessage: +step 2/);
  assert.ok(!r.out.includes('\x1b'));
});

test('get --watch stops on Ctrl-C with 130', async () => {
  let fire: (() => void) | undefined;
  const watching = cli(['get', 'rollout', 'web', '-w'], { interrupt: (f) => (fire = f) });
  await until(() => fire !== undefined);
  fire!();
  assert.equal((await watching).code, 130);
});

test('errors are one line: not found, forbidden, no CRD, unreachable, bad context', async () => {
  const missing = await cli(['get', 'rollout', 'x', '-n', 'y']);
  assert.deepEqual(missing, {
    code: 1,
    out: '',
    err: 'Error: rollout "x" not found in namespace "y"\n',
  });

  api.forbid = (method, path) => method === 'PATCH' && path.endsWith('/status');
  const forbidden = await cli(['abort', 'web']);
  assert.deepEqual(forbidden, {
    code: 1,
    out: '',
    err: 'Error: forbidden: user "jane" cannot patch rollouts/status in namespace "shop"\n',
  });

  const bad = join(dir, 'closed.kubeconfig');
  const dead = new FakeApiServer();
  await dead.start();
  dead.writeKubeconfig(bad);
  await dead.stop();
  const unreachable = await cli(['list', '--kubeconfig', bad]);
  assert.equal(unreachable.code, 1);
  assert.match(
    unreachable.err,
    /^Error: cannot reach the Kubernetes API at http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/,
  );

  const ctx = await cli(['list', '--context', 'nope']);
  assert.equal(ctx.err, 'Error: context "nope" not found in kubeconfig\n');
  const flag = await cli(['promote', 'web', '--bogus']);
  assert.deepEqual(flag, { code: 1, out: '', err: "Error: unknown option '--bogus'\n" });
});

test('a busy API server (429, Retry-After) is asked again, as kubectl does, a few times', async () => {
  let before = api.requests.length;
  const calm = await cli(['get', 'rollout', 'web']);
  const requests = api.requests.length - before;
  api.throttled = 2;
  before = api.requests.length;
  const busy = await cli(['get', 'rollout', 'web']);
  assert.equal(busy.code, 0, busy.err);
  assert.equal(busy.out, calm.out);
  assert.equal(api.requests.length - before, requests + 2, 'each throttled request asked again');

  api.throttled = 100;
  const overloaded = await cli(['get', 'rollout', 'web']);
  api.throttled = 0;
  assert.equal(overloaded.code, 1);
  assert.match(overloaded.err, /HTTP 429: storage is \(re\)initializing/);
});

test('--context picks the context namespace; -n wins', async () => {
  const other = await cli(['list', '--context', 'other']);
  assert.equal(other.err, 'No resources found in other namespace.\n');
  const ns = await cli(['list', '--context', 'other', '-n', 'shop']);
  assert.match(ns.out, /\nweb /);
});

test('--as impersonates a user', async () => {
  const r = await cli(['list', '--as', 'bob']);
  assert.equal(r.code, 0, r.err);
  assert.equal(api.lastHeaders['impersonate-user'], 'bob');
  await cli(['list']);
  assert.equal(api.lastHeaders['impersonate-user'], undefined);
});

test('a user whose credentials come from an exec plugin: the plugin runs it and sends its token', async () => {
  // What cloud CLIs (aws eks get-token, gke-gcloud-auth-plugin) print.
  const plugin = join(dir, 'credential-plugin.sh');
  writeFileSync(
    plugin,
    `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`,
    { mode: 0o755 },
  );
  const execConfig = join(dir, 'exec.kubeconfig');
  writeFileSync(
    execConfig,
    readFileSync(kubeconfig, 'utf8').replace(
      '    token: fake-token',
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never`,
    ),
  );
  const r = await cli(['list', '--kubeconfig', execConfig, '--as', 'bob']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /\nweb /);
  assert.equal(api.lastHeaders['authorization'], 'Bearer from-exec');
  assert.equal(api.lastHeaders['impersonate-user'], 'bob');
});

test('KUBECONFIG=a:b as kubectl: the first current-context and the first definition of a name win', async () => {
  // Another cluster, nothing listening: reaching it fails naming its address.
  const dead = new FakeApiServer();
  await dead.start();
  const deadUrl = dead.url;
  const sameNames = join(dir, 'same-names.kubeconfig'); // cluster, user, context all "fake"
  dead.writeKubeconfig(sameNames);
  await dead.stop();
  const ownNames = join(dir, 'own-names.kubeconfig');
  writeFileSync(
    ownNames,
    readFileSync(sameNames, 'utf8')
      .replace(/name: fake|cluster: fake|user: fake/g, (m) => m.replace('fake', 'staging'))
      .replace('current-context: fake', 'current-context: staging'),
  );
  for (const later of [sameNames, ownNames]) {
    const first = await cli(['get', 'rollout', 'web'], {
      env: { KUBECONFIG: [kubeconfig, later].join(delimiter) },
    });
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /web/);
    const reversed = await cli(['get', 'rollout', 'web'], {
      env: { KUBECONFIG: [later, kubeconfig].join(delimiter) },
    });
    assert.equal(reversed.code, 1);
    assert.ok(reversed.err.includes(`cannot reach the Kubernetes API at ${deadUrl}`), reversed.err);
  }
});

test('version and --version: version, commit and build date (unknown from source), Node', async () => {
  const r = await cli(['version']);
  assert.match(
    r.out,
    /^kubectl-stepwise v0\.1\.0\n {2}Commit: unknown\n {2}Build date: unknown\n {2}Node: v\d+/,
  );
  assert.equal((await cli(['version', '--short'])).out, 'kubectl-stepwise v0.1.0\n');
  const flag = await cli(['--version']);
  assert.equal(flag.code, 0);
  assert.equal(flag.out, r.out);
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('get analysisrun: one run in detail; a missing one is a one-line error', async () => {
  api.put(
    'analysisruns',
    obj(
      analysisRun('web-c4n4ry-2-1', 'Failed', [
        {
          name: 'success-rate',
          phase: 'Failed',
          failed: 1,
          measurements: [{ phase: 'Failed', value: '[0.42]' }],
        },
      ]),
    ),
  );
  for (const kind of ['analysisrun', 'ar']) {
    const r = await cli(['get', kind, 'web-c4n4ry-2-1']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Status: +✖ Failed/);
    assert.match(r.out, /✖ Failed +\[0\.42\]/);
  }
  const rollout = await cli(['get', 'rollout', 'web']);
  assert.match(rollout.out, /α web-c4n4ry-2-1 +AnalysisRun +✖ Failed/);
  const missing = await cli(['get', 'analysisrun', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /nope/);
  assert.equal(missing.err.trim().split('\n').length, 1);
});
