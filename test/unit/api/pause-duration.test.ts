import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_DURATION_SECONDS,
  parseGoDuration,
  parsePauseDuration,
} from '../../../src/api/pause-duration.ts';

suite('parsePauseDuration', () => {
  const ok: ReadonlyArray<readonly [number | string, number]> = [
    [0, 0],
    [30, 30_000],
    ['30', 30_000], // numeric string: seconds, as Argo's strconv.ParseInt path
    ['+30', 30_000],
    ['007', 7_000],
    ['0', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h30m15s', 5_415_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['5.s', 5_000],
    ['500ms', 500],
    ['1500ms', 1_500], // Argo truncates to whole seconds (1 s); we keep milliseconds
    ['2s500ms', 2_500],
    ['1m1m', 120_000], // Go allows repeated units
    ['1000000us', 1_000],
    ['1000000\u00b5s', 1_000],
    ['1000000\u03bcs', 1_000],
    ['1999999ns', 1], // sub-millisecond parts are truncated
    ['+5m', 300_000],
    [MAX_DURATION_SECONDS, MAX_DURATION_SECONDS * 1000],
    [`${MAX_DURATION_SECONDS}s`, MAX_DURATION_SECONDS * 1000],
  ];
  for (const [v, ms] of ok) {
    test(`${JSON.stringify(v)} → ${ms} ms`, () => {
      assert.deepEqual(parsePauseDuration(v), { ok: true, value: ms });
    });
  }

  const garbage: ReadonlyArray<number | string> = [
    '',
    ' ',
    'abc',
    's',
    '.s',
    '.',
    '5x',
    '5S',
    '5 s',
    ' 5s',
    '5s ',
    '1h30',
    'h1',
    '1d',
    '1w',
    '-5s',
    '-30',
    '-1',
    '--5s',
    '1.5.5s',
    '5sm',
    'P1D',
    '1e3s',
    'NaN',
    'Infinity',
    '0x10',
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    MAX_DURATION_SECONDS + 1,
    `${MAX_DURATION_SECONDS + 1}`,
    `${MAX_DURATION_SECONDS + 1}s`,
    '99999999999999999999h',
    '3000000000000000000000000',
  ];
  for (const v of garbage) {
    test(`rejects ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`, () => {
      const r = parsePauseDuration(v);
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error, /must/);
    });
  }

  test('never throws, and every success is a non-negative whole number of milliseconds', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[0-9.]{0,6}(ns|us|ms|s|m|h|x)?$/), fc.double()),
        (v) => {
          const r = parsePauseDuration(v);
          if (r.ok) assert.ok(Number.isSafeInteger(r.value) && r.value >= 0);
          else assert.ok(r.error.length > 0);
        },
      ),
    );
  });

  test('composed durations add up', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(59), fc.nat(59), fc.nat(999), (h, m, s, ms) => {
        const r = parsePauseDuration(`${h}h${m}m${s}s${ms}ms`);
        assert.deepEqual(r, { ok: true, value: ((h * 60 + m) * 60 + s) * 1000 + ms });
      }),
    );
  });
});

suite('parseGoDuration', () => {
  test('a bare number is not a Go duration, except 0', () => {
    assert.deepEqual(parseGoDuration('0'), { ok: true, value: 0 });
    const r = parseGoDuration('30');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /unit is missing/);
  });
  test('negative durations are rejected', () => {
    const r = parseGoDuration('-1s');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /must not be negative/);
  });
});
