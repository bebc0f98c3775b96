// `matches` takes Go RE2 patterns; JavaScript regexes backtrack. Two guards keep a pattern from
// stalling the controller: V8 is told to switch a regex to its linear-time engine once it
// backtracks excessively (the engine lacks backreferences and lookarounds, which RE2 lacks
// too, so they are refused here), and the subject length is capped. The common RE2 syntax is
// translated; what JavaScript would read differently is refused.
import { setFlagsFromString } from 'node:v8';
import { Fault } from './errors.ts';
import { MAX_REGEX_INPUT_LENGTH, MAX_REGEX_LENGTH, REGEX_CACHE_SIZE } from './limits.ts';

// Process-wide, and only changes what happens to a regex that backtracks pathologically.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

const cache = new Map<string, RegExp>();

export function compileRegex(pattern: string, offset: number): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_REGEX_LENGTH) {
    throw new Fault('SW_EXPR_REGEX', `regex longer than ${MAX_REGEX_LENGTH} characters`, offset);
  }
  const { body, flags } = translate(pattern, offset);
  let regex: RegExp;
  try {
    regex = new RegExp(body, flags);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Fault('SW_EXPR_REGEX', `invalid regex: ${why}`, offset);
  }
  if (cache.size >= REGEX_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
  cache.set(pattern, regex);
  return regex;
}

export function matches(subject: string, pattern: string, offset: number): boolean {
  const regex = compileRegex(pattern, offset);
  if (subject.length > MAX_REGEX_INPUT_LENGTH) {
    const detail = `matches: string longer than ${MAX_REGEX_INPUT_LENGTH} characters`;
    throw new Fault('SW_EXPR_LIMIT', detail, offset);
  }
  return regex.test(subject);
}

function translate(pattern: string, offset: number): { body: string; flags: string } {
  const refuse = (why: string): never => {
    throw new Fault('SW_EXPR_REGEX', `unsupported regex: ${why}`, offset);
  };
  let flags = '';
  let rest = pattern;
  const leading = /^\(\?([imsU]+)\)/.exec(rest);
  if (leading) {
    const letters = leading[1] ?? '';
    if (letters.includes('U')) refuse('flag U');
    flags = [...new Set(letters)].join('');
    rest = rest.slice(leading[0].length);
  }
  let body = '';
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i] ?? '';
    if (c === '\\') {
      const e = rest[i + 1] ?? '';
      if (/[1-9]/.test(e)) refuse('backreference');
      if (e === 'Q' || e === 'C' || e === 'p' || e === 'P') refuse(`\\${e}`);
      if (e === 'z' && flags.includes('m')) refuse('\\z with flag m');
      body += e === 'A' ? '^' : e === 'z' ? '$' : c + e;
      i++;
    } else if (inClass) {
      if (c === '[' && rest[i + 1] === ':') refuse('POSIX class [[:name:]]');
      if (c === ']') inClass = false;
      body += c;
    } else if (c === '[') {
      inClass = true;
      body += c;
      // RE2 reads a leading `]` as a literal; JavaScript reads `[]` as an empty class.
      const negated = rest[i + 1] === '^';
      if (rest[i + (negated ? 2 : 1)] === ']') {
        body += negated ? '^\\]' : '\\]';
        i += negated ? 2 : 1;
      }
    } else if (c === '(' && rest.startsWith('(?P<', i)) {
      body += '(?<';
      i += 3;
    } else if (c === '(' && /^\(\?(?:[=!]|<[=!])/.test(rest.slice(i))) {
      refuse('lookaround');
    } else {
      body += c;
    }
  }
  return { body, flags };
}
