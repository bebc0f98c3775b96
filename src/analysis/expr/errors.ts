// Expression errors are values: compile and evaluate return them, never throw them.
import { StepwiseError } from '../../api/index.ts';

export type ExprErrorCode =
  | 'SW_EXPR_SYNTAX' // the source does not parse
  | 'SW_EXPR_UNKNOWN_NAME' // a variable or function that does not exist
  | 'SW_EXPR_ARGUMENTS' // wrong number or kind of builtin arguments
  | 'SW_EXPR_TYPE' // an operator or builtin applied to values it is not defined on
  | 'SW_EXPR_RANGE' // an index out of range
  | 'SW_EXPR_DIVIDE_BY_ZERO' // integer division or modulo by zero
  | 'SW_EXPR_CONVERSION' // asInt/asFloat of a string that is not a number
  | 'SW_EXPR_REGEX' // a pattern `matches` cannot (or will not) run
  | 'SW_EXPR_LIMIT' // a limit of limits.ts was reached
  | 'SW_EXPR_NOT_BOOL' // a condition that does not yield a bool
  | 'SW_EXPR_INTERNAL'; // a bug in the evaluator, still reported as a value

/** An error in a condition, with the place in the source it refers to. */
export class ExprError extends StepwiseError {
  override name = 'ExprError';
  readonly code: ExprErrorCode;
  /** The message without its position. */
  readonly detail: string;
  /** 0-based offset into the source, in UTF-16 code units. */
  readonly offset: number;
  /** 1-based column, in characters (code points). */
  readonly column: number;
  constructor(code: ExprErrorCode, detail: string, source: string, offset: number) {
    const at = Math.max(0, Math.min(offset, source.length));
    const column = [...source.slice(0, at)].length + 1;
    super(`${detail} at column ${column}`);
    this.code = code;
    this.detail = detail;
    this.offset = at;
    this.column = column;
  }
}

/**
 * What the tokenizer, parser and evaluator throw internally, before the source is at hand.
 * The public functions catch it and return an ExprError instead.
 */
export class Fault extends Error {
  readonly code: ExprErrorCode;
  readonly detail: string;
  readonly offset: number;
  constructor(code: ExprErrorCode, detail: string, offset: number) {
    super(detail);
    this.code = code;
    this.detail = detail;
    this.offset = offset;
  }
}

/** Converts anything caught at the public boundary into an ExprError. */
export function toExprError(caught: unknown, source: string, fallbackOffset = 0): ExprError {
  if (caught instanceof Fault)
    return new ExprError(caught.code, caught.detail, source, caught.offset);
  if (caught instanceof ExprError) return caught;
  if (caught instanceof RangeError) {
    // V8's stack overflow: the value nesting limits should prevent it; report as a limit.
    return new ExprError(
      'SW_EXPR_LIMIT',
      `evaluation too deep: ${caught.message}`,
      source,
      fallbackOffset,
    );
  }
  const text = caught instanceof Error ? caught.message : String(caught);
  return new ExprError('SW_EXPR_INTERNAL', `internal error: ${text}`, source, fallbackOffset);
}
