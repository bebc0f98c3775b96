// Every bound the evaluator enforces, in one place. Conditions are written by people into
// AnalysisTemplates, and results come from remote systems: neither may stall the controller.

/** Longest condition source accepted, in UTF-16 code units. */
export const MAX_SOURCE_LENGTH = 4096;
/** Deepest syntax tree accepted (nesting of operators, calls, brackets). */
export const MAX_AST_DEPTH = 64;
/** Node visits plus closure iterations allowed in one evaluation. */
export const MAX_EVAL_STEPS = 1_000_000;
/** Longest list a builtin or closure may walk, or an expression may build. */
export const MAX_LIST_LENGTH = 100_000;
/** Longest string an expression may build (concatenation). */
export const MAX_STRING_LENGTH = 100_000;
/** Deepest nesting of arrays/maps compared by `==` or `in` (also stops cycles). */
export const MAX_VALUE_DEPTH = 64;
/** Longest regular expression accepted by `matches`. */
export const MAX_REGEX_LENGTH = 1024;
/** Largest compiled regex (RE2 program instructions); larger ones are refused at validation. */
export const MAX_REGEX_PROGRAM_SIZE = 5000;
/** Longest string `matches` is applied to. */
export const MAX_REGEX_INPUT_LENGTH = 100_000;
/**
 * Most regex work one `matches` may do: program instructions × (subject length + 1), which
 * bounds re2js's linear-time matching. The evaluator also charges it to MAX_EVAL_STEPS.
 */
export const MAX_REGEX_WORK = 1_000_000;
/** Compiled regexes kept for reuse. */
export const REGEX_CACHE_SIZE = 128;
/** Compiled conditions kept by one condition evaluator. */
export const CONDITION_CACHE_SIZE = 512;
