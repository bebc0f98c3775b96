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

interface CrdShape {
  spec: {
    scope: string;
    names: { kind: string; shortNames: string[] };
    versions: {
      subresources?: { status?: object };
      additionalPrinterColumns: { name: string; jsonPath: string }[];
      schema: { openAPIV3Schema: { properties: Record<string, unknown> } };
    }[];
  };
}

test('the analysis CRDs: scope, short names, status subresource on AnalysisRun only, columns', () => {
  const read = (file: string): CrdShape =>
    load(readFileSync(join(crdDir, file), 'utf8')) as CrdShape;
  const rows = [
    ['analysistemplates.stepwise.dev.yaml', 'AnalysisTemplate', 'Namespaced', 'swat', false],
    [
      'clusteranalysistemplates.stepwise.dev.yaml',
      'ClusterAnalysisTemplate',
      'Cluster',
      'swcat',
      false,
    ],
    ['analysisruns.stepwise.dev.yaml', 'AnalysisRun', 'Namespaced', 'swar', true],
  ] as const;
  for (const [file, kind, scope, shortName, hasStatus] of rows) {
    const crd = read(file);
    const version = crd.spec.versions[0];
    assert.ok(version);
    assert.equal(crd.spec.names.kind, kind);
    assert.equal(crd.spec.scope, scope);
    assert.deepEqual(crd.spec.names.shortNames, [shortName]);
    assert.equal(
      version.subresources?.status !== undefined,
      hasStatus,
      `${kind} status subresource`,
    );
    assert.equal('status' in version.schema.openAPIV3Schema.properties, hasStatus);
  }
  const run = read('analysisruns.stepwise.dev.yaml').spec.versions[0];
  assert.deepEqual(
    run?.additionalPrinterColumns.map((c) => [c.name, c.jsonPath]),
    [
      ['Phase', '.status.phase'],
      ['Age', '.metadata.creationTimestamp'],
    ],
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
