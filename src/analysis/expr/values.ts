// Runtime values and the only ways the evaluator reads caller data. Ints are bigint (int64
// like Go's int), floats are number. Env data is read lazily and only through own,
// enumerable data properties of arrays and plain objects: no prototype, getter or method of
// a JavaScript object is ever reached.
import { Fault } from './errors.ts';
import { MAX_LIST_LENGTH, MAX_VALUE_DEPTH } from './limits.ts';

export type Kind = 'nil' | 'bool' | 'int' | 'float' | 'string' | 'array' | 'map' | 'unsupported';

/** A map as the evaluator sees it: a plain object (prototype Object.prototype or null). */
export type ValueMap = { readonly [key: string]: unknown };

/**
 * What evaluate returns: nil is null, int is bigint, float is number; arrays and maps may
 * hold any env data (read them with the same care as the evaluator if you walk them).
 */
export type Value = null | boolean | bigint | number | string | readonly unknown[] | ValueMap;

export function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case 'undefined':
      return 'nil';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
    case 'object': {
      if (value === null) return 'nil';
      if (Array.isArray(value)) return 'array';
      const proto: unknown = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null ? 'map' : 'unsupported';
    }
    case 'function':
    case 'symbol':
      return 'unsupported';
  }
}

export function isArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}

export function isMap(value: unknown): value is ValueMap {
  return kindOf(value) === 'map';
}

/** Type name for messages, as expr users know them (`int`, `float`, `string`, …). */
export function typeName(value: unknown): string {
  const kind = kindOf(value);
  return kind === 'unsupported' ? 'unsupported value' : kind;
}

/** An element of an array or a key of a map: own data properties only, else undefined. */
export function readOwn(container: object, key: string | number, offset: number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(container, key);
  if (!descriptor || !descriptor.enumerable) return undefined;
  if (!('value' in descriptor)) {
    throw new Fault('SW_EXPR_TYPE', `cannot read ${String(key)}: not a data property`, offset);
  }
  return descriptor.value as unknown;
}

/** The own enumerable string keys of a map. */
export function mapKeys(map: ValueMap): string[] {
  return Object.keys(map);
}

/** A fresh map with a null prototype, filled with defineProperty (so `__proto__` is data). */
export function newMap(entries: Iterable<readonly [string, unknown]>): ValueMap {
  const map: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) {
    Object.defineProperty(map, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return map;
}

/** Go's int arithmetic wraps at 64 bits. */
export function wrapInt(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}

export function isNumber(value: unknown): value is bigint | number {
  return typeof value === 'bigint' || typeof value === 'number';
}

export function toFloat(value: bigint | number): number {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** `==` as expr does it: numbers compare across int/float, other kinds must match. */
export function equal(a: unknown, b: unknown, offset: number, depth = 0): boolean {
  if (depth > MAX_VALUE_DEPTH) {
    throw new Fault('SW_EXPR_LIMIT', `values nested deeper than ${MAX_VALUE_DEPTH}`, offset);
  }
  if (isNumber(a) && isNumber(b)) {
    return typeof a === typeof b ? a === b : toFloat(a) === toFloat(b);
  }
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  switch (kind) {
    case 'nil':
      return true;
    case 'array': {
      const x = a as readonly unknown[];
      const y = b as readonly unknown[];
      if (x.length !== y.length) return false;
      if (x.length > MAX_LIST_LENGTH) {
        throw new Fault('SW_EXPR_LIMIT', `list longer than ${MAX_LIST_LENGTH}`, offset);
      }
      for (let i = 0; i < x.length; i++) {
        if (!equal(readOwn(x, i, offset), readOwn(y, i, offset), offset, depth + 1)) return false;
      }
      return true;
    }
    case 'map': {
      const x = a as ValueMap;
      const y = b as ValueMap;
      const keys = mapKeys(x);
      if (keys.length !== mapKeys(y).length) return false;
      for (const key of keys) {
        if (readOwn(y, key, offset) === undefined && !Object.hasOwn(y, key)) return false;
        if (!equal(readOwn(x, key, offset), readOwn(y, key, offset), offset, depth + 1)) {
          return false;
        }
      }
      return true;
    }
    case 'bool':
    case 'int':
    case 'float':
    case 'string':
    case 'unsupported':
      return a === b;
  }
}
