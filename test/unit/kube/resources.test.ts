import { test } from 'node:test';
import assert from 'node:assert/strict';
import { microTime, sleep } from '../../../src/kube/clock.ts';
import {
  namespacedKey,
  objectKey,
  splitKey,
  stripManagedFields,
} from '../../../src/kube/objects.ts';
import {
  apiVersionOf,
  collectionPath,
  objectPath,
  parseApiVersion,
  resourceLabel,
  ResourceRegistry,
  Resources,
} from '../../../src/kube/resources.ts';
import { deepFreeze, Store } from '../../../src/kube/store.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

test('paths for core, grouped, namespaced and cluster-scoped types', () => {
  assert.equal(collectionPath(Resources.Pod), '/api/v1/pods');
  assert.equal(collectionPath(Resources.Pod, 'shop'), '/api/v1/namespaces/shop/pods');
  assert.equal(
    objectPath(Resources.Rollout, 'shop', 'web', 'status'),
    '/apis/stepwise.dev/v1alpha1/namespaces/shop/rollouts/web/status',
  );
  assert.equal(
    objectPath(Resources.ClusterAnalysisTemplate, undefined, 't'),
    '/apis/stepwise.dev/v1alpha1/clusteranalysistemplates/t',
  );
  assert.equal(
    objectPath(Resources.Service, 'a b', 'x/y'),
    '/api/v1/namespaces/a%20b/services/x%2Fy',
  );
  assert.throws(() => objectPath(Resources.Pod, undefined, 'p'), TypeError);
  assert.throws(() => objectPath(Resources.Pod, 'ns', ''), TypeError);
});

test('apiVersion and labels', () => {
  assert.deepEqual(parseApiVersion('v1'), { group: '', version: 'v1' });
  assert.deepEqual(parseApiVersion('apps/v1'), { group: 'apps', version: 'v1' });
  assert.equal(apiVersionOf(Resources.Lease), 'coordination.k8s.io/v1');
  assert.equal(resourceLabel(Resources.Service), 'services');
  assert.equal(resourceLabel(Resources.Rollout, 'status'), 'rollouts.stepwise.dev/status');
});

test('registry finds built-in and registered types, refuses unknown ones', () => {
  const r = new ResourceRegistry();
  assert.equal(r.typeOf({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }), Resources.ReplicaSet);
  assert.throws(() => r.typeOf({ kind: 'ReplicaSet' }), TypeError);
  const gw = {
    group: 'gateway.networking.k8s.io',
    version: 'v1',
    kind: 'Gateway',
    plural: 'gateways',
    namespaced: true,
  };
  assert.throws(
    () => r.typeOf({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway' }),
    /register/,
  );
  r.add(gw);
  assert.equal(r.lookup('gateway.networking.k8s.io/v1', 'Gateway'), gw);
});

test('object keys', () => {
  assert.equal(objectKey({ metadata: { namespace: 'shop', name: 'web' } }), 'shop/web');
  assert.equal(objectKey({ metadata: { name: 'cluster-thing' } }), 'cluster-thing');
  assert.deepEqual(splitKey('shop/web'), { namespace: 'shop', name: 'web' });
  assert.deepEqual(splitKey('t'), { namespace: undefined, name: 't' });
  const rollout = { metadata: { namespace: 'shop', name: 'web' } };
  assert.equal(namespacedKey(rollout), objectKey(rollout), 'the same key the informer stores by');
  assert.deepEqual(splitKey(namespacedKey(rollout)), { namespace: 'shop', name: 'web' });
});

test('stripManagedFields copies without touching the input', () => {
  const o = { metadata: { name: 'a', managedFields: [{}] }, spec: {} };
  const s = stripManagedFields(o);
  assert.deepEqual(s, { metadata: { name: 'a' }, spec: {} });
  assert.equal(o.metadata.managedFields.length, 1);
  const plain = { metadata: { name: 'b' } };
  assert.equal(stripManagedFields(plain), plain);
});

test('store: set/delete keep indexes in step; deepFreeze freezes nested data', () => {
  const s = new Store<{ metadata: { name: string; labels?: Record<string, string> } }>({
    app: (o) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []),
  });
  s.set('a', { metadata: { name: 'a', labels: { app: 'x' } } });
  s.set('b', { metadata: { name: 'b', labels: { app: 'x' } } });
  assert.equal(s.byIndex('app', 'x').length, 2);
  s.set('a', { metadata: { name: 'a', labels: { app: 'y' } } });
  assert.deepEqual(
    s.byIndex('app', 'x').map((o) => o.metadata.name),
    ['b'],
  );
  assert.equal(s.delete('b')?.metadata.name, 'b');
  assert.equal(s.delete('b'), undefined);
  assert.deepEqual(s.byIndex('app', 'x'), []);
  assert.deepEqual(s.keys(), ['a']);
  const f = deepFreeze({ a: { b: [{ c: 1 }] } });
  assert.throws(() => {
    (f.a.b[0] as { c: number }).c = 2;
  }, TypeError);
});

test('microTime has six fractional digits', () => {
  assert.equal(microTime(Date.UTC(2030, 0, 2, 3, 4, 5, 678)), '2030-01-02T03:04:05.678000Z');
});

test('sleep resolves on the clock or at once on abort, and cancels its timer', async () => {
  const clock = new FakeClock();
  let done = false;
  void sleep(clock, 100).then(() => (done = true));
  await clock.tick(99);
  assert.equal(done, false);
  await clock.tick(1);
  assert.equal(done, true);
  const ac = new AbortController();
  const p = sleep(clock, 1000, ac.signal);
  ac.abort();
  await p;
  assert.equal(clock.pending(), 0);
  await sleep(clock, 5, ac.signal); // already aborted: immediate
});

test('fake clock fires due timers in order, including ones armed while advancing', () => {
  const clock = new FakeClock();
  const seen: string[] = [];
  clock.after(20, () => seen.push('b'));
  clock.after(10, () => {
    seen.push('a');
    clock.after(5, () => seen.push('a+5'));
  });
  const cancel = clock.after(15, () => seen.push('cancelled'));
  cancel();
  clock.advance(30);
  assert.deepEqual(seen, ['a', 'a+5', 'b']);
});
