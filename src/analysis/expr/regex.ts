// `matches` takes Go RE2 patterns and runs them on re2js, a port of RE2/J: Go's syntax and
// semantics, and matching in time linear in program size × subject length (no backtracking
// blow-up). That product is the one cost left, so it is bounded three ways: the program size
// (refused when the condition is validated), the subject length, and their product, which an
// evaluation also charges to its step budget (see regexWork).
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { Fault } from './errors.ts';
import {
  MAX_REGEX_INPUT_LENGTH,
  MAX_REGEX_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  MAX_REGEX_WORK,
  REGEX_CACHE_SIZE,
} from './limits.ts';
import { estimateProgramSize } from './regex-size.ts';

/** Largest program matched with re2js's DFA; larger ones go to its NFA. */
const DFA_PROGRAM_SIZE = 500;

/** Most recently used last; refreshed on every hit. */
const cache = new Map<string, RE2JS>();

/** A compiled Go RE2 pattern, or why it is refused (syntax as Go words it, size or length). */
export function compileGoRegex(pattern: string): RE2JS | string {
  const cached = cache.get(pattern);
  if (cached) {
    cache.delete(pattern);
    cache.set(pattern, cached);
    return cached;
  }
  if (pattern.length > MAX_REGEX_LENGTH) return `longer than ${MAX_REGEX_LENGTH} characters`;
  // Compiling expands counted repeats, so a 1 KiB pattern could take seconds to compile
  // before its size is known: an estimate from the text (within 0.75-2x of the real size)
  // refuses the clearly too large first, and the real size decides the rest.
  const estimate = estimateProgramSize(pattern);
  if (estimate > 2 * MAX_REGEX_PROGRAM_SIZE) return tooLarge(`about ${estimate}`);
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) {
      const at = err.getPattern();
      return `${err.getDescription()}${at ? `: \`${at}\`` : ''}`;
    }
    if (err instanceof RE2JSException) return err.message;
    throw err;
  }
  if (regex.programSize() > MAX_REGEX_PROGRAM_SIZE) return tooLarge(String(regex.programSize()));
  if (cache.size >= REGEX_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
  cache.set(pattern, regex);
  return regex;
}

function tooLarge(size: string): string {
  return `too large: ${size} instructions, at most ${MAX_REGEX_PROGRAM_SIZE} (lower the repeat counts)`;
}

/** compileGoRegex for the expression language: a refusal is an SW_EXPR_REGEX at `offset`. */
export function compileRegex(pattern: string, offset: number): RE2JS {
  const regex = compileGoRegex(pattern);
  if (typeof regex === 'string')
    throw new Fault('SW_EXPR_REGEX', `invalid regex: ${regex}`, offset);
  return regex;
}

/**
 * The work `subject matches pattern` may take, in program instructions × subject characters
 * (re2js's worst case is proportional to it), after checking the bounds on it. The evaluator
 * charges it to its step budget before matching.
 */
export function regexWork(subject: string, pattern: string, offset: number): number {
  const regex = compileRegex(pattern, offset);
  if (subject.length > MAX_REGEX_INPUT_LENGTH) {
    const detail = `matches: string longer than ${MAX_REGEX_INPUT_LENGTH} characters`;
    throw new Fault('SW_EXPR_LIMIT', detail, offset);
  }
  const work = regex.programSize() * (subject.length + 1);
  if (work > MAX_REGEX_WORK) {
    const detail =
      `matches: a ${subject.length}-character string is too long for this regex ` +
      `(${regex.programSize()} instructions; instructions × characters at most ${MAX_REGEX_WORK})`;
    throw new Fault('SW_EXPR_LIMIT', detail, offset);
  }
  return work;
}

/** Go's regexp.MatchString: true when the pattern matches anywhere in the subject. */
export function matches(subject: string, pattern: string, offset: number): boolean {
  regexWork(subject, pattern, offset);
  return testBounded(compileRegex(pattern, offset), subject);
}

/**
 * Runs a compiled pattern, then drops the lazy DFA re2js built for it (its budget is 8 MiB a
 * pattern, and the cache holds REGEX_CACHE_SIZE patterns). re2js's reset() keeps the DFA, so
 * its field is cleared directly; a unit test pins that the field still exists.
 */
export function testBounded(regex: RE2JS, subject: string): boolean {
  try {
    // test() runs re2js's lazy DFA, whose states cost O(program) each to build: fastest for
    // small programs, several times slower than the NFA for large ones (see regex.bench.ts).
    if (regex.programSize() <= DFA_PROGRAM_SIZE) return regex.test(subject);
    return regex.matcher(subject).find();
  } finally {
    const engine = regex.re2() as unknown as { lazyDFA?: unknown };
    if ('lazyDFA' in engine) engine.lazyDFA = null;
    regex.reset();
  }
}

/**
 * Go's `regexp.MatchString(pattern, s)` as a reusable test (dryRun and retention rules match
 * metric names with it), or why the pattern is refused. A subject too long for MAX_REGEX_WORK
 * with this pattern does not match (metric names are short, so this only stops abuse).
 */
export function goRegexTest(pattern: string): ((subject: string) => boolean) | string {
  const regex = compileGoRegex(pattern);
  if (typeof regex === 'string') return regex;
  return (subject) =>
    regex.programSize() * (subject.length + 1) <= MAX_REGEX_WORK && testBounded(regex, subject);
}
