// The one ownerReference builder: what every object we create says about its owner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerOwnerReference } from '../../../src/api/owner-reference.ts';

test('names the owner as controller, blocking its deletion until the object is gone', () => {
  assert.deepEqual(
    controllerOwnerReference({
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', uid: 'u-1', namespace: 'ns' } as { name: string; uid: string },
    }),
    {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      name: 'web',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    },
  );
});

test('a missing name or uid is written empty, in the same key order', () => {
  const ref = controllerOwnerReference({ apiVersion: 'v', kind: 'K', metadata: {} });
  assert.deepEqual(Object.entries(ref), [
    ['apiVersion', 'v'],
    ['kind', 'K'],
    ['name', ''],
    ['uid', ''],
    ['controller', true],
    ['blockOwnerDeletion', true],
  ]);
});
