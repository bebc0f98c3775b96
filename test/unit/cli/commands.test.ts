// restart, undo, set image and -o against the fake API server: the exact patches (content type,
// field manager, body), what the object looks like after, conflicts retried, one-line errors.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { Rollout } from '../../../src/api/rollout.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { analysisRun, pausedStatus, replicaSet, rollout } from './fixtures.ts';
import { oneLineError, runCli, writeKubeconfig } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'stepwise-cli-commands-'));
const kubeconfig = join(dir, 'kubeconfig');
const api = new FakeApiServer();
const NOW = Date.parse('2026-03-01T12:00:00.400Z');
const cli = (args: string[]) =>
  runCli(args, { env: { KUBECONFIG: kubeconfig, HOME: dir }, now: () => NOW });
const obj = <T>(o: T) => structuredClone(o) as never;
const stored = () => api.get('rollouts', 'shop', 'web') as unknown as Rollout;

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
  api.conflicts = 0;
  const ro = rollout(pausedStatus);
  (ro.metadata as Record<string, unknown>)['managedFields'] = [{ manager: 'argocd-controller' }];
  api.put('rollouts', obj(ro));
  for (const [hash, revision, image] of [
    ['h1', 1, 'nginx:1.24'],
    ['h2', 2, 'nginx:1.25'],
    ['h3', 3, 'nginx:1.26'],
  ] as const) {
    const rs = replicaSet(hash, revision, 1, image);
    rs.spec!.template = {
      metadata: { labels: { app: 'web', 'rollouts-pod-template-hash': hash } },
      spec: { containers: [{ name: 'web', image }] },
    } as never;
    api.put('replicasets', obj(rs));
  }
});

describe('restart', () => {
  it('merge patch of spec.restartAt (now, whole seconds up) under kubectl-stepwise', async () => {
    const r = await cli(['restart', 'web']);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      "rollout 'web' restarts: pods created before 2026-03-01T12:00:01Z are replaced, within maxUnavailable\n",
    );
    assert.deepEqual(api.patches, [
      {
        namespace: 'shop',
        name: 'web',
        subresource: undefined,
        contentType: 'application/merge-patch+json',
        fieldManager: 'kubectl-stepwise',
        body: { spec: { restartAt: '2026-03-01T12:00:01Z' } },
      },
    ]);
    assert.equal(stored().spec.restartAt, '2026-03-01T12:00:01Z');
    assert.deepEqual(stored().status, rollout(pausedStatus).status);
    const later = await cli(['restart', 'web', '--in', '5m']);
    assert.match(later.out, /restarts at 2026-03-01T12:05:01Z/);
    assert.equal(
      oneLineError(await cli(['restart', 'web', '--in', 'soon'])),
      'Error: invalid --in "soon": use a duration like 30s or 5m',
    );
  });

  it('--help says why it writes spec', async () => {
    const r = await cli(['restart', '--help']);
    assert.match(r.out, /Why spec and not status/);
    assert.match(r.out, /Argo Rollouts' plugin/);
  });
});

describe('undo', () => {
  it('JSON patch of spec.template to the previous revision, on the resourceVersion read', async () => {
    const before = stored();
    const r = await cli(['undo', 'web']);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      "rollout 'web' rolled back to the template of revision 2 (spec.template written)\n",
    );
    const [p] = api.patches;
    assert.equal(p!.contentType, 'application/json-patch+json');
    assert.equal(p!.fieldManager, 'kubectl-stepwise');
    assert.equal(p!.subresource, undefined);
    assert.deepEqual(stored().spec.template, {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
    });
    assert.equal(stored().metadata.generation, (before.metadata.generation ?? 0) + 1);
  });

  it('--to-revision; a conflict is decided again on a fresh read; errors are one line', async () => {
    api.conflicts = 1;
    const r = await cli(['undo', 'web', '--to-revision', '1']);
    assert.equal(r.code, 0, r.err);
    assert.equal(api.patches.length, 2);
    assert.equal(stored().spec.template?.spec?.containers[0]?.image, 'nginx:1.24');
    assert.equal(
      oneLineError(await cli(['undo', 'web', '--to-revision', '9'])),
      "Error: revision 9 of rollout 'web' not found (revisions on record: 1, 2, 3)",
    );
    assert.equal(
      oneLineError(await cli(['undo', 'web', '--to-revision', 'two'])),
      'Error: invalid --to-revision "two": use a revision number',
    );
    const help = await cli(['undo', '--help']);
    assert.match(help.out, /Argo CD or Flux puts Git's template back on the\s+next sync/);
  });
});

