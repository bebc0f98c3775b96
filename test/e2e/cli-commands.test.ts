// The plugin's newer commands against the real API server, through `kubectl stepwise`: names
// refused before any request, restart (spec.restartAt), undo and set image (spec.template, a
// JSON patch the real server applies with its resourceVersion precondition), -o, lint and
// kubectl's own completion of `kubectl stepwise <TAB>`. No controller runs here.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { load } from 'js-yaml';
import type { Rollout } from '../../src/api/rollout.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { kubeHttp, testNamespace } from '../cluster/testing.ts';
import { assertOneLineError, installCrdsWithKubectl, kubectl, plugin } from './support/plugin.ts';

const http = kubeHttp();
const ROLLOUTS = '/apis/stepwise.dev/v1alpha1';
const HASH = 'rollouts-pod-template-hash';
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

interface ManagedField {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

const getRollout = (ns: string): Promise<Rollout> =>
  http.json<Rollout>('GET', `${ROLLOUTS}/namespaces/${ns}/rollouts/web`);

const pluginFields = (ro: Rollout): ManagedField[] =>
  ((ro.metadata.managedFields ?? []) as ManagedField[]).filter(
    (m) => m.manager === 'kubectl-stepwise',
  );

/** Rollout `web` (image app:2) with ReplicaSets for revisions 1 (app:1) and 2, owned by it. */
async function rolloutWithHistory(prefix: string): Promise<{ ns: string; ro: Rollout }> {
  const ns = await testNamespace(`cli-${prefix}`);
  const template = (image: string) => ({
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image }] },
  });
  const ro = await http.json<Rollout>('POST', `${ROLLOUTS}/namespaces/${ns}/rollouts`, {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web' },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      template: template('registry.invalid/app:2'),
      strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } },
    },
  });
  for (const [hash, revision, image] of [
    ['a1', 1, 'registry.invalid/app:1'],
    ['b2', 2, 'registry.invalid/app:2'],
  ] as const) {
    const t = template(image);
    const labels = { ...t.metadata.labels, [HASH]: hash };
    await http.json('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
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
        replicas: 0,
        selector: { matchLabels: labels },
        template: { ...t, metadata: { labels } },
      },
    });
  }
  return { ns, ro };
}

before(installCrdsWithKubectl);

test('names are Kubernetes names before any request; a namespace too', async () => {
  const { ns } = await rolloutWithHistory('names');
  for (const [name, args] of [
    ['../x', ['promote', '../x', '-n', ns]],
    ['a;b', ['get', 'rollout', 'a;b', '-n', ns]],
    ['', ['restart', '', '-n', ns]],
  ] as const) {
    assertOneLineError(
      await plugin(args),
      name === ''
        ? 'Error: "" is not a valid rollout name: must not be empty'
        : `Error: ${JSON.stringify(name)} is not a valid rollout name: ${SUBDOMAIN}`,
    );
  }
  assertOneLineError(
    await plugin(['list', '-n', `${ns}/../kube-system`]),
    /^Error: ".*" is not a valid namespace name: a lowercase RFC 1123 label must consist/,
  );
});

