// The analysis CRDs against the real API server: each kind is accepted exactly as written in
// its YAML fixture (nothing pruned), kubectl shows an AnalysisRun's phase, and what the schema
// forbids (unknown fields, wrong types, two providers) is refused by the server itself.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { load } from 'js-yaml';
import type { AnalysisRun, AnalysisTemplate } from '../../src/api/index.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace } from '../cluster/testing.ts';
import { kubectl as runKubectl } from './support/kubectl.ts';
import { http, installCrds } from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';
const fixture = <T>(name: string): T =>
  load(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'analysis', name), 'utf8')) as T;

/** `kubectl ARGS`, with `input` on stdin. */
const kubectl = (args: readonly string[], input?: unknown) => runKubectl(args, { input });

async function create<T>(input: T, namespace?: string): Promise<T> {
  const r = await kubectl(
    ['create', '-f', '-', '-o', 'json', ...(namespace ? ['-n', namespace] : [])],
    input,
  );
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as T;
}

const suffix = randomBytes(4).toString('hex');
const clusterTemplateName = `smoke-tests-${suffix}`;

before(installCrds);
after(async () => {
  await http.request('DELETE', `${API}/clusteranalysistemplates/${clusterTemplateName}`);
});

describe('analysis API', () => {
  it('accepts one of each kind exactly as written in the fixtures', async () => {
    const ns = await testNamespace('analysis-api');
    const template = fixture<AnalysisTemplate>('analysistemplate.yaml');
    const cluster = fixture<AnalysisTemplate>('clusteranalysistemplate.yaml');
    const run = fixture<AnalysisRun>('analysisrun.yaml');
    const stored = [
      await create(template, ns),
      await create<AnalysisTemplate>({ ...cluster, metadata: { name: clusterTemplateName } }),
      await create(run, ns),
    ];
    assert.equal(
      stored[1]?.metadata.namespace,
      undefined,
      'ClusterAnalysisTemplate is cluster-scoped',
    );
    // Nothing pruned: int-or-string counts, Secret references, the Job spec and jsonBody kept.
    assert.deepEqual(stored[0]?.spec, template.spec);
    assert.deepEqual(stored[1]?.spec, cluster.spec);
    assert.deepEqual(stored[2]?.spec, run.spec);
    const short = await kubectl(['get', 'swat,swar', '-n', ns, '-o', 'name']);
    assert.deepEqual(short.stdout.trim().split('\n').sort(), [
      'analysisrun.stepwise.dev/manual-check',
      'analysistemplate.stepwise.dev/success-rate',
    ]);
  });

  it('writes AnalysisRun status through its subresource, and kubectl shows the phase', async () => {
    const ns = await testNamespace('analysis-status');
    await create(fixture<AnalysisRun>('analysisrun.yaml'), ns);
    const path = `${API}/namespaces/${ns}/analysisruns/manual-check`;
    const status = {
      phase: 'Running',
      startedAt: '2026-01-01T00:00:00.123Z',
      metricResults: [
        {
          name: 'up',
          phase: 'Running',
          count: 1,
          successful: 1,
          consecutiveSuccess: 1,
          measurements: [
            {
              phase: 'Successful',
              value: '[1]',
              startedAt: '2026-01-01T00:00:00.123Z',
              finishedAt: '2026-01-01T00:00:00.456Z',
            },
          ],
        },
      ],
      runSummary: { count: 1 },
      dryRunSummary: {},
    };
    const written = await http.json<AnalysisRun>(
      'PATCH',
      `${path}/status`,
      { status },
      'application/merge-patch+json',
    );
    assert.deepEqual(written.status, status);
    const ignored = await http.json<AnalysisRun>(
      'PATCH',
      path,
      { status: { phase: 'Failed' } },
      'application/merge-patch+json',
    );
    assert.equal(ignored.status?.phase, 'Running', 'status is written only through /status');
    const table = await kubectl(['get', 'analysisrun', 'manual-check', '-n', ns]);
    assert.match(table.stdout, /^NAME\s+PHASE\s+AGE\n/);
    assert.match(table.stdout, /\nmanual-check\s+Running\s+\S+\n$/);
    const bad = await http.request(
      'PATCH',
      `${path}/status`,
      { status: { phase: 'Done' } },
      'application/merge-patch+json',
    );
    assert.equal(bad.status, 422, bad.body);
  });

  it('refuses unknown fields (kubectl validation is strict), wrong types and two providers', async () => {
    const ns = await testNamespace('analysis-schema');
    const template = fixture<AnalysisTemplate>('analysistemplate.yaml');
    const metric = template.spec.metrics[0];
    assert.ok(metric);
    const withMetric = (m: object): AnalysisTemplate => ({
      ...template,
      spec: { ...template.spec, metrics: [{ ...metric, ...m }] },
    });
    const unknown = await kubectl(['create', '-f', '-', '-n', ns], withMetric({ surprise: true }));
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown field "spec\.metrics\[0\]\.surprise"/);
    const strict = await http.request(
      'POST',
      `${API}/namespaces/${ns}/analysistemplates?fieldValidation=Strict`,
      withMetric({ provider: { prometheus: { query: 'up', oauth2: {} } } }),
    );
    assert.equal(strict.status, 400, strict.body);
    assert.match(
      strict.body,
      /unknown field \\"spec\.metrics\[0\]\.provider\.prometheus\.oauth2\\"/,
    );
    for (const [what, m] of [
      ['count: true', { count: true }],
      ['two providers', { provider: { prometheus: { query: 'up' }, web: { url: 'http://x' } } }],
      ['no provider', { provider: {} }],
      ['timeout as a duration', { provider: { prometheus: { query: 'up', timeout: '30s' } } }],
    ] as const) {
      const res = await http.request(
        'POST',
        `${API}/namespaces/${ns}/analysistemplates`,
        withMetric(m),
      );
      assert.equal(res.status, 422, `${what}: ${res.body}`);
    }
    const hash = await http.request('POST', `${API}/namespaces/${ns}/analysisruns`, {
      ...fixture<AnalysisRun>('analysisrun.yaml'),
      spec: {
        ...fixture<AnalysisRun>('analysisrun.yaml').spec,
        args: [{ name: 'h', valueFrom: { podTemplateHashValue: 'Newest' } }],
      },
    });
    assert.equal(hash.status, 422, hash.body);
    const duplicate = await http.request('POST', `${API}/namespaces/${ns}/analysistemplates`, {
      ...template,
      spec: { ...template.spec, metrics: [metric, metric] },
    });
    assert.equal(duplicate.status, 422, `duplicate metric names: ${duplicate.body}`);
  });
});