describe('set image', () => {
  it('replaces the image of the named container; the patch tests its name', async () => {
    const r = await cli(['set', 'image', 'web', 'web=nginx:1.27']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "rollout 'web' image updated\n");
    assert.deepEqual(api.patches[0]!.body, [
      { op: 'test', path: '/spec/template/spec/containers/0/name', value: 'web' },
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
    ]);
    assert.equal(stored().spec.template?.spec?.containers[0]?.image, 'nginx:1.27');
  });

  it('an unknown container is one line naming the containers there are; nothing written', async () => {
    const r = await cli(['set', 'image', 'web', 'app=nginx:1.27']);
    assert.equal(oneLineError(r), `Error: rollout 'web' has no container "app" (containers: web)`);
    assert.equal(api.patches.length, 0);
    assert.equal(
      oneLineError(await cli(['set', 'image', 'web', 'nginx:1.27'])),
      'Error: "nginx:1.27" is not CONTAINER=IMAGE (or *=IMAGE for every container)',
    );
    const help = await cli(['set', 'image', '--help']);
    assert.match(help.out, /with GitOps, revert the change in Git instead/);
  });
});

describe('-o json|yaml|name', () => {
  it('get rollout: the object as the API returned it, managedFields only when asked', async () => {
    const json = JSON.parse((await cli(['get', 'rollout', 'web', '-o', 'json'])).out) as Rollout;
    const server = JSON.parse(JSON.stringify(stored())) as Rollout; // as sent over the wire
    const { managedFields, ...meta } = server.metadata as Rollout['metadata'] & {
      managedFields?: unknown;
    };
    assert.ok(managedFields);
    assert.deepEqual(json, { ...server, metadata: meta });
    const yaml = await cli(['get', 'ro', 'web', '-o', 'yaml', '--show-managed-fields']);
    assert.deepEqual(load(yaml.out), server);
    assert.equal(
      (await cli(['get', 'rollout', 'web', '-o', 'name'])).out,
      'rollout.stepwise.dev/web\n',
    );
  });

  it('list rollouts: a List like kubectl; -o name one a line; nothing found is an empty List', async () => {
    const list = load((await cli(['list', 'rollouts', '-o', 'yaml'])).out) as {
      kind: string;
      apiVersion: string;
      items: Rollout[];
    };
    assert.equal(list.kind, 'List');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(
      list.items.map((i) => [i.kind, i.metadata.name]),
      [['Rollout', 'web']],
    );
    assert.equal((await cli(['list', '-A', '-o', 'name'])).out, 'rollout.stepwise.dev/web\n');
    const empty = await cli(['list', '-n', 'empty', '-o', 'json']);
    assert.deepEqual(JSON.parse(empty.out), {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: [],
    });
  });

  it('get analysisrun -o json; a bad format or -o with --watch is one line', async () => {
    api.put('analysisruns', obj(analysisRun('web-h3-3-1', 'Running', [])));
    const run = JSON.parse((await cli(['get', 'ar', 'web-h3-3-1', '-o', 'json'])).out) as {
      kind: string;
    };
    assert.equal(run.kind, 'AnalysisRun');
    assert.equal(
      oneLineError(await cli(['list', '-o', 'wide'])),
      'Error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,name',
    );
    assert.equal(
      oneLineError(await cli(['get', 'rollout', 'web', '-w', '-o', 'json'])),
      'Error: --watch cannot be combined with -o; use one or the other',
    );
  });
});
