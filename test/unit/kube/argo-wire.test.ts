// Serving argoproj.io in place (src/kube/argo-wire/): what goes out is spelt as Argo's tools
// read it, what comes in as the rest of Stepwise reads it, and nothing else is touched.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArgoWireKubeApi,
  Resources,
  ApiStatusError,
  type KubeApi,
  type KubeObject,
  type WatchEvent,
} from '../../../src/kube/index.ts';
import {
  servedType,
  translateObject,
  translateSelector,
  withoutArgoStatusOwnership,
} from '../../../src/kube/argo-wire/translate.ts';

const ourReplicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: {
    name: 'web-abc',
    labels: { app: 'web', 'rollouts-pod-template-hash': 'abc' },
    annotations: {
      'stepwise.dev/revision': '3',
      'stepwise.dev/scale-down-deadline': '2026-12-06T10:00:00Z',
      'stepwise.dev/role-metadata-keys': '[]',
    },
    ownerReferences: [
      {
        apiVersion: 'stepwise.dev/v1alpha1',
        kind: 'Rollout',
        name: 'web',
        uid: 'u1',
        controller: true,
      },
    ],
  },
  spec: { replicas: 2 },
};

const argoReplicaSet = {
  ...ourReplicaSet,
  metadata: {
    ...ourReplicaSet.metadata,
    annotations: {
      'rollout.argoproj.io/revision': '3',
      'scale-down-deadline': '2026-12-06T10:00:00Z',
      'stepwise.dev/role-metadata-keys': '[]',
    },
    ownerReferences: [
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        name: 'web',
        uid: 'u1',
        controller: true,
      },
    ],
  },
};

describe('argo wire: names', () => {
  it("a ReplicaSet goes out with Argo's owner group and revision and deadline keys; our own keys stay; back in it is ours again", () => {
    assert.deepEqual(translateObject(ourReplicaSet, 'out'), argoReplicaSet);
    assert.deepEqual(translateObject(argoReplicaSet, 'in'), ourReplicaSet);
  });

  it("a Rollout and its mark on a Service and the instance label: Argo's group and keys", () => {
    const rollout = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', labels: { 'stepwise.dev/controller-instance-id': 'a' } },
    };
    assert.deepEqual(translateObject(rollout, 'out'), {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: {
        name: 'web',
        labels: { 'argo-rollouts.argoproj.io/controller-instance-id': 'a' },
      },
    });
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web-stable',
        annotations: { 'stepwise.dev/managed-by': 'web', 'stepwise.dev/managed-by-instance': 'a' },
      },
    };
    assert.deepEqual(translateObject(service, 'out').metadata.annotations, {
      'argo-rollouts.argoproj.io/managed-by-rollouts': 'web',
      'stepwise.dev/managed-by-instance': 'a',
    });
  });

  it('an Event about a Rollout names the argoproj.io Rollout; one about a RolloutApproval (ours only) is unchanged', () => {
    const about = (kind: string) => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding: { apiVersion: 'stepwise.dev/v1alpha1', kind, name: 'web' },
    });
    assert.equal(
      translateObject(about('Rollout'), 'out').regarding.apiVersion,
      'argoproj.io/v1alpha1',
    );
    const approval = about('RolloutApproval');
    assert.equal(translateObject(approval, 'out'), approval, 'the same object: nothing renamed');
    const core = {
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { apiVersion: 'stepwise.dev/v1alpha1', kind: 'AnalysisRun', name: 'r' },
    };
    assert.equal(translateObject(core, 'out').involvedObject.apiVersion, 'argoproj.io/v1alpha1');
  });

  it('where both spellings are present the renamed one wins (in: what this controller writes)', () => {
    const both = {
      metadata: {
        annotations: { 'rollout.argoproj.io/revision': '4', 'stepwise.dev/revision': '2' },
      },
    };
    assert.deepEqual(translateObject(both, 'in').metadata.annotations, {
      'stepwise.dev/revision': '4',
    });
  });

  it('objects with nothing to rename come back as the same reference; non-objects as they are', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } } };
    assert.equal(translateObject(pod, 'out'), pod);
    assert.equal(translateObject(pod, 'in'), pod);
    assert.equal(translateObject(null, 'out'), null);
    assert.deepEqual(translateObject([1], 'in'), [1]);
  });

  it('types: the four kinds both projects define move to argoproj.io; RolloutApproval and the rest stay', () => {
    assert.equal(servedType(Resources.Rollout).group, 'argoproj.io');
    assert.equal(servedType(Resources.AnalysisRun).group, 'argoproj.io');
    assert.equal(servedType(Resources.AnalysisTemplate).group, 'argoproj.io');
    assert.equal(servedType(Resources.ClusterAnalysisTemplate).group, 'argoproj.io');
    assert.equal(servedType(Resources.RolloutApproval), Resources.RolloutApproval);
    assert.equal(servedType(Resources.ReplicaSet), Resources.ReplicaSet);
  });

  it('label selectors name the instance label as Argo does', () => {
    assert.equal(
      translateSelector('stepwise.dev/controller-instance-id=a,app=web', 'out'),
      'argo-rollouts.argoproj.io/controller-instance-id=a,app=web',
    );
    assert.equal(
      translateSelector('!stepwise.dev/controller-instance-id', 'out'),
      '!argo-rollouts.argoproj.io/controller-instance-id',
    );
    assert.equal(translateSelector(undefined, 'out'), undefined);
  });

  it("status ownership: Argo's controller's status entries are dropped, others kept; nothing to drop is undefined", () => {
    const ours = { manager: 'stepwise-controller', operation: 'Apply', subresource: 'status' };
    const argoStatus = {
      manager: 'rollouts-controller',
      operation: 'Update',
      subresource: 'status',
    };
    const argoSpec = { manager: 'rollouts-controller', operation: 'Update' };
    assert.deepEqual(withoutArgoStatusOwnership([ours, argoStatus, argoSpec]), [ours, argoSpec]);
    assert.deepEqual(withoutArgoStatusOwnership([argoStatus]), [{}]);
    assert.equal(withoutArgoStatusOwnership([ours, argoSpec]), undefined);
    assert.equal(withoutArgoStatusOwnership(undefined), undefined);
  });
});

