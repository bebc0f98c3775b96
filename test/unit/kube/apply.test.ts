import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestKubeApi } from '../../../src/kube/apply.ts';
import { ApiStatusError, KubeTransportError, type ApiError } from '../../../src/kube/errors.ts';
import type { WatchEvent } from '../../../src/kube/kube-api.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { RestClient, type RequestInfo } from '../../../src/kube/rest.ts';
import { flush } from '../../fixtures/kube/fake-clock.ts';
import { FakeTransport, StreamBody } from '../../fixtures/kube/fake-transport.ts';

function setup() {
  const t = new FakeTransport();
  const seen: RequestInfo[] = [];
  const api = new RestKubeApi(new RestClient(t, { onRequest: (i) => seen.push(i) }));
  return { t, api, seen };
}

const rs = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web-6d4f', namespace: 'shop', managedFields: [{ manager: 'x' }] },
  spec: { replicas: 2 },
};

describe('RestKubeApi: server-side apply', () => {
  test('apply PATCHes apply-patch+yaml with our field manager, forced, without managedFields', async () => {
    const { t, api, seen } = setup();
    t.respond = () => ({
      status: 200,
      body: { ...rs, metadata: { ...rs.metadata, resourceVersion: '9' } },
    });
    const out: KubeObject = await api.apply(rs);
    assert.equal(out.metadata?.resourceVersion, '9');
    assert.equal(
      t.last(),
      'PATCH /apis/apps/v1/namespaces/shop/replicasets/web-6d4f?fieldManager=stepwise-controller&fieldValidation=Strict&force=true',
    );
    const req = t.requests[0];
    assert.equal(req?.headers?.['Content-Type'], 'application/apply-patch+yaml');
    assert.equal(req?.headers?.['Accept'], 'application/json');
    assert.deepEqual(JSON.parse(req?.body ?? ''), {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-6d4f', namespace: 'shop' },
      spec: { replicas: 2 },
    });
    assert.deepEqual(
      seen.map((s) => [s.verb, s.resource, s.code]),
      [['apply', 'replicasets.apps', '200']],
    );
  });

  test('applyStatus goes through the status subresource; options override', async () => {
    const { t, api, seen } = setup();
    const ro = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'shop' },
      status: { phase: 'Paused' },
    };
    await api.applyStatus(ro, { fieldManager: 'kubectl-stepwise', force: false, dryRun: true });
    assert.equal(
      t.last(),
      'PATCH /apis/stepwise.dev/v1alpha1/namespaces/shop/rollouts/web/status?dryRun=All&fieldManager=kubectl-stepwise&fieldValidation=Strict&force=false',
    );
    assert.equal(seen[0]?.resource, 'rollouts.stepwise.dev/status');
  });

  test('a conflict comes back as an ApiStatusError with the server reason', async () => {
    const { t, api } = setup();
    t.respond = () => ({
      status: 409,
      body: {
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        message: 'Apply failed with 1 conflict',
      },
    });
    await assert.rejects(api.apply(rs), (e: unknown) => {
      assert.ok(e instanceof ApiStatusError);
      assert.equal(e.reason, 'Conflict');
      assert.equal(e.message, 'Apply failed with 1 conflict');
      assert.equal(e.code, 'SW_KUBE_API_STATUS');
      return true;
    });
  });

  test('an unknown kind is refused before any request', async () => {
    const { t, api } = setup();
    await assert.rejects(
      api.apply({ apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 'a' } }),
      TypeError,
    );
    assert.equal(t.requests.length, 0);
  });
});

