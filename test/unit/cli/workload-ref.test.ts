// The plugin on a Rollout with spec.workloadRef: it has no template of its own, so set image and
// undo change the referenced Deployment's (a JSON patch under kubectl-stepwise; the Rollout is
// not written), get rollout shows the Deployment and its replicas (--watch follows it), and
// status waits until the controller has read the Deployment as it is now.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Rollout } from '../../../src/api/rollout.ts';
import type { WorkloadLike } from '../../../src/cli/render/objects.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { pausedStatus, replicaSet, rollout } from './fixtures.ts';
import { oneLineError, runCli, until, writeKubeconfig } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'stepwise-cli-workloadref-'));
const kubeconfig = join(dir, 'kubeconfig');
const api = new FakeApiServer();
const NOW = Date.parse('2026-03-01T12:00:00.400Z');
const cli = (args: string[]) =>
  runCli(args, { env: { KUBECONFIG: kubeconfig, HOME: dir }, now: () => NOW });
const obj = <T>(o: T) => structuredClone(o) as never;
const deployment = () => api.get('deployments', 'shop', 'web-deploy') as unknown as WorkloadLike;
const storedRollout = () => api.get('rollouts', 'shop', 'web') as unknown as Rollout;

const template = (image: string) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

before(async () => {
  await api.start();
  writeKubeconfig(kubeconfig, api.url, 'shop');
});
after(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.patches.length = 0;
  const ro = rollout(pausedStatus, {
    workloadRef: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web-deploy',
      scaleDown: 'onsuccess',
    },
  });
  delete ro.spec.template;
  delete ro.spec.selector;
  api.put('rollouts', obj(ro));
  api.put(
    'deployments',
    obj({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web-deploy', namespace: 'shop', generation: 3 },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: template('nginx:1.26'),
      },
      status: { replicas: 0, readyReplicas: 0 },
    }),
  );
  for (const [hash, revision, image] of [
    ['h1', 1, 'nginx:1.24'],
    ['h2', 2, 'nginx:1.26'],
  ] as const) {
    const rs = replicaSet(hash, revision, 1, image);
    rs.spec!.template = {
      metadata: { labels: { app: 'web', 'rollouts-pod-template-hash': hash } },
      spec: { containers: [{ name: 'web', image }] },
    } as never;
    api.put('replicasets', obj(rs));
  }
});

describe('plugin with a workloadRef', () => {
  it('set image changes the Deployment’s template, not the Rollout', async () => {
    const before = storedRollout();
    const r = await cli(['set', 'image', 'web', 'web=nginx:1.27']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `rollout 'web' image updated (the template of Deployment "web-deploy")\n`);
    assert.deepEqual(api.patches[0]?.body, [
      { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'web' },
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
    ]);
    assert.equal(api.patches[0]?.fieldManager, 'kubectl-stepwise');
    assert.equal(deployment().spec?.template?.spec?.containers?.[0]?.image, 'nginx:1.27');
    assert.deepEqual(storedRollout(), before, 'the Rollout is not written');
  });

  it('undo writes the previous revision’s template into the Deployment', async () => {
    const r = await cli(['undo', 'web']);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      `rollout 'web' rolled back to the template of revision 1 (the template of Deployment "web-deploy" written)\n`,
    );
    assert.deepEqual(deployment().spec?.template, template('nginx:1.24'));
    assert.equal(storedRollout().spec.template, undefined);
    const again = await cli(['undo', 'web', '--to-revision', '1']);
    assert.match(
      again.out,
      /skipped undo: the template of Deployment "web-deploy" already matches/,
    );
  });

  it('a missing Deployment: one line, nothing written', async () => {
    api.delete('deployments', 'shop', 'web-deploy');
    const r = await cli(['set', 'image', 'web', 'web=nginx:1.27']);
    assert.match(oneLineError(r) ?? r.err, /^Error: .*web-deploy.* not found/);
    assert.equal(api.patches.length, 0);
  });

  it('status waits until the controller has read the Deployment as it is now', async () => {
    const ro = storedRollout();
    ro.status = { ...ro.status, phase: 'Healthy', message: '', workloadObservedGeneration: '2' };
    api.put('rollouts', obj(ro));
    const stale = await cli(['status', 'web', '--watch', 'false']);
    assert.equal(
      stale.out,
      'Progressing - waiting for the change to Deployment "web-deploy" to be observed\n',
    );
    ro.status = { ...ro.status, workloadObservedGeneration: '3' };
    api.put('rollouts', obj(ro));
    assert.equal((await cli(['status', 'web', '--watch', 'false'])).out, 'Healthy\n');
  });

  it('get --watch follows the Deployment too: its replicas going to 0 are shown', async () => {
    const d = deployment();
    d.spec = { ...d.spec, replicas: 3 };
    d.status = { replicas: 3, readyReplicas: 3 };
    api.put('deployments', obj(d));
    const watching = cli(['get', 'rollout', 'web', '--watch', '--timeout-seconds', '2']);
    await until(() => api.watcherCount('deployments') > 0 && api.watcherCount('rollouts') > 0);
    await new Promise((r) => setTimeout(r, 300));
    api.put(
      'deployments',
      obj({ ...d, spec: { ...d.spec, replicas: 0 }, status: { replicas: 0 } }),
    );
    const r = await watching;
    assert.equal(r.code, 0, r.err);
    const snapshots = r.out.split('\n\nName:');
    assert.equal(snapshots.length, 2, r.out);
    assert.match(
      snapshots[0]!,
      /Workload: +Deployment web-deploy, replicas 3 \(current 3, ready 3\)/,
    );
    assert.match(
      snapshots[1]!,
      /Workload: +Deployment web-deploy, replicas 0 \(current 0, ready 0\)/,
    );
  });

  it('get rollout shows the Deployment and its replicas, or that it is not found', async () => {
    const r = await cli(['get', 'rollout', 'web', '--no-color']);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /Workload: +Deployment web-deploy, replicas 0 \(current 0, ready 0\), scaleDown onsuccess\n/,
    );
    api.delete('deployments', 'shop', 'web-deploy');
    const gone = await cli(['get', 'rollout', 'web', '--no-color']);
    assert.equal(gone.code, 0, gone.err);
    assert.match(gone.out, /Workload: +Deployment web-deploy \(not found\)\n/);
  });
});
