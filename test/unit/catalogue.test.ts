// Every template of the catalogue (analysis/) is one our API accepts and our controller can run:
// it parses, passes the schema and Argo's metric checks, its conditions compile, and it selects
// the canary through an arg the Rollout fills.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { analysisSpecProblems } from '../../src/analysis/evaluate/index.ts';
import type { AnalysisTemplate } from '../../src/api/index.ts';
import { analysisTemplateSpecProblems } from '../../src/api/index.ts';

const DIR = join(import.meta.dirname, '..', '..', 'analysis');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

describe('the analysis catalogue', () => {
  it('holds the five sources the issue names', () => {
    assert.deepEqual(files.sort(), [
      'envoy-gateway.yaml',
      'istio.yaml',
      'linkerd.yaml',
      'nginx-ingress.yaml',
      'prom-client-http.yaml',
    ]);
  });

  for (const file of files) {
    it(`${file}: a valid AnalysisTemplate with success-rate and latency-p99 on the canary only`, () => {
      const t = load(readFileSync(join(DIR, file), 'utf8')) as AnalysisTemplate;
      assert.equal(t.apiVersion, 'stepwise.dev/v1alpha1');
      assert.equal(t.kind, 'AnalysisTemplate');
      assert.equal(t.metadata.name, file.replace(/\.yaml$/, ''));
      assert.deepEqual(analysisTemplateSpecProblems(t.spec), []);
      assert.deepEqual(analysisSpecProblems(t.spec), []);
      assert.deepEqual(
        t.spec.metrics.map((m) => m.name),
        ['success-rate', 'latency-p99'],
      );
      const canaryArg = (t.spec.args ?? []).find((a) => a.name.startsWith('canary-'));
      assert.ok(canaryArg && canaryArg.value === undefined, 'the Rollout must supply the canary');
      for (const m of t.spec.metrics) {
        assert.match(
          m.provider.prometheus?.query ?? '',
          new RegExp(`\\{\\{args\\.${canaryArg.name}\\}\\}`),
        );
      }
    });
  }

  it('the README names every template', () => {
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const file of files) assert.ok(readme.includes(`\`${file}\``), file);
  });
});
