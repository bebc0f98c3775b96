// rangeQuery start/end: the expr-lang time expressions Argo users write, parsed, not evaluated.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRangeTime } from '../../../../src/analysis/providers/range-time.ts';

const NOW = Date.parse('2026-12-03T12:00:00Z');

describe('rangeQuery time expressions', () => {
  const good: readonly [string, number][] = [
    ['now()', NOW],
    ['now() - duration("5m")', NOW - 300_000],
    ["now()-duration('1h30m')", NOW - 5_400_000],
    ['now() + duration("30s")', NOW + 30_000],
    ['  now()  ', NOW],
    ['2026-12-03T11:00:00Z', NOW - 3_600_000],
    ['2026-12-03T13:00:00+02:00', NOW - 3_600_000],
  ];
  for (const [text, ms] of good) {
    it(`${text} → ${new Date(ms).toISOString()}`, () => {
      assert.deepEqual(parseRangeTime(text, NOW), { ok: true, ms });
    });
  }
  const bad: readonly [string, RegExp][] = [
    ['now', /is not a time/],
    ['now() - 5m', /is not a time/],
    ['now() - duration("5 minutes")', /duration must be a duration/],
    ['now() - duration("-5m")', /must not be negative/],
    ['yesterday', /is not a time/],
    ['now() - duration("5m") - duration("1m")', /is not a time/],
  ];
  for (const [text, why] of bad) {
    it(`refuses ${text}`, () => {
      const r = parseRangeTime(text, NOW);
      assert.ok(!r.ok && why.test(r.error), JSON.stringify(r));
    });
  }
});
