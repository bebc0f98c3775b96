// Properties of the condition language over random input: nothing throws, arithmetic agrees
// with a reference computation, logic laws hold, and random caller data never reaches a
// prototype or a getter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compile,
  evaluate,
  ExprError,
  type Env,
  type Value,
} from '../../../src/analysis/expr/index.ts';

function run(source: string, env: Env = {}): Value | ExprError {
  const compiled = compile(source);
  return compiled instanceof ExprError ? compiled : evaluate(compiled, env);
}

const fragments = fc.constantFrom(
  ...['result', '[', ']', '(', ')', '{', '}', '#', '#index', '.', '?.', ',', ':', '?', '??'],
  ...['+', '-', '*', '/', '%', '**', '^', '==', '!=', '<', '>=', '&&', '||', '!', 'not'],
  ...['and', 'or', 'in', 'matches', 'contains', '..', '0', '1', '-1', '0.5', '1e309', '"a"'],
  ...["'b'", '`c`', 'nil', 'true', 'len', 'all', 'filter', 'map', 'isNaN', 'asInt', ' ', '"'],
  ...['default', 'sum', 'max', '9223372036854775807', '__proto__', 'constructor', '\\', '/*'],
);
const sourceArb = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.array(fragments, { maxLength: 30 }).map((parts) => parts.join('')),
  fc.array(fragments, { maxLength: 30 }).map((parts) => parts.join(' ')),
);
const resultArb = fc.oneof(
  fc.double(),
  fc.constantFrom(NaN, Infinity, -Infinity),
  fc.array(fc.double(), { maxLength: 5 }),
  fc.anything({ withNullPrototype: true, withBigInt: true, withSparseArray: true, maxDepth: 3 }),
);

test('compile and evaluate return a value or an ExprError for any source and result', () => {
  fc.assert(
    fc.property(sourceArb, resultArb, (source, result) => {
      const compiled = compile(source);
      if (compiled instanceof ExprError) {
        assert.ok(compiled.column >= 1 && compiled.offset <= source.length);
        return;
      }
      const out = evaluate(compiled, { result });
      assert.notEqual(out, undefined);
    }),
    { numRuns: 3000 },
  );
});

type IntTree = bigint | { op: '+' | '-' | '*'; left: IntTree; right: IntTree } | { neg: IntTree };
const intTree: fc.Arbitrary<IntTree> = fc.letrec<{ tree: IntTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
    fc.record({
      op: fc.constantFrom('+' as const, '-' as const, '*' as const),
      left: tie('tree'),
      right: tie('tree'),
    }),
    fc.record({ neg: tie('tree') }),
  ),
})).tree;

function intSource(t: IntTree): string {
  if (typeof t === 'bigint') return t < 0n ? `(${t})` : `${t}`;
  if ('neg' in t) return `-(${intSource(t.neg)})`;
  return `(${intSource(t.left)} ${t.op} ${intSource(t.right)})`;
}

function intValue(t: IntTree): bigint {
  const wrap = (x: bigint) => BigInt.asIntN(64, x);
  if (typeof t === 'bigint') return t;
  if ('neg' in t) return wrap(-intValue(t.neg));
  const [a, b] = [intValue(t.left), intValue(t.right)];
  return wrap(t.op === '+' ? a + b : t.op === '-' ? a - b : a * b);
}

test('int arithmetic equals 64-bit wrapping arithmetic', () => {
  fc.assert(
    fc.property(intTree, (tree) => {
      const source = intSource(tree);
      fc.pre(source.length < 4000);
      const out = run(source);
      if (out instanceof ExprError)
        assert.equal(out.code, 'SW_EXPR_LIMIT'); // only depth
      else assert.equal(out, intValue(tree));
    }),
    { numRuns: 500 },
  );
});

type FloatTree = number | { op: '+' | '-' | '*' | '/'; left: FloatTree; right: FloatTree };
const floatTree: fc.Arbitrary<FloatTree> = fc.letrec<{ tree: FloatTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    fc.record({
      op: fc.constantFrom('+' as const, '-' as const, '*' as const, '/' as const),
      left: tie('tree'),
      right: tie('tree'),
    }),
  ),
})).tree;

