// Builtins that take plain values: expr-lang's `len`, `abs`, `min`, … and Argo's `isNaN`,
// `isInf`, `isNil`, `default`, `asInt`, `asFloat`. Predicate builtins live in closures.ts.
import { Fault } from './errors.ts';
import { MAX_LIST_LENGTH } from './limits.ts';
import type { ValueMap } from './values.ts';
import { isMap, isNumber, kindOf, mapKeys, readOwn, toFloat, typeName } from './values.ts';

export interface PlainBuiltin {
  readonly min: number;
  readonly max: number;
  readonly call: (args: readonly unknown[], offset: number) => unknown;
}

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;
const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INFINITY = /^[+-]?(?:inf|infinity)$/i;

function argumentError(name: string, expected: string, got: unknown, offset: number): Fault {
  const detail = `${name}: expected ${expected}, got ${typeName(got)}`;
  return new Fault('SW_EXPR_ARGUMENTS', detail, offset);
}

/** The elements of an array argument, read safely, within the list limit. */
export function listArgument(name: string, value: unknown, offset: number): unknown[] {
  if (!Array.isArray(value)) throw argumentError(name, 'array', value, offset);
  const list = value as readonly unknown[];
  if (list.length > MAX_LIST_LENGTH) {
    throw new Fault('SW_EXPR_LIMIT', `${name}: list longer than ${MAX_LIST_LENGTH}`, offset);
  }
  return Array.from({ length: list.length }, (_, i) => readOwn(list, i, offset));
}

function numbers(name: string, values: readonly unknown[], offset: number): (bigint | number)[] {
  return values.map((v) => {
    if (!isNumber(v)) throw argumentError(name, 'number', v, offset);
    return v;
  });
}

function float(name: string, value: unknown, offset: number): number {
  if (!isNumber(value)) throw argumentError(name, 'float', value, offset);
  return toFloat(value);
}

function extreme(name: string, pick: (a: number, b: number) => boolean) {
  return (args: readonly unknown[], offset: number): unknown => {
    const only = args.length === 1 ? args[0] : undefined;
    const values = numbers(
      name,
      Array.isArray(only) ? listArgument(name, only, offset) : args,
      offset,
    );
    let best = values[0];
    if (best === undefined) throw new Fault('SW_EXPR_ARGUMENTS', `${name}: empty list`, offset);
    for (const v of values) {
      if (Number.isNaN(toFloat(v))) return NaN; // as Go's math.Max/Min
      if (pick(toFloat(v), toFloat(best))) best = v;
    }
    return best;
  };
}

function asInt(args: readonly unknown[], offset: number): bigint {
  const value = args[0];
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new Fault('SW_EXPR_CONVERSION', `asInt: cannot convert ${value} to int`, offset);
    }
    return BigInt.asIntN(64, BigInt(Math.trunc(value)));
  }
  if (typeof value !== 'string') throw argumentError('asInt', 'string or number', value, offset);
  const parsed = /^[+-]?\d+$/.test(value) ? BigInt(value) : undefined;
  if (parsed === undefined || parsed < MIN_INT64 || parsed > MAX_INT64) {
    const detail = `asInt: cannot parse ${JSON.stringify(value)} as int`;
    throw new Fault('SW_EXPR_CONVERSION', detail, offset);
  }
  return parsed;
}

function asFloat(args: readonly unknown[], offset: number): number {
  const value = args[0];
  if (isNumber(value)) return toFloat(value);
  if (typeof value !== 'string') throw argumentError('asFloat', 'string or number', value, offset);
  if (INFINITY.test(value)) return value.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(value)) return NaN;
  const parsed = DECIMAL_FLOAT.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(parsed)) {
    const detail = `asFloat: cannot parse ${JSON.stringify(value)} as float`;
    throw new Fault('SW_EXPR_CONVERSION', detail, offset);
  }
  return parsed;
}

function sorted(name: string, args: readonly unknown[], offset: number): number[] {
  const list = numbers(name, listArgument(name, args[0], offset), offset).map(toFloat);
  return list.sort((a, b) => a - b);
}

function mapArgument(name: string, value: unknown, offset: number): ValueMap {
  if (!isMap(value)) throw argumentError(name, 'map', value, offset);
  return value;
}

function stringArgument(name: string, value: unknown, offset: number): string {
  if (typeof value !== 'string') throw argumentError(name, 'string', value, offset);
  return value;
}