describe('RestKubeApi: reads and other writes', () => {
  test('get returns the object, or undefined on 404', async () => {
    const { t, api, seen } = setup();
    t.respond = () => ({ status: 200, body: { metadata: { name: 'l' } } });
    const l = await api.get(Resources.Lease, 'sw', 'l');
    assert.equal(t.last(), 'GET /apis/coordination.k8s.io/v1/namespaces/sw/leases/l');
    assert.equal(l?.kind, 'Lease', 'kind filled in');
    t.respond = () => ({ status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } });
    assert.equal(await api.get(Resources.Lease, 'sw', 'l'), undefined);
    assert.deepEqual(
      seen.map((s) => s.code),
      ['200', '404'],
    );
  });

  test('list passes paging and selectors and fills apiVersion/kind on items', async () => {
    const { t, api } = setup();
    t.respond = () => ({
      status: 200,
      body: {
        items: [{ metadata: { name: 'a' } }],
        metadata: { resourceVersion: '77', continue: 'tok' },
      },
    });
    const page = await api.list(Resources.ReplicaSet, {
      labelSelector: 'app=web',
      limit: 500,
      continue: 'c0',
    });
    assert.equal(
      t.last(),
      'GET /apis/apps/v1/replicasets?continue=c0&labelSelector=app%3Dweb&limit=500'.replace(
        '%3D',
        '=',
      ),
    );
    assert.deepEqual(page, {
      items: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'a' } }],
      resourceVersion: '77',
      continue: 'tok',
    });
  });

  test('core types use /api/v1; cluster-scoped types have no namespace segment', async () => {
    const { t, api } = setup();
    t.respond = () => ({ status: 200, body: { items: [], metadata: { resourceVersion: '1' } } });
    await api.list(Resources.Service, { namespace: 'shop' });
    assert.equal(t.last(), 'GET /api/v1/namespaces/shop/services');
    await api.list(Resources.ClusterAnalysisTemplate, { namespace: 'ignored' });
    assert.equal(t.last(), 'GET /apis/stepwise.dev/v1alpha1/clusteranalysistemplates');
  });

  test('create POSTs to the collection, update PUTs with the object, patchMerge merge-patches', async () => {
    const { t, api } = setup();
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l', namespace: 'sw', resourceVersion: '5' },
    };
    await api.create(lease);
    assert.equal(
      t.last(),
      'POST /apis/coordination.k8s.io/v1/namespaces/sw/leases?fieldManager=stepwise-controller&fieldValidation=Strict',
    );
    await api.update(lease);
    assert.equal(
      t.last(),
      'PUT /apis/coordination.k8s.io/v1/namespaces/sw/leases/l?fieldManager=stepwise-controller&fieldValidation=Strict',
    );
    const put = JSON.parse(t.requests[1]?.body ?? '') as { metadata: { resourceVersion: string } };
    assert.equal(put.metadata.resourceVersion, '5');
    await api.patchMerge(Resources.Event, 'shop', 'e1', { series: { count: 2 } });
    assert.equal(t.requests[2]?.headers?.['Content-Type'], 'application/merge-patch+json');
    assert.equal(
      t.last(),
      'PATCH /apis/events.k8s.io/v1/namespaces/shop/events/e1?fieldManager=stepwise-controller&fieldValidation=Strict',
    );
  });

  test('delete sends DeleteOptions; a missing object is false, not an error', async () => {
    const { t, api } = setup();
    assert.equal(
      await api.delete(Resources.Pod, 'shop', 'p', { propagationPolicy: 'Background' }),
      true,
    );
    assert.deepEqual(JSON.parse(t.requests[0]?.body ?? ''), {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Background',
    });
    t.respond = () => ({ status: 404, body: '' });
    assert.equal(await api.delete(Resources.Pod, 'shop', 'p'), false);
  });

  test('evict POSTs a policy/v1 Eviction to pods/NAME/eviction; gone is false', async () => {
    const { t, api, seen } = setup();
    assert.equal(await api.evict('shop', 'web-1'), true);
    assert.equal(t.last(), 'POST /api/v1/namespaces/shop/pods/web-1/eviction');
    assert.deepEqual(JSON.parse(t.requests[0]?.body ?? ''), {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'web-1', namespace: 'shop' },
    });
    assert.equal(seen[0]?.resource, 'pods/eviction');
    t.respond = () => ({ status: 404, body: { kind: 'Status', code: 404, reason: 'NotFound' } });
    assert.equal(await api.evict('shop', 'web-1'), false);
    t.respond = () => ({
      status: 429,
      body: {
        kind: 'Status',
        code: 429,
        reason: 'TooManyRequests',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
      },
    });
    await assert.rejects(api.evict('shop', 'web-1'), ApiStatusError);
  });

  test('no response becomes a KubeTransportError and is counted as code "error"', async () => {
    const { t, api, seen } = setup();
    t.respond = () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    await assert.rejects(api.get(Resources.Pod, 'shop', 'p'), (e: unknown) => {
      assert.ok(e instanceof KubeTransportError);
      assert.match(e.message, /ECONNREFUSED/);
      return true;
    });
    assert.equal(seen[0]?.code, 'error');
  });

  test('429 carries Retry-After', async () => {
    const { t, api } = setup();
    t.respond = () => ({ status: 429, body: 'slow down', headers: { 'retry-after': '3' } });
    await assert.rejects(api.get(Resources.Pod, 'shop', 'p'), (e: unknown) => {
      assert.ok(e instanceof ApiStatusError);
      assert.equal(e.reason, 'TooManyRequests');
      assert.equal(e.retryAfterSeconds, 3);
      return true;
    });
  });
});

