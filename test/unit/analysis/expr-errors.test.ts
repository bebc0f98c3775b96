// Bad expressions and bad values: each is an ExprError value with a stable code and the column
// it refers to, never a throw; the limits hold; caller objects are read as data only.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkCondition,
  compile,
  createConditionEvaluator,
  evaluate,
  ExprError,
  MAX_AST_DEPTH,
  MAX_EVAL_STEPS,
  MAX_LIST_LENGTH,
  MAX_REGEX_INPUT_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_STRING_LENGTH,
  type Env,
  type ExprErrorCode,
  type Value,
} from '../../../src/analysis/expr/index.ts';

function run(source: string, env: Env = {}): Value | ExprError {
  const compiled = compile(source);
  return compiled instanceof ExprError ? compiled : evaluate(compiled, env);
}

function assertError(out: unknown, code: ExprErrorCode, message: string): void {
  assert.ok(out instanceof ExprError, `expected an ExprError, got ${String(out)}`);
  assert.equal(out.code, code);
  assert.equal(out.message, message);
}

describe('compile errors carry the column', () => {
  const rows: readonly (readonly [string, ExprErrorCode, string])[] = [
    ['result[0] >=', 'SW_EXPR_SYNTAX', 'unexpected end of expression at column 13'],
    ['result[0] >= 0.95)', 'SW_EXPR_SYNTAX', 'unexpected token ) at column 18'],
    ['result[0 >= 1', 'SW_EXPR_SYNTAX', 'unexpected end of expression at column 14'],
    ['(1 + 2', 'SW_EXPR_SYNTAX', 'unexpected end of expression at column 7'],
    ['1 +* 2', 'SW_EXPR_SYNTAX', 'unexpected token * at column 4'],
    ['"abc', 'SW_EXPR_SYNTAX', 'unterminated string at column 1'],
    ['"a\\qb"', 'SW_EXPR_SYNTAX', 'invalid escape in string at column 3'],
    ['1 @ 2', 'SW_EXPR_SYNTAX', 'unexpected character "@" at column 3'],
    ['12abc', 'SW_EXPR_SYNTAX', 'malformed number at column 1'],
    ['99999999999999999999', 'SW_EXPR_SYNTAX', 'integer literal out of range at column 1'],
    ['/* open', 'SW_EXPR_SYNTAX', 'unterminated comment at column 1'],
    ['# > 1', 'SW_EXPR_SYNTAX', '# used outside of a predicate at column 1'],
    ['all(result, #acc > 1)', 'SW_EXPR_UNKNOWN_NAME', 'unknown pointer #acc at column 13'],
    ['nope(1)', 'SW_EXPR_UNKNOWN_NAME', 'unknown function nope at column 1'],
    ['constructor(1)', 'SW_EXPR_UNKNOWN_NAME', 'unknown function constructor at column 1'],
    ['len(1, 2)', 'SW_EXPR_ARGUMENTS', 'len takes 1 argument(s), got 2 at column 1'],
    ['all(result)', 'SW_EXPR_ARGUMENTS', 'all takes 2 argument(s), got 1 at column 1'],
    ['result.foo()', 'SW_EXPR_SYNTAX', 'methods cannot be called; use a builtin at column 8'],
    ['(len)(1)', 'SW_EXPR_SYNTAX', 'only builtin functions can be called at column 6'],
    ['"x" matches "a("', 'SW_EXPR_REGEX', 'invalid regex: missing closing ): `a(` at column 13'],
    [
      '"x" matches "(a)\\\\1"',
      'SW_EXPR_REGEX',
      'invalid regex: invalid escape sequence: `\\1` at column 13',
    ],
    [
      '"x" matches "(?=a)"',
      'SW_EXPR_REGEX',
      'invalid regex: invalid or unsupported Perl syntax: `(?=` at column 13',
    ],
    ['"é" + ', 'SW_EXPR_SYNTAX', 'unexpected end of expression at column 7'],
  ];
  for (const [source, code, message] of rows) {
    test(source, () => assertError(compile(source), code, message));
  }

  test('a condition may only name `result`', () => {
    assertError(
      checkCondition('results[0] > 1'),
      'SW_EXPR_UNKNOWN_NAME',
      'unknown name results at column 1',
    );
    assert.equal(checkCondition('result[0] > 1'), undefined);
  });

  test('the error has offset, column and detail apart from the message', () => {
    const out = compile('result[0] >=');
    assert.ok(out instanceof ExprError);
    assert.deepEqual(
      [out.offset, out.column, out.detail],
      [12, 13, 'unexpected end of expression'],
    );
    assert.ok(out instanceof Error); // so it fits the ConditionEvaluator contract
  });
});

