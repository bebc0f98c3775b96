// Condition expressions (expr-lang v1.17 subset, as Argo Rollouts users write them), parsed
// and evaluated by our own code: no eval, no Function, no reach into prototypes. Nothing here
// throws: errors are ExprError values with a stable `code` and the column they refer to.
import type { Node } from './ast.ts';
import { ExprError, toExprError } from './errors.ts';
import type { Env } from './evaluator.ts';
import { Evaluator } from './evaluator.ts';
import { CONDITION_CACHE_SIZE } from './limits.ts';
import { parse } from './parser.ts';
import type { Value } from './values.ts';
import { kindOf, typeName } from './values.ts';

export { ExprError, type ExprErrorCode } from './errors.ts';
export type { Env } from './evaluator.ts';
export type { Kind, Value, ValueMap } from './values.ts';
export * from './limits.ts';
export { goRegexTest } from './regex.ts';

/** A parsed expression, reusable across evaluations. */
export interface Compiled {
  readonly source: string;
  readonly tree: Node;
}

export interface CompileOptions {
  /** The variable names the env will have: any other name is a compile error. Default: any. */
  readonly variables?: readonly string[];
}

/** The variables Argo gives a metric's conditions. */
export const CONDITION_VARIABLES: readonly string[] = ['result'];

export function compile(source: string, options: CompileOptions = {}): Compiled | ExprError {
  try {
    return Object.freeze({ source, tree: parse(source, options) });
  } catch (caught) {
    return toExprError(caught, source);
  }
}

/**
 * Evaluates with `env` bound. Env numbers are floats (as Prometheus and JSON give them) and
 * bigints are ints; arrays and plain objects are read through own data properties only.
 */
export function evaluate(compiled: Compiled, env: Env): Value | ExprError {
  try {
    const out = new Evaluator(env).run(compiled.tree);
    if (kindOf(out) === 'unsupported') {
      return new ExprError('SW_EXPR_TYPE', 'result is an unsupported value', compiled.source, 0);
    }
    return (out ?? null) as Value;
  } catch (caught) {
    return toExprError(caught, compiled.source, compiled.tree.offset);
  }
}

/** Evaluates a condition, which must yield a bool (Argo compiles with expr.AsBool()). */
export function evaluateCondition(compiled: Compiled, env: Env): boolean | ExprError {
  const out = evaluate(compiled, env);
  if (out instanceof ExprError || typeof out === 'boolean') return out;
  const detail = `expected bool, but got ${typeName(out)}`;
  return new ExprError('SW_EXPR_NOT_BOOL', detail, compiled.source, 0);
}

/** The problem with a metric condition, if any, for validation before anything runs. */
export function checkCondition(source: string): ExprError | undefined {
  const compiled = compile(source, { variables: CONDITION_VARIABLES });
  return compiled instanceof ExprError ? compiled : undefined;
}

/**
 * A `(condition, result) => boolean | ExprError` function (the ConditionEvaluator shape of
 * src/analysis/evaluate) that keeps the last CONDITION_CACHE_SIZE compiled conditions.
 */
export function createConditionEvaluator(): (
  condition: string,
  result: unknown,
) => boolean | ExprError {
  const cache = new Map<string, Compiled | ExprError>();
  return (condition, result) => {
    let compiled = cache.get(condition);
    if (compiled === undefined) {
      compiled = compile(condition, { variables: CONDITION_VARIABLES });
      if (cache.size >= CONDITION_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
      cache.set(condition, compiled);
    }
    if (compiled instanceof ExprError) return compiled;
    return evaluateCondition(compiled, { result });
  };
}
