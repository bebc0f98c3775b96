// An estimate of the RE2 program a pattern compiles to, read from its text alone. re2js
// expands counted repeats while compiling (`x{1000}` is a thousand copies of x), so a
// 1 KiB pattern can take seconds to compile before its real size can be asked for; this
// estimate, which follows RE2's compiler (one instruction per literal, class, `.` or
// assertion; two per capture; one per `|`, `*`, `+`, `?`; copies for counts), refuses
// those first. It only has to be close: the real size is checked after compiling, and
// syntax errors are left to re2js, which reports them as Go does.

/** RE2's limit on a repeat count; larger ones are a syntax error, left to the compiler. */
const MAX_REPEAT = 1000;
/** A program's fixed instructions: fail, the whole-match capture pair, match. */
const PROGRAM_OVERHEAD = 4;

interface Frame {
  /** Instructions so far in this group (its alternatives included). */
  total: number;
  /** Instructions of the last atom, the one a following repeat applies to. */
  last: number;
}

export function estimateProgramSize(pattern: string): number {
  const outer: Frame[] = [];
  let frame: Frame = { total: PROGRAM_OVERHEAD, last: 0 };
  const atom = (size: number): void => {
    frame.total += size;
    frame.last = size;
  };
  const repeat = (size: number): void => {
    frame.total += size - frame.last;
    frame.last = size;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    const rest = pattern.slice(i, i + 64);
    if (c === '\\' && pattern[i + 1] === 'Q') {
      const end = pattern.indexOf('\\E', i + 2);
      const literal = end < 0 ? pattern.length - i - 2 : end - i - 2;
      for (let k = 0; k < literal; k++) atom(1);
      i = end < 0 ? pattern.length : end + 2;
    } else if (c === '\\') {
      i = afterEscape(pattern, i);
      atom(1);
    } else if (c === '[') {
      i = afterClass(pattern, i);
      atom(1);
    } else if (c === '(') {
      const flagsOnly = /^\(\?[imsU-]*\)/.exec(rest);
      if (flagsOnly) {
        i += flagsOnly[0].length;
        continue;
      }
      const opening = /^\((?:\?(?:P?<[^>]*>|[imsU-]*:))?/.exec(rest)?.[0] ?? '(';
      outer.push(frame);
      frame = { total: opening === '(' || opening.includes('<') ? 2 : 0, last: 0 };
      i += opening.length;
    } else if (c === ')') {
      const inner = frame.total;
      frame = outer.pop() ?? frame;
      atom(inner);
      i++;
    } else if (c === '|') {
      frame.total += 1;
      frame.last = 0;
      i++;
    } else if (c === '*' || c === '+' || c === '?') {
      repeat(frame.last + 1);
      i++;
    } else if (c === '{' && /^\{\d+(?:,\d*)?\}/.test(rest)) {
      const [, low = '0', comma, high] = /^\{(\d+)(,)?(\d*)\}/.exec(rest) ?? [];
      i += rest.indexOf('}') + 1;
      const n = Number(low);
      const m = comma === undefined ? n : high === '' ? undefined : Number(high);
      if (n > MAX_REPEAT || (m ?? 0) > MAX_REPEAT) continue;
      // x{n,m} is n copies of x then m-n optional ones; x{n,} is n copies then a loop
      // (x{0,} is x*, one copy in the loop); x{0} still compiles to an empty match.
      const copies = frame.last * (m === undefined ? Math.max(n, 1) : n);
      repeat(Math.max(1, copies + (m === undefined ? 1 : (m - n) * (frame.last + 1))));
    } else {
      atom(1);
      i++;
    }
  }
  while (outer.length > 0) {
    const inner = frame.total;
    frame = outer.pop() ?? frame;
    atom(inner);
  }
  return frame.total;
}

/** The index after the escape at `i`: `\d`, `\x41`, `\x{263a}`, `\pL`, `\p{Greek}`. */
function afterEscape(pattern: string, i: number): number {
  const kind = pattern[i + 1] ?? '';
  if ((kind === 'x' || kind === 'p' || kind === 'P') && pattern[i + 2] === '{') {
    const close = pattern.indexOf('}', i + 3);
    return close < 0 ? pattern.length : close + 1;
  }
  if (kind === 'x') return Math.min(pattern.length, i + 4);
  if (kind === 'p' || kind === 'P') return Math.min(pattern.length, i + 3);
  return Math.min(pattern.length, i + 2);
}

/** The index after the class opening at `i` (`[^]a]`, `[[:alpha:]\d]`, ...). */
function afterClass(pattern: string, i: number): number {
  let k = i + 1;
  if (pattern[k] === '^') k++;
  if (pattern[k] === ']') k++;
  while (k < pattern.length) {
    const c = pattern[k];
    if (c === ']') return k + 1;
    if (c === '\\') k = afterEscape(pattern, k);
    else if (c === '[' && pattern[k + 1] === ':') {
      const close = pattern.indexOf(':]', k + 2);
      k = close < 0 ? k + 1 : close + 2;
    } else k++;
  }
  return pattern.length;
}