/** Records what reaches the API server and answers with what it is given. */
class RecordingApi implements KubeApi {
  readonly calls: { op: string; type?: string; body?: unknown; selector?: string }[] = [];
  reply: Record<string, KubeObject> = {};
  conflictOnPatch = false;
  get<T extends KubeObject>(type: { group: string; plural: string }) {
    this.calls.push({ op: 'get', type: `${type.plural}.${type.group}` });
    return Promise.resolve(argoReplicaSet as unknown as T);
  }
  list<T extends KubeObject>(
    type: { group: string; plural: string },
    opts?: { labelSelector?: string },
  ) {
    this.calls.push({
      op: 'list',
      type: `${type.plural}.${type.group}`,
      selector: opts?.labelSelector,
    });
    return Promise.resolve({ items: [argoReplicaSet as unknown as T], resourceVersion: '1' });
  }
  watch<T extends KubeObject>(
    type: { group: string; plural: string },
    opts: { labelSelector?: string },
    onEvent: (e: WatchEvent<T>) => void,
  ) {
    this.calls.push({
      op: 'watch',
      type: `${type.plural}.${type.group}`,
      selector: opts.labelSelector,
    });
    onEvent({ type: 'MODIFIED', object: argoReplicaSet as unknown as T });
    return Promise.resolve({ abort: () => undefined });
  }
  create<T extends KubeObject>(obj: T) {
    this.calls.push({ op: 'create', body: obj });
    return Promise.resolve(obj);
  }
  update<T extends KubeObject>(obj: T) {
    this.calls.push({ op: 'update', body: obj });
    return Promise.resolve(obj);
  }
  apply<T extends KubeObject>(obj: T) {
    this.calls.push({ op: 'apply', body: obj });
    return Promise.resolve(obj);
  }
  applyStatus<T extends KubeObject>(obj: T) {
    this.calls.push({ op: 'applyStatus', body: obj });
    return Promise.resolve((this.reply.applyStatus ?? obj) as T);
  }
  patchMerge<T extends KubeObject>(
    type: { group: string; plural: string },
    _ns: unknown,
    _n: unknown,
    patch: unknown,
  ) {
    this.calls.push({ op: 'patchMerge', type: `${type.plural}.${type.group}`, body: patch });
    if (this.conflictOnPatch) {
      return Promise.reject(new ApiStatusError(409, 'Conflict', 'changed'));
    }
    return Promise.resolve((this.reply.patchMerge ?? {}) as T);
  }
  evict() {
    return Promise.resolve(true);
  }
  delete(type: { group: string; plural: string }) {
    this.calls.push({ op: 'delete', type: `${type.plural}.${type.group}` });
    return Promise.resolve(true);
  }
}

