import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import Type from 'typebox';
import { renderCrds } from '../../../src/api/crd-gen.ts';
import { toStructural } from '../../../src/api/crd.ts';

const crdDir = join(import.meta.dirname, '..', '..', '..', 'deploy', 'crds');

test('committed CRDs are exactly what src/api generates (run `make crds` after a schema change)', () => {
  for (const [name, text] of renderCrds()) {
    assert.equal(readFileSync(join(crdDir, name), 'utf8'), text, `${name} drifted from src/api`);
  }
});

test('the Rollout CRD has status and scale subresources and the printer columns', () => {
  const crd = load(readFileSync(join(crdDir, 'rollouts.stepwise.dev.yaml'), 'utf8')) as {
    spec: {
      names: { shortNames: string[] };
      versions: {
        subresources: { status: object; scale: { specReplicasPath: string } };
        additionalPrinterColumns: { name: string }[];
      }[];
    };
  };
  const version = crd.spec.versions[0];
  assert.ok(version);
  assert.deepEqual(crd.spec.names.shortNames, ['swro']);
  assert.deepEqual(version.subresources.status, {});
  assert.equal(version.subresources.scale.specReplicasPath, '.spec.replicas');
  assert.deepEqual(
    version.additionalPrinterColumns.map((c) => c.name),
    ['Desired', 'Current', 'Up-to-date', 'Available', 'Phase', 'Step', 'Weight', 'Age'],
  );
});

test('structural conversion drops runtime-only keywords and refuses non-structural ones', () => {
  const strict = Type.Object({ a: Type.String() }, { additionalProperties: false });
  assert.deepEqual(toStructural(strict), {
    type: 'object',
    required: ['a'],
    properties: { a: { type: 'string' } },
  });
  assert.throws(() => toStructural(Type.Literal('x')), /'const' is not allowed/);
  assert.throws(
    () => toStructural(Type.Union([Type.Object({}), Type.String()])),
    /needs a type|anyOf is only allowed/,
  );
});