describe('evaluation errors are values with the column of the failing operation', () => {
  const rows: readonly (readonly [string, unknown, ExprErrorCode, string])[] = [
    ['result[0] >= 0.9', [], 'SW_EXPR_RANGE', 'index 0 out of range (len 0) at column 7'],
    ['result[3]', [1, 2, 3], 'SW_EXPR_RANGE', 'index 3 out of range (len 3) at column 7'],
    ['result[-4]', [1, 2, 3], 'SW_EXPR_RANGE', 'index -4 out of range (len 3) at column 7'],
    ['result < 0.5', 'x', 'SW_EXPR_TYPE', 'invalid operation: string < float at column 8'],
    ['"a" < 1', null, 'SW_EXPR_TYPE', 'invalid operation: string < int at column 5'],
    ['1 / 0 > 1', null, 'SW_EXPR_DIVIDE_BY_ZERO', 'division by zero at column 3'],
    ['result[0] / 0.0 > 1', [2.5], 'SW_EXPR_DIVIDE_BY_ZERO', 'division by zero at column 11'],
    ['1 / result > 1', 0, 'SW_EXPR_DIVIDE_BY_ZERO', 'division by zero at column 3'],
    ['10 % 0 == 0', null, 'SW_EXPR_DIVIDE_BY_ZERO', 'integer divide by zero at column 4'],
    ['1.5 % 2 == 0', null, 'SW_EXPR_TYPE', 'invalid operation: float % int at column 5'],
    ['1 + true', null, 'SW_EXPR_TYPE', 'invalid operation: int + bool at column 3'],
    ['"a" + 1', null, 'SW_EXPR_TYPE', 'invalid operation: string + int at column 5'],
    ['not 1 == 2', null, 'SW_EXPR_TYPE', 'invalid operation: not int at column 1'],
    ['-"a"', null, 'SW_EXPR_TYPE', 'invalid operation: -string at column 1'],
    ['1 && true', null, 'SW_EXPR_TYPE', 'invalid operation: int && … at column 3'],
    ['1 ? 2 : 3', null, 'SW_EXPR_TYPE', 'non-bool int used as condition of ?: at column 3'],
    ['result.x', null, 'SW_EXPR_TYPE', 'cannot fetch x from nil at column 7'],
    ['result.x', [1], 'SW_EXPR_TYPE', 'cannot fetch x from array at column 7'],
    ['result[0]', { a: 1 }, 'SW_EXPR_TYPE', 'cannot use int as map key at column 7'],
    ['result["a"]', [1], 'SW_EXPR_TYPE', 'cannot fetch a from array at column 7'],
    ['result[nil]', [1], 'SW_EXPR_TYPE', 'cannot use nil as index at column 7'],
    ['1 in 5', null, 'SW_EXPR_TYPE', 'operator in not defined on int at column 3'],
    [
      'len(result)',
      5,
      'SW_EXPR_ARGUMENTS',
      'len: expected array, map or string, got float at column 1',
    ],
    ['isNaN(result)', [1], 'SW_EXPR_ARGUMENTS', 'isNaN: expected float, got array at column 1'],
    [
      'asInt(result) > 1',
      'abc',
      'SW_EXPR_CONVERSION',
      'asInt: cannot parse "abc" as int at column 1',
    ],
    [
      'asFloat(result) > 1',
      '1.2.3',
      'SW_EXPR_CONVERSION',
      'asFloat: cannot parse "1.2.3" as float at column 1',
    ],
    [
      'all(result, {#})',
      [1],
      'SW_EXPR_TYPE',
      'all: predicate returned float, not bool at column 1',
    ],
    ['all(result, {# > 0})', 5, 'SW_EXPR_ARGUMENTS', 'all: expected array, got float at column 1'],
    ['max(result)', [], 'SW_EXPR_ARGUMENTS', 'max: empty list at column 1'],
    ['result', {}, 'SW_EXPR_NOT_BOOL', 'expected bool, but got map at column 1'],
    ['result[0]', [0.5], 'SW_EXPR_NOT_BOOL', 'expected bool, but got float at column 1'],
  ];
  const judge = createConditionEvaluator();
  for (const [condition, result, code, message] of rows) {
    test(`${condition} with ${JSON.stringify(result)}`, () =>
      assertError(judge(condition, result), code, message));
  }

  test('an unknown variable is a compile error for conditions, a runtime error otherwise', () => {
    assertError(run('missing + 1'), 'SW_EXPR_UNKNOWN_NAME', 'unknown name missing at column 1');
  });
});

