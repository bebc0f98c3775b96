// The chart without helm: its copies of deploy/ are current, its version is the controller's, and
// values.schema.json declares every default in values.yaml. What needs helm (lint, rendering,
// install) is in test/e2e/helm.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { load } from 'js-yaml';
import { CHART_DIR, chartCopies } from '../../helm/chart-copies.ts';
import { REPO_ROOT } from '../../cluster/state.ts';

const read = (path: string): string => readFileSync(path, 'utf8');

test("the chart's CRDs, RBAC and identity policy are byte-identical to deploy/ (run `make chart-files`)", () => {
  const copies = [...chartCopies()];
  assert.deepEqual(
    copies.filter(([copy]) => copy.includes('/files/crds/')).map(([copy]) => basename(copy)),
    [
      'analysisruns.stepwise.dev.yaml',
      'analysistemplates.stepwise.dev.yaml',
      'clusteranalysistemplates.stepwise.dev.yaml',
      'rolloutapprovals.stepwise.dev.yaml',
      'rollouts.stepwise.dev.yaml',
    ],
  );
  for (const [copy, source] of copies) {
    assert.equal(
      read(copy),
      read(source),
      `${relative(REPO_ROOT, copy)} differs from ${relative(REPO_ROOT, source)}`,
    );
  }
});

test("Chart.yaml: apiVersion v2, and appVersion is package.json's version", () => {
  const chart = load(read(join(CHART_DIR, 'Chart.yaml'))) as Record<string, unknown>;
  const pkg = JSON.parse(read(join(REPO_ROOT, 'package.json'))) as { version: string };
  assert.equal(chart.apiVersion, 'v2');
  assert.equal(chart.name, 'stepwise');
  assert.match(String(chart.version), /^\d+\.\d+\.\d+$/);
  assert.equal(chart.appVersion, pkg.version);
});

interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  $ref?: string;
  definitions?: Record<string, Schema>;
}

const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

test('values.schema.json declares every value in values.yaml with its type', () => {
  const root = JSON.parse(read(join(CHART_DIR, 'values.schema.json'))) as Schema;
  const values = load(read(join(CHART_DIR, 'values.yaml')));
  const resolve = (s: Schema): Schema =>
    s.$ref ? resolve(root.definitions?.[s.$ref.replace('#/definitions/', '')] ?? {}) : s;
  const check = (value: unknown, schema: Schema, path: string): void => {
    const s = resolve(schema);
    const types = [s.type ?? []].flat();
    const type = jsonType(value);
    assert.ok(
      types.length === 0 ||
        types.includes(type) ||
        (type === 'integer' && types.includes('number')),
      `${path}: ${type}, the schema says ${types.join(' or ')}`,
    );
    if (type !== 'object') return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const declared = s.properties?.[key];
      const open = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      assert.ok(
        declared ?? open ?? s.additionalProperties !== false,
        `${path}.${key} is not in values.schema.json`,
      );
      check(child, declared ?? open ?? {}, `${path}.${key}`);
    }
  };
  check(values, root, 'values');
  assert.equal(root.additionalProperties, false, 'a misspelt top-level key is an error');
});

test('values.schema.json describes every value (helm and editors show it)', () => {
  const root = JSON.parse(read(join(CHART_DIR, 'values.schema.json'))) as Schema;
  const undescribed: string[] = [];
  const walk = (schema: Schema, path: string): void => {
    if (!schema.description?.trim()) undescribed.push(path);
    for (const [key, child] of Object.entries(schema.properties ?? {}))
      walk(child, `${path}.${key}`);
  };
  for (const [key, child] of Object.entries(root.properties ?? {})) walk(child, key);
  assert.deepEqual(undescribed, []);
  assert.ok(Object.keys(root.properties ?? {}).length > 30, 'the walk saw the values');
});
