// Tree-walking evaluator. Every node visit and closure iteration is a step; reading caller
// data goes through values.ts (own data properties only).
import type { Node } from './ast.ts';
import { listArgument, PLAIN_BUILTINS } from './builtins.ts';
import { PREDICATE_BUILTINS } from './closures.ts';
import { Fault } from './errors.ts';
import { MAX_EVAL_STEPS, MAX_LIST_LENGTH } from './limits.ts';
import { binary, unary } from './operators.ts';
import { regexWork } from './regex.ts';
import { isMap, kindOf, newMap, readOwn, typeName } from './values.ts';

/** The variables a condition sees, e.g. `{ result }`. Read as a plain map. */
export type Env = { readonly [name: string]: unknown };

interface Scope {
  readonly item: unknown;
  readonly index: number;
}

export class Evaluator {
  private steps = 0;
  private readonly env: Env;

  constructor(env: Env) {
    this.env = env;
  }

  run(node: Node): unknown {
    return this.eval(node, undefined);
  }

  private eval(node: Node, scope: Scope | undefined): unknown {
    if (++this.steps > MAX_EVAL_STEPS) {
      throw new Fault(
        'SW_EXPR_LIMIT',
        `evaluation took more than ${MAX_EVAL_STEPS} steps`,
        node.offset,
      );
    }
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'array': {
        if (node.items.length > MAX_LIST_LENGTH) {
          throw new Fault('SW_EXPR_LIMIT', `list longer than ${MAX_LIST_LENGTH}`, node.offset);
        }
        return node.items.map((item) => this.eval(item, scope));
      }
      case 'map':
        return newMap(node.entries.map((e) => [e.key, this.eval(e.value, scope)] as const));
      case 'name':
        return this.variable(node.name, node.offset);
      case 'pointer':
        if (!scope)
          throw new Fault('SW_EXPR_SYNTAX', `${node.name} outside of a predicate`, node.offset);
        return node.name === '#' ? scope.item : BigInt(scope.index);
      case 'member': {
        const object = this.eval(node.object, scope);
        if (node.optional && kindOf(object) === 'nil') return null;
        return fetch(object, this.eval(node.property, scope), node.offset);
      }
      case 'slice':
        return slice(
          this.eval(node.object, scope),
          node.from && this.eval(node.from, scope),
          node.to && this.eval(node.to, scope),
          node.offset,
        );
      case 'unary':
        return unary(node.op, this.eval(node.operand, scope), node.offset);
      case 'binary':
        return this.binary(node, scope);
      case 'conditional': {
        const test = this.eval(node.test, scope);
        if (typeof test !== 'boolean') {
          const detail = `non-bool ${typeName(test)} used as condition of ?:`;
          throw new Fault('SW_EXPR_TYPE', detail, node.offset);
        }
        return this.eval(test ? node.then : node.otherwise, scope);
      }
      case 'call':
        return this.call(node, scope);
      case 'closure':
        throw new Fault('SW_EXPR_SYNTAX', 'predicate outside of a builtin', node.offset);
    }
  }

  private variable(name: string, offset: number): unknown {
    // The env is caller data like any map: own data properties only.
    const found = readOwn(this.env, name, offset);
    if (found === undefined && !Object.hasOwn(this.env, name)) {
      throw new Fault('SW_EXPR_UNKNOWN_NAME', `unknown name ${name}`, offset);
    }
    return found ?? null;
  }

  private binary(node: Extract<Node, { kind: 'binary' }>, scope: Scope | undefined): unknown {
    const left = this.eval(node.left, scope);
    if (node.op === '??') return kindOf(left) === 'nil' ? this.eval(node.right, scope) : left;
    if (node.op === 'and' || node.op === 'or') {
      const word = node.op === 'and' ? '&&' : '||';
      if (typeof left !== 'boolean') {
        throw new Fault(
          'SW_EXPR_TYPE',
          `invalid operation: ${typeName(left)} ${word} …`,
          node.offset,
        );
      }
      if (left === (node.op === 'or')) return left; // short-circuit
      const right = this.eval(node.right, scope);
      if (typeof right !== 'boolean') {
        const detail = `invalid operation: bool ${word} ${typeName(right)}`;
        throw new Fault('SW_EXPR_TYPE', detail, node.offset);
      }
      return right;
    }
    const right = this.eval(node.right, scope);
    if (node.op === 'matches' && typeof left === 'string' && typeof right === 'string') {
      this.charge(regexWork(left, right, node.offset), node.offset);
    }
    return binary(node.op, left, right, node.offset);
  }

  /** Counts work done outside node visits (regex matching) against the same budget. */
  private charge(steps: number, offset: number): void {
    this.steps += steps;
    if (this.steps > MAX_EVAL_STEPS) {
      throw new Fault('SW_EXPR_LIMIT', `evaluation took more than ${MAX_EVAL_STEPS} steps`, offset);
    }
  }

  private call(node: Extract<Node, { kind: 'call' }>, scope: Scope | undefined): unknown {
    const plain = PLAIN_BUILTINS.get(node.name);
    if (plain) {
      const args = node.args.map((a) => this.eval(a, scope));
      return plain.call(args, node.offset);
    }
    const predicate = PREDICATE_BUILTINS.get(node.name);
    if (!predicate)
      throw new Fault('SW_EXPR_UNKNOWN_NAME', `unknown function ${node.name}`, node.offset);
    const [listNode, closure] = node.args;
    const list = listArgument(node.name, listNode && this.eval(listNode, scope), node.offset);
    const body = closure?.kind === 'closure' ? closure.body : closure;
    const apply = body && ((item: unknown, index: number) => this.eval(body, { item, index }));
    return predicate.call(list, apply, node.offset);
  }
}

