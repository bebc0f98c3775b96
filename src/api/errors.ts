/**
 * Base of every error Stepwise raises on purpose. Callers branch on `code`, never on message
 * text. Each module adds its own subclasses in its own errors.ts.
 */
export abstract class StepwiseError extends Error {
  abstract readonly code: `SW_${string}`;
}

/** A Rollout (or other object) whose spec cannot be acted on. Never retried until it changes. */
export class InvalidSpecError extends StepwiseError {
  readonly code = 'SW_INVALID_SPEC';
  override name = 'InvalidSpecError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('; '));
    this.problems = problems;
  }
}