describe('limits', () => {
  test(`source longer than ${MAX_SOURCE_LENGTH}`, () => {
    const source = 'true' + ' '.repeat(MAX_SOURCE_LENGTH);
    assertError(
      compile(source),
      'SW_EXPR_LIMIT',
      `expression longer than ${MAX_SOURCE_LENGTH} characters at column 1`,
    );
  });
  test(`nesting deeper than ${MAX_AST_DEPTH}, by brackets or by an operator chain`, () => {
    const deep = '('.repeat(MAX_AST_DEPTH + 1) + '1' + ')'.repeat(MAX_AST_DEPTH + 1);
    assert.equal((compile(deep) as ExprError).code, 'SW_EXPR_LIMIT');
    assert.equal(
      (
        compile(
          Array(MAX_AST_DEPTH + 2)
            .fill('1')
            .join('+'),
        ) as ExprError
      ).code,
      'SW_EXPR_LIMIT',
    );
    assert.ok(!(compile('('.repeat(20) + '1' + ')'.repeat(20)) instanceof ExprError));
  });
  test('a predicate over a list longer than the list limit stops at once', () => {
    const result = new Array<number>(1_000_000).fill(1);
    const out = createConditionEvaluator()('all(result, {# > 0})', result);
    assertError(out, 'SW_EXPR_LIMIT', `all: list longer than ${MAX_LIST_LENGTH} at column 1`);
    assert.equal(createConditionEvaluator()('len(result) == 1000000', result), true);
  });
  test(`work is capped at ${MAX_EVAL_STEPS} steps`, () => {
    const out = run('all(1..50000, {all(1..50000, {# > 0})})');
    assert.equal((out as ExprError).code, 'SW_EXPR_LIMIT');
    assert.match((out as ExprError).message, /more than 1000000 steps/);
  });
  test('ranges, concatenation and regex subjects are bounded', () => {
    assert.equal((run(`1..${MAX_LIST_LENGTH + 1}`) as ExprError).code, 'SW_EXPR_LIMIT');
    const s = 'x'.repeat(MAX_STRING_LENGTH);
    assert.equal((run('s + "y"', { s }) as ExprError).code, 'SW_EXPR_LIMIT');
    const long = 'a'.repeat(MAX_REGEX_INPUT_LENGTH + 1);
    assert.equal((run('s matches "a"', { s: long }) as ExprError).code, 'SW_EXPR_LIMIT');
  });
  // Backtracking engines take minutes to hours on these; RE2 matches in linear time.
  test('catastrophic regexes finish (RE2 does not backtrack)', { timeout: 60_000 }, () => {
    const s = 'a'.repeat(9_999) + '!';
    for (const pattern of ['a*a*a*a*b', '(a+)+$', '(a|aa)*b', '^(\\\\w+\\\\s?)*$']) {
      assert.equal(run(`s matches "${pattern}"`, { s }), false, pattern);
    }
    assert.equal(run('"1,22,333" matches "^(\\\\d+,)*\\\\d+$"'), true);
  });
  test('cyclic data compares without overflowing the stack', () => {
    const a: unknown[] = [];
    a.push(a);
    assert.equal((run('a == a', { a }) as ExprError).code, 'SW_EXPR_LIMIT');
  });
});

describe('caller objects are data, never code', () => {
  test('prototype members are not reachable', () => {
    for (const name of ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty']) {
      assert.equal(run(`result.${name}`, { result: {} }), null, name);
      assert.equal(run(`result["${name}"]`, { result: {} }), null, name);
      assert.equal(run(`"${name}" in result`, { result: {} }), false, name);
    }
    assert.equal((run('result.length', { result: [1] }) as ExprError).code, 'SW_EXPR_TYPE');
    assert.equal((run('toString', {}) as ExprError).code, 'SW_EXPR_UNKNOWN_NAME');
  });
  test('an own `__proto__` key (JSON.parse makes them) is plain data', () => {
    const result: unknown = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}');
    assert.deepEqual(run('result.__proto__.polluted + result.a', { result }), 3);
    assert.equal(run('{__proto__: 1}.__proto__'), 1n);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
  test('getters are never run, class instances and functions are opaque', () => {
    let ran = false;
    const withGetter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => (ran = true),
    });
    assert.equal((run('result.x', { result: withGetter }) as ExprError).code, 'SW_EXPR_TYPE');
    assert.equal(ran, false);
    class Box {
      x = 1;
    }
    assert.equal((run('result.x', { result: new Box() }) as ExprError).code, 'SW_EXPR_TYPE');
    assert.equal((run('result', { result: () => 1 }) as ExprError).code, 'SW_EXPR_TYPE');
    assert.equal((run('result.call', { result: () => 1 }) as ExprError).code, 'SW_EXPR_TYPE');
  });
});