const table: [string, PlainBuiltin][] = [
  ['len', { min: 1, max: 1, call: ([v], at) => length(v, at) }],
  [
    'abs',
    {
      min: 1,
      max: 1,
      call: ([v], at) => {
        if (!isNumber(v)) throw argumentError('abs', 'number', v, at);
        return typeof v === 'bigint' ? BigInt.asIntN(64, v < 0n ? -v : v) : Math.abs(v);
      },
    },
  ],
  ['ceil', { min: 1, max: 1, call: ([v], at) => Math.ceil(float('ceil', v, at)) }],
  ['floor', { min: 1, max: 1, call: ([v], at) => Math.floor(float('floor', v, at)) }],
  [
    'round',
    {
      min: 1,
      max: 1,
      call: ([v], at) => {
        const x = float('round', v, at); // half away from zero, as Go's math.Round
        return x < 0 ? -Math.round(-x) : Math.round(x);
      },
    },
  ],
  ['max', { min: 1, max: Infinity, call: extreme('max', (a, b) => a > b) }],
  ['min', { min: 1, max: Infinity, call: extreme('min', (a, b) => a < b) }],
  [
    'mean',
    {
      min: 1,
      max: 1,
      call: (args, at) => {
        const list = sorted('mean', args, at);
        return list.length === 0 ? 0 : list.reduce((s, x) => s + x, 0) / list.length;
      },
    },
  ],
  [
    'median',
    {
      min: 1,
      max: 1,
      call: (args, at) => {
        const list = sorted('median', args, at);
        const mid = Math.floor(list.length / 2);
        if (list.length === 0) return 0;
        return list.length % 2 ? list[mid] : ((list[mid - 1] ?? 0) + (list[mid] ?? 0)) / 2;
      },
    },
  ],
  ['isNaN', { min: 1, max: 1, call: ([v], at) => Number.isNaN(float('isNaN', v, at)) }],
  [
    'isInf',
    {
      min: 1,
      max: 2,
      call: ([v, sign], at) => {
        // Go's math.IsInf(f, sign): sign > 0 only +Inf, < 0 only -Inf, 0 (default) either.
        const x = float('isInf', v, at);
        const s = sign === undefined ? 0 : float('isInf', sign, at);
        return s > 0 ? x === Infinity : s < 0 ? x === -Infinity : Math.abs(x) === Infinity;
      },
    },
  ],
  ['isNil', { min: 1, max: 1, call: ([v]) => kindOf(v) === 'nil' }],
  ['default', { min: 2, max: 2, call: ([v, fallback]) => (kindOf(v) === 'nil' ? fallback : v) }],
  ['asInt', { min: 1, max: 1, call: asInt }],
  ['asFloat', { min: 1, max: 1, call: asFloat }],
  ['int', { min: 1, max: 1, call: asInt }],
  ['float', { min: 1, max: 1, call: asFloat }],
  ['first', { min: 1, max: 1, call: ([v], at) => listArgument('first', v, at)[0] ?? null }],
  ['last', { min: 1, max: 1, call: ([v], at) => listArgument('last', v, at).at(-1) ?? null }],
  ['keys', { min: 1, max: 1, call: ([v], at) => mapKeys(mapArgument('keys', v, at)) }],
  [
    'values',
    {
      min: 1,
      max: 1,
      call: ([v], at) => {
        const map = mapArgument('values', v, at);
        return mapKeys(map).map((k) => readOwn(map, k, at) ?? null);
      },
    },
  ],
  ['lower', { min: 1, max: 1, call: ([v], at) => stringArgument('lower', v, at).toLowerCase() }],
  ['upper', { min: 1, max: 1, call: ([v], at) => stringArgument('upper', v, at).toUpperCase() }],
  ['trim', { min: 1, max: 1, call: ([v], at) => stringArgument('trim', v, at).trim() }],
];

export const PLAIN_BUILTINS: ReadonlyMap<string, PlainBuiltin> = new Map(table);

function length(value: unknown, offset: number): bigint {
  if (typeof value === 'string') {
    let count = 0;
    for (const _ of value) count++; // characters, as Go's utf8.RuneCountInString
    return BigInt(count);
  }
  if (Array.isArray(value)) return BigInt((value as readonly unknown[]).length);
  if (isMap(value)) return BigInt(mapKeys(value).length);
  throw argumentError('len', 'array, map or string', value, offset);
}