describe('argo wire: the client', () => {
  it('reads, lists and watches argoproj.io and hands back our spelling', async () => {
    const inner = new RecordingApi();
    const api = new ArgoWireKubeApi(inner);
    assert.deepEqual(await api.get(Resources.ReplicaSet, 'ns', 'web-abc'), ourReplicaSet);
    const listed = await api.list(Resources.Rollout, {
      labelSelector: 'stepwise.dev/controller-instance-id=a',
    });
    assert.deepEqual(listed.items, [ourReplicaSet]);
    const seen: unknown[] = [];
    await api.watch(
      Resources.AnalysisRun,
      { resourceVersion: '1' },
      (e) => seen.push(e),
      () => undefined,
    );
    assert.deepEqual(seen, [{ type: 'MODIFIED', object: ourReplicaSet }]);
    await api.delete(Resources.ClusterAnalysisTemplate, undefined, 't');
    assert.deepEqual(
      inner.calls.map((c) => [c.op, c.type, c.selector]),
      [
        ['get', 'replicasets.apps', undefined],
        ['list', 'rollouts.argoproj.io', 'argo-rollouts.argoproj.io/controller-instance-id=a'],
        ['watch', 'analysisruns.argoproj.io', undefined],
        ['delete', 'clusteranalysistemplates.argoproj.io', undefined],
      ],
    );
  });

  it("a status write takes Argo's controller's status fields over once, over the version written; a conflict leaves it to the next write", async () => {
    const inner = new RecordingApi();
    const api = new ArgoWireKubeApi(inner);
    const status = { phase: 'Paused' };
    const fields = [
      { manager: 'stepwise-controller', operation: 'Apply', subresource: 'status' },
      { manager: 'rollouts-controller', operation: 'Update', subresource: 'status' },
    ];
    inner.reply.applyStatus = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'ns', resourceVersion: '7', managedFields: fields },
    };
    inner.reply.patchMerge = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', resourceVersion: '8' },
    };
    const written: KubeObject = await api.applyStatus({
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      status,
    });
    assert.equal(written.metadata?.resourceVersion, '8', 'the version after the take-over');
    assert.equal(written.apiVersion, 'stepwise.dev/v1alpha1');
    const [applied, patched] = inner.calls;
    assert.equal((applied?.body as KubeObject).apiVersion, 'argoproj.io/v1alpha1');
    assert.deepEqual(
      [patched?.op, patched?.type, patched?.body],
      [
        'patchMerge',
        'rollouts.argoproj.io',
        { metadata: { resourceVersion: '7', managedFields: [fields[0]] } },
      ],
    );

    inner.calls.length = 0;
    inner.conflictOnPatch = true;
    const kept: KubeObject = await api.applyStatus({
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      status,
    });
    assert.equal(kept.metadata?.resourceVersion, '7');

    inner.calls.length = 0;
    inner.reply.applyStatus = {
      ...inner.reply.applyStatus,
      metadata: { name: 'web', resourceVersion: '9', managedFields: [fields[0]] },
    };
    await api.applyStatus({
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      status,
    });
    assert.deepEqual(
      inner.calls.map((c) => c.op),
      ['applyStatus'],
      'nothing of Argo left: no second write',
    );
  });
});