test('restart writes spec.restartAt (now, RFC 3339) under kubectl-stepwise, nothing else', async () => {
  const { ns, ro: before } = await rolloutWithHistory('restart');
  const t0 = Date.now();
  const r = await plugin(['restart', 'web', '-n', ns]);
  assert.equal(r.code, 0, r.stderr);
  const ro = await getRollout(ns);
  const at = Date.parse(ro.spec.restartAt ?? '');
  assert.match(ro.spec.restartAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(at >= t0 - 1000 && at <= Date.now() + 1000, ro.spec.restartAt);
  assert.equal(
    r.stdout,
    `rollout 'web' restarts: pods created before ${ro.spec.restartAt} are replaced, within maxUnavailable\n`,
  );
  assert.deepEqual(ro.spec.template, before.spec.template);
  const [entry, ...more] = pluginFields(ro);
  assert.equal(more.length, 0);
  assert.equal(entry!.operation, 'Update');
  assert.equal(entry!.subresource, undefined);
  assert.deepEqual(entry!.fieldsV1, { 'f:spec': { 'f:restartAt': {} } });
});

test("undo copies the previous revision's template into spec, on the version it read", async () => {
  const { ns, ro: before } = await rolloutWithHistory('undo');
  const r = await plugin(['undo', 'web', '-n', ns]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "rollout 'web' rolled back to the template of revision 1 (spec.template written)\n",
  );
  const ro = await getRollout(ns);
  assert.equal(ro.spec.template?.spec?.containers[0]?.image, 'registry.invalid/app:1');
  assert.deepEqual(
    ro.spec.template?.metadata?.labels,
    { app: 'web' },
    'no pod-template-hash label',
  );
  assert.equal(ro.metadata.generation, (before.metadata.generation ?? 0) + 1);
  assert.ok(pluginFields(ro).length === 1);
  assertOneLineError(
    await plugin(['undo', 'web', '--to-revision', '7', '-n', ns]),
    "Error: revision 7 of rollout 'web' not found (revisions on record: 1, 2)",
  );
});

test('set image changes the named container; an unknown one lists those there are', async () => {
  const { ns } = await rolloutWithHistory('image');
  const r = await plugin(['set', 'image', 'web', 'app=registry.invalid/app:3', '-n', ns]);
  assert.deepEqual(r, { code: 0, stdout: "rollout 'web' image updated\n", stderr: '' });
  assert.equal(
    (await getRollout(ns)).spec.template?.spec?.containers[0]?.image,
    'registry.invalid/app:3',
  );
  assertOneLineError(
    await plugin(['set', 'image', 'web', 'web=nginx:1', '-n', ns]),
    `Error: rollout 'web' has no container "web" (containers: app)`,
  );
});

test('-o json|yaml|name: the object as the API server returns it; lists as a List', async () => {
  const { ns } = await rolloutWithHistory('output');
  const json = await plugin(['get', 'rollout', 'web', '-n', ns, '-o', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const server = await getRollout(ns);
  const { managedFields: _hidden, ...metadata } = server.metadata;
  assert.deepEqual(JSON.parse(json.stdout), { ...server, metadata });
  const name = await plugin(['list', 'rollouts', '-n', ns, '-o', 'name']);
  assert.deepEqual(name, { code: 0, stdout: 'rollout.stepwise.dev/web\n', stderr: '' });
  const list = load((await plugin(['list', '-A', '-o', 'yaml'])).stdout) as {
    kind: string;
    items: Rollout[];
  };
  assert.equal(list.kind, 'List');
  assert.ok(list.items.some((i) => i.metadata.namespace === ns && i.kind === 'Rollout'));
});

test('lint: the shipped examples are clean offline; a bad manifest is a line and exit 1', async () => {
  const examples = join(REPO_ROOT, 'deploy', 'examples');
  const ok = await plugin([
    'lint',
    join(examples, 'rollout.yaml'),
    join(examples, 'analysis.yaml'),
  ]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  const bad = await plugin(['lint', '-'], {
    stdin:
      'apiVersion: stepwise.dev/v1alpha1\nkind: Rollout\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template: {metadata: {labels: {app: web}}}\n  strategy: {canary: {steps: [{setWeight: 150}]}}\n',
  });
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stdout,
    'stdin: document 1 (Rollout/web): spec.strategy.canary.steps[0].setWeight: must be between 0 and 100, got 150\n',
  );
  assert.equal(bad.stderr, 'Error: 1 problem found\n');
});

test("kubectl's own completion of `kubectl stepwise` reaches the plugin: commands and names", async () => {
  const { ns } = await rolloutWithHistory('complete');
  const commands = await kubectl(['__complete', 'stepwise', 'und']);
  assert.match(commands.stdout, /^undo\t.*\n:4\n/m);
  const names = await kubectl(['__complete', 'stepwise', 'promote', '-n', ns, '']);
  assert.match(names.stdout, /^web\n:4\n/m);
});