/** `a.b`, `a["b"]`, `a[0]` (negative counts from the end), as expr's runtime.Fetch. */
export function fetch(object: unknown, key: unknown, offset: number): unknown {
  if (isMap(object)) {
    if (typeof key !== 'string') {
      throw new Fault('SW_EXPR_TYPE', `cannot use ${typeName(key)} as map key`, offset);
    }
    return readOwn(object, key, offset) ?? null; // a missing key is nil, as in expr
  }
  if ((Array.isArray(object) || typeof object === 'string') && typeof key !== 'string') {
    const chars = typeof object === 'string' ? [...object] : (object as readonly unknown[]);
    const length = chars.length;
    const index = toIndex(key, offset);
    const at = index < 0 ? index + length : index;
    if (at < 0 || at >= length) {
      throw new Fault('SW_EXPR_RANGE', `index ${index} out of range (len ${length})`, offset);
    }
    return readOwn(chars, at, offset) ?? null;
  }
  const what = typeof key === 'string' ? key : String(key);
  throw new Fault('SW_EXPR_TYPE', `cannot fetch ${what} from ${typeName(object)}`, offset);
}

function toIndex(key: unknown, offset: number): number {
  if (typeof key === 'bigint') return Number(key);
  if (typeof key === 'number' && Number.isFinite(key)) return Math.trunc(key);
  throw new Fault('SW_EXPR_TYPE', `cannot use ${typeName(key)} as index`, offset);
}

/** `a[from:to]`: bounds clamp and negative bounds count from the end, as expr's runtime.Slice. */
function slice(object: unknown, from: unknown, to: unknown, offset: number): unknown {
  const isString = typeof object === 'string';
  if (!isString && !Array.isArray(object)) {
    throw new Fault('SW_EXPR_TYPE', `cannot slice ${typeName(object)}`, offset);
  }
  const items = isString ? [...object] : (object as readonly unknown[]);
  const length = items.length;
  const bound = (value: unknown, fallback: number): number => {
    if (kindOf(value) === 'nil') return fallback;
    const n = toIndex(value, offset);
    return Math.min(Math.max(n < 0 ? n + length : n, 0), length);
  };
  const start = bound(from, 0);
  const end = Math.max(bound(to, length), start);
  if (isString) return items.slice(start, end).join('');
  if (end - start > MAX_LIST_LENGTH) {
    throw new Fault('SW_EXPR_LIMIT', `slice longer than ${MAX_LIST_LENGTH}`, offset);
  }
  return Array.from({ length: end - start }, (_, i) => readOwn(items, start + i, offset) ?? null);
}
