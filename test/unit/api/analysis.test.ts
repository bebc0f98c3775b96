// The analysis API's runtime validation: the committed fixtures (what the e2e test sends to the
// API server) are valid, and each rule the schema cannot express has a message with its path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import {
  analysisRunSpecProblems,
  analysisTemplateSpecProblems,
  type AnalysisTemplateSpec,
} from '../../../src/api/index.ts';

const fixture = (name: string): { kind: string; spec: AnalysisTemplateSpec } =>
  load(
    readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'analysis', name), 'utf8'),
  ) as { kind: string; spec: AnalysisTemplateSpec };

const prometheus = { address: 'http://127.0.0.1:9090', query: 'up' };
const spec = (extra: object = {}, provider: object = { prometheus }): object => ({
  metrics: [{ name: 'm', provider, ...extra }],
});

test('the fixtures of each kind are valid', () => {
  assert.deepEqual(analysisTemplateSpecProblems(fixture('analysistemplate.yaml').spec), []);
  assert.deepEqual(analysisTemplateSpecProblems(fixture('clusteranalysistemplate.yaml').spec), []);
  assert.deepEqual(analysisRunSpecProblems(fixture('analysisrun.yaml').spec), []);
});

test('schema problems name the field and what must hold', () => {
  assert.deepEqual(analysisRunSpecProblems({ metrics: [{ name: 'm', provider: {} }] }), [
    'spec.metrics[0].provider: must set exactly one provider',
  ]);
  assert.deepEqual(analysisTemplateSpecProblems(spec({ surprise: 1 })), [
    'spec.metrics[0]: unknown field surprise',
  ]);
  assert.deepEqual(analysisTemplateSpecProblems({}), ['spec: must have metrics']);
  assert.deepEqual(
    analysisTemplateSpecProblems(spec({}, { prometheus: { ...prometheus, timeout: '30s' } })),
    ['spec.metrics[0].provider.prometheus.timeout: must be integer'],
  );
  assert.deepEqual(
    analysisTemplateSpecProblems({
      args: [{ name: 'h', valueFrom: { podTemplateHashValue: 'Newest' } }],
      ...spec(),
    }),
    ['spec.args[0].valueFrom.podTemplateHashValue: must be equal to one of the allowed values'],
  );
  assert.deepEqual(analysisRunSpecProblems({ ...spec(), terminate: 'yes' }), [
    'spec.terminate: must be boolean',
  ]);
});

test('an arg has one source', () => {
  const problems = analysisTemplateSpecProblems({
    args: [
      { name: 'a', value: 'x', valueFrom: { fieldRef: { fieldPath: 'spec.replicas' } } },
      { name: 'b', valueFrom: {} },
    ],
    ...spec(),
  });
  assert.deepEqual(problems, [
    'spec.args[0]: must set value or valueFrom, not both',
    'spec.args[1].valueFrom: must set exactly one of secretKeyRef, fieldRef, podTemplateHashValue',
  ]);
});

test('secrets stay out of the spec', () => {
  const withAuth = (authentication: object, args: object[] = []): string[] =>
    analysisTemplateSpecProblems({
      args,
      ...spec({}, { prometheus: { ...prometheus, authentication } }),
    });
  assert.deepEqual(withAuth({ basicAuth: { username: 'u', password: 'hunter2' } }), [
    'spec.metrics[0].provider.prometheus.authentication.basicAuth.password: must not hold a ' +
      'secret: use passwordSecretKeyRef, or {{args.NAME}} of an arg with valueFrom.secretKeyRef',
  ]);
  assert.equal(
    withAuth({ basicAuth: { password: '{{args.pw}}' } }, [{ name: 'pw', value: 'hunter2' }]).length,
    1,
    'an arg with a literal value is a secret in the spec too',
  );
  assert.deepEqual(
    withAuth({ basicAuth: { password: '{{ args.pw }}' } }, [
      { name: 'pw', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
    ]),
    [],
  );
  assert.deepEqual(withAuth({ basicAuth: { passwordSecretKeyRef: { name: 's', key: 'k' } } }), []);
  assert.deepEqual(withAuth({ basicAuth: { username: 'u' } }), [
    'spec.metrics[0].provider.prometheus.authentication.basicAuth: must set exactly one of ' +
      'password, passwordSecretKeyRef',
  ]);
  assert.deepEqual(withAuth({ bearer: { tokenSecretKeyRef: { name: 's', key: 'k' } } }), []);
  assert.deepEqual(withAuth({ oauth2: { clientSecret: 'x' } }), [
    'spec.metrics[0].provider.prometheus.authentication: unknown field oauth2',
  ]);
});

test('a header has a value or a Secret reference, not both', () => {
  const headers = [
    { key: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
    { key: 'B' },
  ];
  assert.deepEqual(analysisTemplateSpecProblems(spec({}, { web: { url: 'http://x', headers } })), [
    'spec.metrics[0].provider.web.headers[0]: must set exactly one of value, valueFrom',
    'spec.metrics[0].provider.web.headers[1]: must set exactly one of value, valueFrom',
  ]);
});
