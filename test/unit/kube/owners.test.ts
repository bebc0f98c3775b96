import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ownerIndex, ownerKey, ownerKeysForUpdate } from '../../../src/kube/owners.ts';
import type { KubeObject, OwnerReference } from '../../../src/kube/objects.ts';

const ROLLOUT = { group: 'stepwise.dev', kind: 'Rollout' };
const ref = (over: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'Rollout',
  name: 'web',
  uid: 'u',
  controller: true,
  ...over,
});
const rs = (refs: OwnerReference[], namespace = 'shop'): KubeObject => ({
  metadata: { name: 'web-abc', ...(namespace ? { namespace } : {}), ownerReferences: refs },
});

const rows: [string, KubeObject, string | undefined][] = [
  ['controller ref of the kind', rs([ref()]), 'shop/web'],
  ['any version of the group', rs([ref({ apiVersion: 'stepwise.dev/v1' })]), 'shop/web'],
  ['another group', rs([ref({ apiVersion: 'argoproj.io/v1alpha1' })]), undefined],
  ['another kind', rs([ref({ kind: 'Deployment', apiVersion: 'apps/v1' })]), undefined],
  ['not the controller', rs([ref({ controller: false })]), undefined],
  [
    'controller unset',
    rs([{ apiVersion: 'stepwise.dev/v1alpha1', kind: 'Rollout', name: 'web', uid: 'u' }]),
    undefined,
  ],
  ['no owners', { metadata: { name: 'x', namespace: 'shop' } }, undefined],
  ['cluster-scoped child', rs([ref()], ''), undefined],
  [
    'picks the controller among several',
    rs([ref({ controller: false, name: 'other' }), ref({ name: 'mine' })]),
    'shop/mine',
  ],
];

for (const [name, obj, want] of rows) {
  test(`ownerKey: ${name}`, () => assert.equal(ownerKey(obj, ROLLOUT), want));
}

test('core group owners match with group ""', () => {
  const pod = rs([
    { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u', controller: true },
  ]);
  assert.equal(ownerKey(pod, { group: '', kind: 'ReplicationController' }), 'shop/rc');
});

test('ownerIndex gives [key] or []', () => {
  const idx = ownerIndex(ROLLOUT);
  assert.deepEqual(idx(rs([ref()])), ['shop/web']);
  assert.deepEqual(idx(rs([])), []);
});

test('ownerKeysForUpdate: old and new owners, once each', () => {
  assert.deepEqual(
    ownerKeysForUpdate(rs([ref({ name: 'a' })]), rs([ref({ name: 'b' })]), ROLLOUT),
    ['shop/a', 'shop/b'],
  );
  assert.deepEqual(ownerKeysForUpdate(rs([ref()]), rs([ref()]), ROLLOUT), ['shop/web']);
  assert.deepEqual(ownerKeysForUpdate(undefined, rs([ref()]), ROLLOUT), ['shop/web']);
});

test('ownerKey is the namespace and name of a matching controller ref, whatever the version', () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
      fc.stringMatching(/^v[0-9]+((alpha|beta)[0-9]+)?$/),
      (ns, name, version) => {
        const child = rs([ref({ name, apiVersion: `stepwise.dev/${version}` })], ns);
        assert.equal(ownerKey(child, ROLLOUT), `${ns}/${name}`);
      },
    ),
  );
});
