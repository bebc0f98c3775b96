// The local control plane behaves like a real cluster in the ways Stepwise depends on:
// Deployments get available pods, faults can be injected per pod, server-side apply records
// field managers, namespaces go away, and our CRDs validate on the server.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  type KubernetesObject,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { CHAOS_FAILED_LABEL, FAULT_LABEL, NEVER_READY } from '../cluster/kwok-stages.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { apiStatus, eventually, kubeConfig, kubeHttp, testNamespace } from '../cluster/testing.ts';
import { sleep } from '../cluster/poll.ts';

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
const objects = KubernetesObjectApi.makeApiClient(kc);

function deployment(name: string, replicas: number, podLabels: Record<string, string> = {}) {
  const labels = { app: name, ...podLabels };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
      },
    },
  } satisfies V1Deployment;
}

interface Condition {
  readonly type: string;
  readonly status: string;
}

const isReady = (p: V1Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

test('a Deployment of 3 replicas gets 3 available pods on the simulated nodes', async () => {
  const namespace = await testNamespace('deployment');
  await apps.createNamespacedDeployment({ namespace, body: deployment('web', 3) });
  await eventually('3 available replicas', async () => {
    const d = await apps.readNamespacedDeployment({ namespace, name: 'web' });
    return d.status?.availableReplicas === 3 ? d : undefined;
  });
  const pods = (await core.listNamespacedPod({ namespace })).items;
  assert.equal(pods.length, 3);
  for (const pod of pods) {
    assert.equal(pod.status?.phase, 'Running');
    assert.ok(isReady(pod), `${pod.metadata?.name} is Ready`);
    assert.match(pod.spec?.nodeName ?? '', /^kwok-node-\d+$/);
  }
});

test(`pods labelled ${FAULT_LABEL}=${NEVER_READY} run but never become Ready`, async () => {
  const namespace = await testNamespace('never-ready');
  const body = deployment('stuck', 2, { [FAULT_LABEL]: NEVER_READY });
  await apps.createNamespacedDeployment({ namespace, body });
  const running = await eventually('2 Running pods', async () => {
    const pods = (await core.listNamespacedPod({ namespace })).items;
    const n = pods.filter((p) => p.status?.phase === 'Running').length;
    return n === 2 ? pods : undefined;
  });
  assert.ok(running.every((p) => !isReady(p)));
  await sleep(2_000); // "never": nothing flips them later
  const pods = (await core.listNamespacedPod({ namespace })).items;
  assert.equal(pods.length, 2);
  assert.ok(pods.every((p) => p.status?.phase === 'Running' && !isReady(p)));
  const [rs] = (await apps.listNamespacedReplicaSet({ namespace })).items;
  assert.equal(rs?.status?.replicas, 2);
  assert.equal(rs?.status?.readyReplicas ?? 0, 0);
  assert.equal(rs?.status?.availableReplicas ?? 0, 0);
  const d = await apps.readNamespacedDeployment({ namespace, name: 'stuck' });
  const available = d.status?.conditions?.find((c) => c.type === 'Available');
  assert.equal(available?.status, 'False');
});

test('a pod labelled for kwok chaos fails after it started', async () => {
  const namespace = await testNamespace('chaos');
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: 'crash', labels: { [CHAOS_FAILED_LABEL]: 'true' } },
      spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
    },
  });
  const pod = await eventually('phase Failed', async () => {
    const p = await core.readNamespacedPod({ namespace, name: 'crash' });
    return p.status?.phase === 'Failed' ? p : undefined;
  });
  assert.equal(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 1);
  assert.ok(!isReady(pod));
});

test('server-side apply records the stepwise-controller field manager', async () => {
  const namespace = await testNamespace('ssa');
  const configMap = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'weights', namespace },
    data,
  });
  const apply = (body: KubernetesObject, manager: string, force: boolean) =>
    objects.patch(body, undefined, undefined, manager, force, PatchStrategy.ServerSideApply);

  const applied = await apply(configMap({ canary: '20' }), 'stepwise-controller', true);
  const entry = applied.metadata?.managedFields?.find((f) => f.manager === 'stepwise-controller');
  assert.equal(entry?.operation, 'Apply');
  assert.deepEqual((entry?.fieldsV1 as { 'f:data'?: unknown })['f:data'], { 'f:canary': {} });
  // Another manager (a GitOps tool, say) cannot take the field over without forcing.
  const conflict = await apiStatus(apply(configMap({ canary: '0' }), 'argocd-controller', false));
  assert.equal(conflict, 409);
});

// Takes 5-10 s: the namespace controller waits 5 s before it starts, then half the pods'
// termination grace period (kube-controller-manager's own timing, not the harness's).
test('deleting a namespace with running pods finishes', async () => {
  const namespace = await testNamespace('delete-me');
  await apps.createNamespacedDeployment({ namespace, body: deployment('web', 2) });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'c' } } });
  await eventually('2 available replicas', async () => {
    const d = await apps.readNamespacedDeployment({ namespace, name: 'web' });
    return d.status?.availableReplicas === 2 ? true : undefined;
  });
  await core.deleteNamespace({ name: namespace });
  await eventually(
    'the namespace to be gone',
    async () =>
      (await apiStatus(core.readNamespace({ name: namespace }))) === 404 ? true : undefined,
    60_000,
  );
});

test('the CRDs in deploy/crds install and the API server validates Rollouts', async (t) => {
  const dir = join(REPO_ROOT, 'deploy', 'crds');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f));
  if (files.length === 0) return t.skip('deploy/crds/ has no CRDs yet');
  const api = kubeHttp();
  t.after(() => api.close());
  for (const file of files) {
    for (const crd of loadAll(await readFile(join(dir, file), 'utf8')) as KubernetesObject[]) {
      const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name}`;
      const query = '?fieldManager=stepwise-e2e&force=true&fieldValidation=Strict';
      await api.json('PATCH', path + query, crd, 'application/apply-patch+yaml');
      await eventually(`${crd.metadata?.name} Established`, async () => {
        const got = await api.json<{ status?: { conditions?: Condition[] } }>('GET', path);
        const established = got.status?.conditions?.find((c) => c.type === 'Established');
        return established?.status === 'True' ? true : undefined;
      });
    }
  }

  const namespace = await testNamespace('crd');
  const rollout = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'demo' } },
      template: {
        metadata: { labels: { app: 'demo' } },
        spec: { containers: [{ name: 'app', image: 'registry.invalid/app:1' }] },
      },
      strategy: { canary: { steps: [{ setWeight: 20 }, { pause: { duration: '10s' } }] } },
      ...spec,
    },
  });
  const create = (body: object) =>
    custom.createNamespacedCustomObject({
      group: 'stepwise.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'rollouts',
      body,
      fieldValidation: 'Strict',
    });

  assert.equal(await apiStatus(create(rollout('valid', {}))), undefined);
  assert.equal(await apiStatus(create(rollout('bad-replicas', { replicas: 'abc' }))), 422);
  const unknownField = await apiStatus(create(rollout('unknown-field', { replicaz: 3 })));
  assert.ok(unknownField === 400 || unknownField === 422, `got ${unknownField}`);
});
