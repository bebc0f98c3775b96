// Properties of the run evaluation over random specs and random measurement sequences, driven
// the way the controller drives it: ask what is due, "measure" it, reconcile, move the clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  dueMeasurements,
  isCompleted,
  isWorse,
  reconcileRun,
  retentionLimit,
  type RunInput,
  type TakenMeasurement,
} from '../../../src/analysis/index.ts';
import type { AnalysisPhase, AnalysisRunSpec, Metric } from '../../../src/api/index.ts';
import { T0, deepFreeze } from '../../fixtures/analysis/runs.ts';

// Mostly valid metrics (an invalid spec ends the run at once, which would teach little), with
// a few invalid values mixed in.
const limit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(undefined, 0, 1, 2, 3, '2') },
  { weight: 1, arbitrary: fc.constantFrom(-1, -2, 'x') },
);

const metricArb = (name: string): fc.Arbitrary<Metric> =>
  fc.record(
    {
      name: fc.constant(name),
      provider: fc.constant({ web: { url: 'http://127.0.0.1:1/' } }),
      interval: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('1s', '5s') },
        { weight: 1, arbitrary: fc.constantFrom(undefined, 'soon') },
      ),
      initialDelay: fc.constantFrom(undefined, '2s'),
      count: fc.constantFrom(undefined, 0, 1, 3, 6, '4'),
      failureLimit: limit,
      inconclusiveLimit: limit,
      consecutiveErrorLimit: limit,
      consecutiveSuccessLimit: fc.constantFrom(undefined, 0, 2),
    },
    { requiredKeys: ['name', 'provider'] },
  );

const specArb: fc.Arbitrary<AnalysisRunSpec> = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  )
  .chain(([names, dry, keep]) =>
    fc.tuple(...[...new Set(names)].map(metricArb)).map((metrics) => ({
      metrics,
      ...(dry ? { dryRun: [{ metricName: '^a$' }] } : {}),
      ...(keep !== undefined ? { measurementRetention: [{ metricName: '.*', limit: keep }] } : {}),
    })),
  );

/** One pass: how each due metric's measurement comes out, and how far the clock moves. */
const passArb = fc.record({
  outcomes: fc.array(
    fc.constantFrom<AnalysisPhase>('Successful', 'Failed', 'Inconclusive', 'Error', 'Running'),
    {
      minLength: 3,
      maxLength: 3,
    },
  ),
  advanceMs: fc.integer({ min: 0, max: 12_000 }),
  terminate: fc.boolean(),
});

const severe = (p: AnalysisPhase | undefined): boolean =>
  p === 'Failed' || p === 'Error' || p === 'Inconclusive';

test('property: evaluation never throws, a completed run or metric never changes, the run is never better than its worst metric, and a pass with nothing new changes nothing', () => {
  fc.assert(
    fc.property(specArb, fc.array(passArb, { maxLength: 30 }), (spec, passes) => {
      let input: RunInput = deepFreeze({ spec });
      let now = T0;
      let verdict: AnalysisPhase | undefined;
      const metricVerdicts = new Map<string, AnalysisPhase>();
      for (const pass of passes) {
        if (pass.terminate && !input.spec.terminate) {
          input = deepFreeze({ ...input, spec: { ...input.spec, terminate: true } });
        }
        const due = dueMeasurements(input, now);
        const taken: TakenMeasurement[] = due.map((d, i) => {
          const phase = pass.outcomes[i] ?? 'Successful';
          const startedAt = new Date(now).toISOString();
          return {
            metricName: d.metric.name,
            kind: d.kind,
            measurement:
              phase === 'Running'
                ? { phase, startedAt }
                : { phase, startedAt, finishedAt: startedAt },
          };
        });
        const out = reconcileRun(input, taken, now);
        const status = out.status;
        if (verdict !== undefined)
          assert.equal(status.phase, verdict, 'a completed run never changes');
        if (isCompleted(status.phase)) verdict = status.phase;
        if (out.requeueAt !== undefined) assert.ok(Number.isFinite(out.requeueAt));
        for (const r of status.metricResults ?? []) {
          const before = metricVerdicts.get(r.name);
          if (before !== undefined)
            assert.equal(r.phase, before, `metric ${r.name} stays ${before}`);
          if (isCompleted(r.phase)) metricVerdicts.set(r.name, r.phase);
          assert.ok((r.measurements?.length ?? 0) <= retentionLimit(spec, r.name), 'retention');
          assert.equal(r.count ?? 0, (r.successful ?? 0) + (r.failed ?? 0) + (r.inconclusive ?? 0));
          if (isCompleted(status.phase) && r.dryRun !== true && isCompleted(r.phase)) {
            assert.ok(
              !isWorse(status.phase as AnalysisPhase, r.phase),
              `run ${status.phase} must be at least as bad as metric ${r.name} ${r.phase}`,
            );
          }
        }
        if (isCompleted(status.phase) && severe(status.phase)) {
          const culprits = (status.metricResults ?? []).filter(
            (r) => r.dryRun !== true && severe(r.phase),
          );
          const invalid = status.message?.startsWith('Analysis spec invalid') === true;
          assert.ok(
            invalid || culprits.length > 0,
            'only a metric that is not a dry run can fail the run',
          );
        }
        // A fixed point: a pass that measures nothing new writes nothing (unless this pass
        // asked for an immediate one because the run just started terminating).
        const again = reconcileRun(deepFreeze({ spec: input.spec, status }), [], now);
        if (out.requeueAt !== now) {
          assert.deepEqual(again.status, status, 'nothing new, nothing changed');
          assert.deepEqual(again.events, []);
        }
        input = deepFreeze({ spec: input.spec, status });
        now += pass.advanceMs;
      }
    }),
    { numRuns: 400 },
  );
});

test('property: evaluation never throws on malformed status it may read from the cluster', () => {
  const phase = fc.constantFrom<AnalysisPhase | undefined>(
    undefined,
    'Pending',
    'Running',
    'Successful',
    'Failed',
    'Error',
    'Inconclusive',
  );
  const time = fc.constantFrom(undefined, 'not a time', '2026-01-01T00:00:00Z');
  const statusArb = fc.record(
    {
      phase,
      startedAt: time,
      metricResults: fc.array(
        fc.record(
          {
            name: fc.constantFrom('a', 'b', 'zzz'),
            phase: phase.map((p) => p ?? 'Running'),
            measurements: fc.array(
              fc.record(
                {
                  phase: phase.map((p) => p ?? 'Running'),
                  startedAt: time,
                  finishedAt: time,
                  resumeAt: time,
                },
                { requiredKeys: ['phase'] },
              ),
            ),
            count: fc.integer({ min: -3, max: 5 }),
            failed: fc.integer({ min: -3, max: 5 }),
            consecutiveError: fc.integer({ min: -3, max: 9 }),
          },
          { requiredKeys: ['name', 'phase'] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(specArb, statusArb, fc.integer({ min: 0, max: 100_000 }), (spec, status, ms) => {
      const input = deepFreeze({ spec, status });
      const now = Date.parse('2026-01-01T00:00:00Z') + ms;
      const due = dueMeasurements(input, now);
      const out = reconcileRun(input, [], now);
      assert.ok(Array.isArray(due));
      assert.ok(out.status);
    }),
    { numRuns: 300 },
  );
});