function floatSource(t: FloatTree, env: number[]): string {
  if (typeof t === 'number') {
    env.push(t); // leaves come in through the env, as Prometheus values do
    return `v[${env.length - 1}]`;
  }
  return `(${floatSource(t.left, env)} ${t.op} ${floatSource(t.right, env)})`;
}

function dividesByZero(t: FloatTree): boolean {
  if (typeof t === 'number') return false;
  if (t.op === '/' && floatValue(t.right) === 0) return true;
  return dividesByZero(t.left) || dividesByZero(t.right);
}

function floatValue(t: FloatTree): number {
  if (typeof t === 'number') return t;
  const [a, b] = [floatValue(t.left), floatValue(t.right)];
  return t.op === '+' ? a + b : t.op === '-' ? a - b : t.op === '*' ? a * b : a / b;
}

test('float arithmetic equals IEEE arithmetic, except that / 0 is an error', () => {
  fc.assert(
    fc.property(floatTree, (tree) => {
      const v: number[] = [];
      const out = run(floatSource(tree, v), { v });
      if (out instanceof ExprError) {
        const zero = out.code === 'SW_EXPR_DIVIDE_BY_ZERO' && dividesByZero(tree);
        assert.ok(zero || out.code === 'SW_EXPR_LIMIT', out.message);
      } else {
        assert.equal(typeof out, 'number');
        assert.ok(Object.is(out, floatValue(tree)), `${out as number} vs ${floatValue(tree)}`);
      }
    }),
    { numRuns: 500 },
  );
});

test('comparisons agree with IEEE doubles, NaN and infinities included', () => {
  const special = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, 0, -0));
  fc.assert(
    fc.property(special, special, (a, b) => {
      const env = { a, b };
      assert.equal(run('a < b', env), a < b);
      assert.equal(run('a >= b', env), a >= b);
      assert.equal(run('a == b', env), a === b);
      assert.equal(run('a != b', env), a !== b);
      assert.equal(run('isNaN(a)', env), Number.isNaN(a));
    }),
  );
});

test('logic laws: a && b is !(!a || !b), and `and`/`or`/`not` spell the same operators', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.boolean(), (a, b) => {
      const env = { a, b };
      assert.equal(run('a && b', env), run('!(!a || !b)', env));
      assert.equal(run('a and b', env), a && b);
      assert.equal(run('a or not b', env), a || !b);
      assert.equal(run('a ? b : !b', env), a ? b : !b);
    }),
  );
});

const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a', 'x');
const hostile = fc.anything({
  key: hostileKey,
  withNullPrototype: true,
  withBigInt: true,
  withSparseArray: true,
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withDate: true,
  withTypedArray: true,
  maxDepth: 4,
});
const probes = [
  'result.x',
  'result.__proto__',
  'result["constructor"]',
  'result.prototype?.toString',
  'result.a.__proto__.x',
  'result[0]',
  'result[-1].x',
  'result[1:]',
  '"x" in result',
  '"__proto__" in result',
  'result == result',
  'len(result)',
  'all(result, {# == #})',
  'map(result, {.x})',
  'filter(result, {.a ?? false})',
  'keys(result)',
  'values(result)',
  'default(result.x, 1)',
  'isNil(result?.x)',
  'result + 1',
  'result > 0.5',
];

test('random caller data never throws and never reaches a prototype or a getter', () => {
  let touched = 0;
  // A canary on Object.prototype: any inherited read of these names trips it.
  for (const name of ['x', 'a']) {
    Object.defineProperty(Object.prototype, name, {
      configurable: true,
      get: () => {
        touched++;
        return 'inherited';
      },
      // Assignments (by fast-check building objects) still make plain own properties.
      set(this: object, value: unknown) {
        Object.defineProperty(this, name, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      },
    });
  }
  try {
    const compiled = probes.map((p) => compile(p));
    fc.assert(
      fc.property(hostile, (result) => {
        for (const c of compiled) {
          assert.ok(!(c instanceof ExprError));
          const out = evaluate(c, { result });
          assert.notEqual(out, 'inherited');
          assert.notEqual(out, undefined);
        }
      }),
      { numRuns: 1500 },
    );
  } finally {
    for (const name of ['x', 'a']) delete (Object.prototype as Record<string, unknown>)[name];
  }
  assert.equal(touched, 0);
});
