import { test, suite } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolveIntOrPercent, resolveSurgeUnavailable } from '../../../src/api/intorpercent.ts';

suite('resolveIntOrPercent', () => {
  const ok: ReadonlyArray<readonly [number | string | undefined, number, boolean, number]> = [
    // value, total, roundUp, expected
    [3, 10, true, 3],
    [3, 10, false, 3],
    [30, 10, false, 30], // an integer is taken as it is, even above total
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['20%', 10, true, 2],
    ['0%', 10, true, 0],
    ['100%', 7, false, 7],
    ['1%', 1, true, 1],
    ['1%', 1, false, 0],
    ['33%', 3, false, 0],
    ['34%', 3, true, 2],
    ['25%', 0, true, 0],
    [undefined, 10, true, 3], // the default, 25%, rounded up
    [undefined, 10, false, 2],
  ];
  for (const [v, total, roundUp, want] of ok) {
    test(`${JSON.stringify(v)} of ${total}, ${roundUp ? 'up' : 'down'} → ${want}`, () => {
      assert.deepEqual(resolveIntOrPercent(v, total, roundUp, '25%'), { ok: true, value: want });
    });
  }

  const garbage: ReadonlyArray<number | string> = [
    'abc',
    '',
    '%',
    '25',
    '5',
    '25 %',
    ' 25%',
    '25%%',
    '2.5%',
    '-5%',
    '+5%',
    '05%',
    '0x10%',
    '1e2%',
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '120%',
    '101%',
  ];
  for (const v of garbage) {
    test(`rejects ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`, () => {
      const r = resolveIntOrPercent(v, 10, true, '25%');
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error, /must/);
    });
  }

  test('a bare numeric string is rejected with a pointer to what Argo would do', () => {
    const r = resolveIntOrPercent('5', 10, true, 0);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, /Argo Rollouts would read it as 5%/);
  });

  test('above 100% only where allowed', () => {
    assert.equal(resolveIntOrPercent('120%', 10, true, 0).ok, false);
    assert.deepEqual(resolveIntOrPercent('120%', 10, true, 0, { allowAbove100Percent: true }), {
      ok: true,
      value: 12,
    });
  });

  test('a bad total is an error, not a throw', () => {
    assert.equal(resolveIntOrPercent(1, -1, true, 0).ok, false);
    assert.equal(resolveIntOrPercent(1, 0.5, true, 0).ok, false);
  });

  test('percentages round as Kubernetes does: ceil/floor of p × total / 100', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(10_000), fc.boolean(), (p, total, up) => {
        const r = resolveIntOrPercent(`${p}%`, total, up, 0);
        const exact = (p * total) / 100;
        assert.deepEqual(r, { ok: true, value: up ? Math.ceil(exact) : Math.floor(exact) });
        if (r.ok) assert.ok(up ? r.value >= exact : r.value <= exact);
      }),
    );
  });
});

suite('resolveSurgeUnavailable', () => {
  const ok: ReadonlyArray<
    readonly [number | string | undefined, number | string | undefined, number, number, number]
  > = [
    // maxSurge, maxUnavailable, replicas, surge, unavailable
    [undefined, undefined, 10, 3, 2], // defaults 25% / 25%
    [undefined, undefined, 1, 1, 0],
    [undefined, undefined, 4, 1, 1],
    ['20%', 0, 10, 2, 0],
    [0, '20%', 10, 0, 2],
    [2, 1, 10, 2, 1],
    ['200%', 0, 10, 20, 0], // surge may exceed 100%
    [0, '5%', 10, 0, 1], // both resolve to 0: maxUnavailable 1
    [0, '50%', 1, 0, 1], // idem
    [0, 10, 5, 0, 5], // maxUnavailable is capped at replicas
    [0, '100%', 5, 0, 5],
    [1, 3, 0, 1, 0], // no replicas: nothing may be unavailable
    [0, 1, 0, 0, 0],
  ];
  for (const [surge, unavailable, replicas, wantSurge, wantUnavailable] of ok) {
    test(`maxSurge ${JSON.stringify(surge)}, maxUnavailable ${JSON.stringify(unavailable)}, ${replicas} replicas`, () => {
      assert.deepEqual(resolveSurgeUnavailable(surge, unavailable, replicas), {
        ok: true,
        value: { maxSurge: wantSurge, maxUnavailable: wantUnavailable },
      });
    });
  }

  const bad: ReadonlyArray<
    readonly [number | string | undefined, number | string | undefined, RegExp]
  > = [
    [0, 0, /both be zero/],
    ['0%', 0, /both be zero/],
    ['0%', '0%', /both be zero/],
    ['abc', 1, /^maxSurge must/],
    [1, 'abc', /^maxUnavailable must/],
    [1, '120%', /^maxUnavailable must not be more than 100%/],
    [-1, 1, /^maxSurge must/],
    [1, '5', /^maxUnavailable .*"5%"/],
  ];
  for (const [surge, unavailable, message] of bad) {
    test(`rejects maxSurge ${JSON.stringify(surge)}, maxUnavailable ${JSON.stringify(unavailable)}`, () => {
      const r = resolveSurgeUnavailable(surge, unavailable, 10);
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error, message);
    });
  }

  test('any valid pair leaves room to move: surge or unavailability is at least 1', () => {
    const v = fc.oneof(
      fc.nat(20),
      fc.nat(200).map((p) => `${p}%`),
    );
    fc.assert(
      fc.property(v, v, fc.integer({ min: 1, max: 100 }), (s, u, replicas) => {
        const r = resolveSurgeUnavailable(s, u, replicas);
        if (!r.ok) return;
        assert.ok(r.value.maxSurge + r.value.maxUnavailable >= 1);
        assert.ok(r.value.maxUnavailable <= replicas);
      }),
    );
  });
});