describe('RestKubeApi: watch', () => {
  test('streams events split across chunks; bookmarks; server close ends it cleanly', async () => {
    const { t, api, seen } = setup();
    const s = new StreamBody();
    t.respond = () => s;
    const events: WatchEvent<KubeObject>[] = [];
    const done: (ApiError | undefined)[] = [];
    await api.watch(
      Resources.ReplicaSet,
      { namespace: 'shop', resourceVersion: '10', allowWatchBookmarks: true, timeoutSeconds: 300 },
      (e) => events.push(e),
      (err) => done.push(err),
    );
    assert.equal(
      t.last(),
      'GET /apis/apps/v1/namespaces/shop/replicasets?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300&watch=true',
    );
    s.write(
      '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"11"}}}\n{"type":"BOOK',
    );
    s.write('MARK","object":{"metadata":{"resourceVersion":"12"}}}\n');
    s.end();
    await flush();
    assert.deepEqual(
      events.map((e) => e.type),
      ['ADDED', 'BOOKMARK'],
    );
    assert.deepEqual(done, [undefined]);
    assert.equal(seen[0]?.verb, 'watch');
  });

  test('a watch refused with 410 rejects with a Gone error', async () => {
    const { t, api } = setup();
    t.respond = () => ({
      status: 410,
      body: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' },
    });
    await assert.rejects(
      api.watch(
        Resources.Pod,
        { resourceVersion: '1' },
        () => undefined,
        () => undefined,
      ),
      (e: unknown) => e instanceof ApiStatusError && e.httpStatus === 410,
    );
  });

  test('a broken or corrupt stream ends with an error; abort ends silently', async () => {
    const { t, api } = setup();
    const s1 = new StreamBody();
    t.respond = () => s1;
    const done: (ApiError | undefined)[] = [];
    await api.watch(
      Resources.Pod,
      { resourceVersion: '1' },
      () => undefined,
      (e) => done.push(e),
    );
    s1.write('not json\n');
    await flush();
    assert.equal(done.length, 1);
    assert.ok(done[0] instanceof KubeTransportError);
    assert.equal(s1.cancelled, true, 'the connection is closed');

    const s2 = new StreamBody();
    t.respond = () => s2;
    const events: unknown[] = [];
    const h = await api.watch(
      Resources.Pod,
      { resourceVersion: '1' },
      (e) => events.push(e),
      (e) => done.push(e),
    );
    h.abort();
    s2.line({ type: 'ADDED', object: {} });
    await flush();
    assert.equal(done.length, 1, 'no onDone after abort');
    assert.deepEqual(events, []);
  });

  test('a malformed event ends the watch with an error', async () => {
    const { t, api } = setup();
    const s = new StreamBody();
    t.respond = () => s;
    const done: (ApiError | undefined)[] = [];
    await api.watch(
      Resources.Pod,
      { resourceVersion: '1' },
      () => undefined,
      (e) => done.push(e),
    );
    s.line({ type: 'ADDED' });
    await flush();
    assert.ok(done[0] instanceof KubeTransportError);
  });
});
