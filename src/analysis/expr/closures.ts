// Builtins that run a predicate over a list (`all(result, {# > 0.9})`). The evaluator hands
// in `apply`, which evaluates the predicate with `#` and `#index` bound and counts the step.
import { Fault } from './errors.ts';
import { isNumber, toFloat, typeName, wrapInt } from './values.ts';

export type Apply = (item: unknown, index: number) => unknown;

export interface PredicateBuiltin {
  readonly min: number;
  readonly max: number;
  /** `list` is already read safely and within the list limit; `apply` is absent if no predicate. */
  readonly call: (list: readonly unknown[], apply: Apply | undefined, offset: number) => unknown;
}

function test(name: string, apply: Apply | undefined, item: unknown, index: number, at: number) {
  const out = apply ? apply(item, index) : item;
  if (typeof out !== 'boolean') {
    throw new Fault('SW_EXPR_TYPE', `${name}: predicate returned ${typeName(out)}, not bool`, at);
  }
  return out;
}

function counting(name: string, list: readonly unknown[], apply: Apply | undefined, at: number) {
  let n = 0;
  list.forEach((item, i) => {
    if (test(name, apply, item, i, at)) n++;
  });
  return n;
}

function finder(name: string, fromEnd: boolean, wantIndex: boolean): PredicateBuiltin {
  return {
    min: 2,
    max: 2,
    call: (list, apply, at) => {
      for (let k = 0; k < list.length; k++) {
        const i = fromEnd ? list.length - 1 - k : k;
        if (test(name, apply, list[i], i, at)) return wantIndex ? BigInt(i) : (list[i] ?? null);
      }
      return wantIndex ? -1n : null;
    },
  };
}

const table: [string, PredicateBuiltin][] = [
  ['all', { min: 2, max: 2, call: (l, f, at) => l.every((x, i) => test('all', f, x, i, at)) }],
  ['any', { min: 2, max: 2, call: (l, f, at) => l.some((x, i) => test('any', f, x, i, at)) }],
  ['none', { min: 2, max: 2, call: (l, f, at) => !l.some((x, i) => test('none', f, x, i, at)) }],
  ['one', { min: 2, max: 2, call: (l, f, at) => counting('one', l, f, at) === 1 }],
  ['count', { min: 2, max: 2, call: (l, f, at) => BigInt(counting('count', l, f, at)) }],
  [
    'filter',
    { min: 2, max: 2, call: (l, f, at) => l.filter((x, i) => test('filter', f, x, i, at)) },
  ],
  ['map', { min: 2, max: 2, call: (l, f) => l.map((x, i) => (f ? f(x, i) : x) ?? null) }],
  ['find', finder('find', false, false)],
  ['findIndex', finder('findIndex', false, true)],
  ['findLast', finder('findLast', true, false)],
  ['findLastIndex', finder('findLastIndex', true, true)],
  [
    'sum',
    {
      min: 1,
      max: 2,
      call: (list, apply, at) => {
        // int while every term is an int, as expr's sum; a float term makes the sum a float.
        let total: bigint | number = 0n;
        list.forEach((item, i) => {
          const v = apply ? apply(item, i) : item;
          if (!isNumber(v)) {
            throw new Fault('SW_EXPR_ARGUMENTS', `sum: expected number, got ${typeName(v)}`, at);
          }
          total =
            typeof total === 'bigint' && typeof v === 'bigint'
              ? wrapInt(total + v)
              : toFloat(total) + toFloat(v);
        });
        return total;
      },
    },
  ],
];

export const PREDICATE_BUILTINS: ReadonlyMap<string, PredicateBuiltin> = new Map(table);
