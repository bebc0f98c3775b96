// The condition language, operator by operator and builtin by builtin, against expr-lang
// v1.17's documented behaviour (ints stay ints, `/` is float, `==` across kinds is false), and
// the conditions Argo Rollouts' documentation shows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compile,
  createConditionEvaluator,
  evaluate,
  ExprError,
  type Env,
  type Value,
} from '../../../src/analysis/expr/index.ts';

function run(source: string, env: Env = {}): Value | ExprError {
  const compiled = compile(source);
  return compiled instanceof ExprError ? compiled : evaluate(compiled, env);
}

/** [source, expected value] rows; ints are bigint, floats number, nil null. */
function table(name: string, rows: readonly (readonly [string, unknown])[], env: Env = {}) {
  describe(name, () => {
    for (const [source, expected] of rows) {
      test(source, () => assert.deepEqual(run(source, env), expected));
    }
  });
}

table('literals', [
  ['42', 42n],
  ['0x2A + 0o52 + 0b101010', 126n],
  ['1_000', 1000n],
  ['0.5', 0.5],
  ['.5', 0.5],
  ['1e3', 1000],
  ['"a\\tb"', 'a\tb'],
  ["'it\\'s'", "it's"],
  ['`raw\\n`', 'raw\\n'],
  ['"\\u00e9"', 'é'],
  ['true', true],
  ['false', false],
  ['nil', null],
  ['[1, "a", [true]]', [1n, 'a', [true]]],
  ['[1, 2,]', [1n, 2n]],
  ['{a: 1, "b c": 2}.a', 1n],
  ['1 /* comment */ + 1 // trailing', 2n],
]);

table(
  'arithmetic',
  [
    ['1 + 2', 3n],
    ['1 + 2.5', 3.5],
    ['7 - 10', -3n],
    ['3 * 4', 12n],
    ['7 / 2', 3.5],
    ['6 / 3', 2],
    ['7 % 3', 1n],
    ['-7 % 3', -1n],
    ['2 ** 10', 1024],
    ['2 ^ 3', 8],
    ['2 ** 3 ** 2', 512],
    ['-2 ** 2', -4],
    ['1 + 2 * 3', 7n],
    ['(1 + 2) * 3', 9n],
    ['-(3)', -3n],
    ['+3', 3n],
    ['9223372036854775807 + 1', -9223372036854775808n],
    ['1.0 / 4', 0.25],
    ['inf * -1', -Infinity],
    ['"a" + "b"', 'ab'],
  ],
  { inf: Infinity },
);

describe('Prometheus NaN and ±Inf are values', () => {
  test('NaN arithmetic is NaN, not an error', () =>
    assert.ok(Number.isNaN(run('nan * 2', { nan: NaN }))));
  test('division by zero is an error, whatever the operands', () => {
    for (const source of ['0.0 / 0', 'inf / 0', '1 / 0.0']) {
      const out = run(source, { inf: Infinity });
      assert.ok(out instanceof ExprError && out.code === 'SW_EXPR_DIVIDE_BY_ZERO', source);
    }
  });
});

table('comparison and equality', [
  ['1 < 2', true],
  ['2 <= 2', true],
  ['3 > 2.5', true],
  ['2.5 >= 3', false],
  ['"abc" < "abd"', true],
  ['1 == 1.0', true],
  ['1 != 2', true],
  ['"1" == 1', false],
  ['nil == nil', true],
  ['nil == false', false],
  ['[1, 2] == [1, 2.0]', true],
  ['[1, 2] == [2, 1]', false],
  ['{a: 1} == {a: 1}', true],
  ['{a: 1} == {a: 2}', false],
]);

table('logic, ternary, nil coalescing', [
  ['true && false', false],
  ['true and true', true],
  ['false || true', true],
  ['false or false', false],
  ['!true', false],
  ['not false', true],
  ['not (1 == 2)', true],
  ['!false && false', false], // `!` binds tighter than `&&`
  ['true || false && false', true], // `&&` binds tighter than `||`
  ['true ? 1 : 2', 1n],
  ['false ? 1 : true ? 2 : 3', 2n],
  ['nil ?? 5', 5n],
  ['0 ?? 5', 0n],
  ['true || 1 % 0 == 0', true], // short-circuit: the right side is never evaluated
  ['false && 1 % 0 == 0', false],
  ['false ? 1 % 0 : 2', 2n],
]);

table('membership and strings', [
  ['2 in [1, 2, 3]', true],
  ['2 in [1.5, 2.0]', true],
  ['4 not in [1, 2, 3]', true],
  ['"a" in {a: 1}', true],
  ['"b" in {a: 1}', false],
  ['"b" not in {a: 1}', true],
  ['"hello" contains "ell"', true],
  ['"hello" startsWith "he"', true],
  ['"hello" endsWith "lo"', true],
  ['"hello" matches "^h.l+o$"', true],
  ['"Hello" matches "(?i)^hello$"', true],
  ['"a.b" matches "a\\\\.b"', true], // the expr string "a\\.b" is the regex a\.b
  ['"axb" matches `a\\.b`', false],
  ['"abc"[1]', 'b'],
  ['"héllo"[1:3]', 'él'],
]);

