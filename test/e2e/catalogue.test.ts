// The catalogue against a real Prometheus loaded with recorded series (issue 7 §7): for each
// source, ten minutes of a healthy and of a bad canary (test/catalogue/series.ts) are backfilled
// with promtool, and every metric of its template is measured the way the controller does it
// (our prometheus provider, args substituted, our condition language): the healthy canary passes
// both metrics, the bad one fails both.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { finishMeasurement } from '../../src/analysis/evaluate/index.ts';
import { createConditionEvaluator } from '../../src/analysis/expr/index.ts';
import { prometheusProvider, substituteArgs } from '../../src/analysis/providers/index.ts';
import type { AnalysisTemplate, Metric } from '../../src/api/index.ts';
import { SOURCES, openMetrics } from '../catalogue/series.ts';
import type { Variant } from '../catalogue/series.ts';
import { backfill, startPrometheus } from '../prometheus/server.ts';
import type { RunningPrometheus } from '../prometheus/server.ts';

const CATALOGUE = join(import.meta.dirname, '..', '..', 'analysis');
/** The series end a minute before now, so they sit in a block of their own, not the head. */
const END = Date.now() - 60_000;
const work = mkdtempSync(join(tmpdir(), 'stepwise-catalogue-'));
let prometheus: RunningPrometheus;

before(async () => {
  const dataDir = join(work, 'data');
  for (const source of SOURCES) {
    const file = join(work, `${source.file}.om`);
    writeFileSync(file, openMetrics(source, END));
    backfill(file, dataDir);
  }
  prometheus = await startPrometheus({ dataDir });
});
after(async () => {
  await prometheus?.stop();
  rmSync(work, { recursive: true, force: true });
});

const evaluate = createConditionEvaluator();

/** One measurement of `metric` as the controller takes it, at the end of the recording. */
async function measure(metric: Metric, args: Record<string, string>): Promise<string> {
  const provider = prometheusProvider({ defaultAddress: prometheus.url, now: () => END });
  const ctx = {
    namespace: 'shop',
    run: { name: 'catalogue', uid: 'uid-catalogue' },
    index: 1,
    args,
    secrets: { secretValue: () => Promise.reject(new Error('no Secrets here')) },
    signal: new AbortController().signal,
  };
  const outcome = await provider.measure(metric, ctx);
  const judged: Metric = {
    ...metric,
    successCondition: metric.successCondition && substituteArgs(metric.successCondition, args),
    failureCondition: metric.failureCondition && substituteArgs(metric.failureCondition, args),
  };
  const m = finishMeasurement(judged, outcome, evaluate, END, END);
  return `${m.phase} ${m.value ?? m.message ?? ''}`;
}

for (const source of SOURCES) {
  describe(source.file, () => {
    const template = load(readFileSync(join(CATALOGUE, source.file), 'utf8')) as AnalysisTemplate;
    const cases: readonly [Variant, string][] = [
      ['healthy', 'Successful'],
      ['bad', 'Failed'],
    ];
    for (const [variant, phase] of cases) {
      it(`a ${variant} canary: every metric ${phase}`, async () => {
        const args: Record<string, string> = {};
        for (const a of template.spec.args ?? []) if (a.value !== undefined) args[a.name] = a.value;
        Object.assign(args, source.canaryArgs(variant));
        for (const metric of template.spec.metrics) {
          const got = await measure(metric, args);
          assert.ok(got.startsWith(`${phase} [`), `${metric.name}: ${got}`);
        }
      });
    }
  });
}