const list = [1, 2, 3, 4, 5];
table(
  'member access, indexing, slices',
  [
    ['result[0]', 1],
    ['result[-1]', 5],
    ['result[1.9]', 2], // Go's int(x) truncates
    ['result[1:3]', [2, 3]],
    ['result[:2]', [1, 2]],
    ['result[3:]', [4, 5]],
    ['result[1:-1]', [2, 3, 4]],
    ['result[-2:]', [4, 5]],
    ['result[4:2]', []],
    ['result[:99]', [1, 2, 3, 4, 5]],
    ['nested.a.b', 7],
    ['nested["a"]["b"]', 7],
    ['nested.missing', null],
    ['nested?.missing?.deeper', null],
    ['nested.missing?.deeper ?? "none"', 'none'],
    ['nested.list[1].x', 2],
  ],
  { result: list, nested: { a: { b: 7 }, list: [{ x: 1 }, { x: 2 }] } },
);

table(
  'builtins on values',
  [
    ['len([1, 2, 3])', 3n],
    ['len("héllo")', 5n],
    ['len({a: 1, b: 2})', 2n],
    ['abs(-3)', 3n],
    ['abs(-2.5)', 2.5],
    ['ceil(1.2)', 2],
    ['floor(1.8)', 1],
    ['round(2.5)', 3],
    ['round(-2.5)', -3],
    ['min(3, 1, 2)', 1n],
    ['max(3, 1.5)', 3n],
    ['max([0.5, 0.9, 0.7])', 0.9],
    ['mean([1, 2, 3, 6])', 3],
    ['median([5, 1, 3])', 3],
    ['median([4, 1, 3, 2])', 2.5],
    ['isNaN(1.5)', false],
    ['isInf(inf)', true],
    ['isInf(-inf, 1)', false],
    ['isInf(-inf, -1)', true],
    ['isNil(nil)', true],
    ['isNil(0)', false],
    ['default(nil, 5)', 5n],
    ['default(1, 5)', 1n],
    ['asInt("42")', 42n],
    ['asInt("-7")', -7n],
    ['asInt(3.9)', 3n],
    ['asFloat("0.95")', 0.95],
    ['asFloat("1e3")', 1000],
    ['asFloat("+Inf")', Infinity],
    ['asFloat("-inf")', -Infinity],
    ['asFloat(2)', 2],
    ['int("12") + float("0.5")', 12.5],
    ['first([7, 8])', 7n],
    ['last([7, 8])', 8n],
    ['first([])', null],
    ['keys({a: 1})', ['a']],
    ['values({a: 1})', [1n]],
    ['lower("AbC") + upper("x") + trim("  y ")', 'abcXy'],
    ['1..4', [1n, 2n, 3n, 4n]],
    ['3..1', []],
  ],
  { inf: Infinity },
);

table('builtins with predicates', [
  ['all([1, 2, 3], {# > 0})', true],
  ['all([1, 2, 3], # > 1)', false],
  ['all([], {# > 0})', true],
  ['any([1, 2, 3], {# > 2})', true],
  ['any([], {# > 2})', false],
  ['none([1, 2, 3], {# > 3})', true],
  ['one([1, 2, 3], {# > 2})', true],
  ['one([1, 2, 3], {# > 1})', false],
  ['filter([1, 2, 3], {# > 1})', [2n, 3n]],
  ['map([1, 2, 3], {# * 2})', [2n, 4n, 6n]],
  ['map([10, 20], {#index})', [0n, 1n]],
  ['count([1, 2, 3], {# % 2 == 1})', 2n],
  ['find([1, 2, 3, 4], # > 2)', 3n],
  ['findIndex([1, 2, 3, 4], # > 2)', 2n],
  ['findLast([1, 2, 3, 4], # > 2)', 4n],
  ['findLastIndex([1, 2, 3, 4], # > 9)', -1n],
  ['sum([1, 2, 3])', 6n],
  ['sum([1, 2.5])', 3.5],
  ['sum([1, 2, 3], {# * 10})', 60n],
  ['sum([])', 0n],
  ['filter([{ok: true, n: 1}, {ok: false, n: 2}], .ok)[0].n', 1n],
  ['map([[1, 2], [3]], {len(#)})', [2n, 1n]],
  ['all([[1, 2], [3]], {all(#, {# > 0})})', true], // nested predicates see their own #
]);

describe('Argo documentation conditions', () => {
  const cases: readonly (readonly [string, unknown, boolean])[] = [
    ['result[0] >= 0.95', [0.97], true],
    ['result[0] >= 0.95', [0.9], false],
    ['len(result) == 0 || result[0] < 0.5', [], true],
    ['len(result) == 0 || result[0] < 0.5', [0.7], false],
    ['result.successRate > 0.9', { successRate: 0.95 }, true],
    ['result.successRate > 0.9', { successRate: 0.5 }, false],
    ['all(result, {# > 0.9})', [0.95, 0.99], true],
    ['all(result, # < 1000)', [10, 2000], false],
    ['isNaN(result) || result >= 0.95', NaN, true],
    ['isNaN(result) || result >= 0.95', 0.5, false],
    ['asFloat(result) < 100', '99.5', true],
    ['asInt(result) == 3', '3', true],
    ['result < 0.5', NaN, false], // NaN compares false, as in Go
    ['result > 0.5', Infinity, true],
    ['isInf(result)', -Infinity, true],
    ['default(result, 0) < 1', null, true],
    ['isNil(result)', null, true],
    ['result == nil', undefined, true],
  ];
  const judge = createConditionEvaluator();
  for (const [condition, result, expected] of cases) {
    test(`${condition} with ${String(result)}`, () =>
      assert.equal(judge(condition, result), expected));
  }
});
