// Hand-written lexer for the expr-lang subset: numbers (decimal, 0x, 0o, 0b, `_`
// separators, floats with exponents), strings in "…", '…' (escapes) and `…` (raw), names,
// `#` pointers, punctuation and comments.
import { Fault } from './errors.ts';

export type Token =
  | { readonly kind: 'int'; readonly value: bigint; readonly offset: number }
  | { readonly kind: 'float'; readonly value: number; readonly offset: number }
  | { readonly kind: 'string'; readonly value: string; readonly offset: number }
  | { readonly kind: 'name'; readonly value: string; readonly offset: number }
  | { readonly kind: 'pointer'; readonly value: string; readonly offset: number }
  | { readonly kind: 'punct'; readonly value: string; readonly offset: number }
  | { readonly kind: 'eof'; readonly value: ''; readonly offset: number };

const MAX_INT64 = (1n << 63n) - 1n;
const PUNCT_2 = ['**', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '..'];
const PUNCT_1 = '+-*/%^<>!?:.,()[]{}|';
const NAME = /[\p{L}_$][\p{L}\p{N}_$]*/uy;
const DIGITS: Record<string, RegExp> = {
  x: /[0-9a-fA-F_]+/y,
  o: /[0-7_]+/y,
  b: /[01_]+/y,
};
const DECIMAL =
  /[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9][0-9_]*(?:[eE][+-]?[0-9]+)?/y;
const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (source.startsWith('//', i)) {
      const end = source.indexOf('\n', i);
      i = end < 0 ? source.length : end;
    } else if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) throw new Fault('SW_EXPR_SYNTAX', 'unterminated comment', i);
      i = end + 2;
    } else if (isDigit(c) || (c === '.' && isDigit(source[i + 1] ?? ''))) {
      i = number(source, i, tokens);
    } else if (c === '"' || c === "'") {
      i = quoted(source, i, tokens);
    } else if (c === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) throw new Fault('SW_EXPR_SYNTAX', 'unterminated string', i);
      tokens.push({ kind: 'string', value: source.slice(i + 1, end), offset: i });
      i = end + 1;
    } else if (c === '#') {
      NAME.lastIndex = i + 1;
      const m = NAME.exec(source);
      const value = '#' + (m?.[0] ?? '');
      tokens.push({ kind: 'pointer', value, offset: i });
      i += value.length;
    } else {
      NAME.lastIndex = i;
      const m = NAME.exec(source);
      if (m) {
        tokens.push({ kind: 'name', value: m[0], offset: i });
        i += m[0].length;
        continue;
      }
      const two = source.slice(i, i + 2);
      // `a?.5:1` is a ternary, not optional chaining (as expr's lexer decides).
      if (PUNCT_2.includes(two) && !(two === '?.' && isDigit(source[i + 2] ?? ''))) {
        tokens.push({ kind: 'punct', value: two, offset: i });
        i += 2;
      } else if (PUNCT_1.includes(c)) {
        tokens.push({ kind: 'punct', value: c, offset: i });
        i++;
      } else {
        const ch = String.fromCodePoint(source.codePointAt(i) ?? 0);
        throw new Fault('SW_EXPR_SYNTAX', `unexpected character ${JSON.stringify(ch)}`, i);
      }
    }
  }
  tokens.push({ kind: 'eof', value: '', offset: source.length });
  return tokens;
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function number(source: string, start: number, out: Token[]): number {
  const base = source[start] === '0' ? (source[start + 1] ?? '').toLowerCase() : '';
  const digits = DIGITS[base];
  if (digits) {
    digits.lastIndex = start + 2;
    const m = digits.exec(source);
    const text = (m?.[0] ?? '').replaceAll('_', '');
    if (text === '') throw new Fault('SW_EXPR_SYNTAX', 'malformed number', start);
    const end = start + 2 + (m?.[0].length ?? 0);
    out.push({ kind: 'int', value: checkedInt(BigInt(`0${base}${text}`), start), offset: start });
    return afterNumber(source, end, start);
  }
  DECIMAL.lastIndex = start;
  const m = DECIMAL.exec(source);
  const raw = m?.[0] ?? '';
  const text = raw.replaceAll('_', '');
  if (/[.eE]/.test(text)) {
    out.push({ kind: 'float', value: Number(text), offset: start });
  } else {
    out.push({ kind: 'int', value: checkedInt(BigInt(text), start), offset: start });
  }
  return afterNumber(source, start + raw.length, start);
}

function checkedInt(value: bigint, offset: number): bigint {
  if (value > MAX_INT64) throw new Fault('SW_EXPR_SYNTAX', 'integer literal out of range', offset);
  return value;
}

function afterNumber(source: string, end: number, start: number): number {
  NAME.lastIndex = end;
  if (NAME.exec(source)) throw new Fault('SW_EXPR_SYNTAX', 'malformed number', start);
  return end;
}

function quoted(source: string, start: number, out: Token[]): number {
  const quote = source[start];
  let value = '';
  let i = start + 1;
  for (;;) {
    const c = source[i];
    if (c === undefined) throw new Fault('SW_EXPR_SYNTAX', 'unterminated string', start);
    if (c === quote) break;
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = source[i + 1] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined && Object.hasOwn(SIMPLE_ESCAPES, e)) {
      value += simple;
      i += 2;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    const hex = source.slice(i + 2, i + 2 + width);
    const code = width > 0 && /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : -1;
    if (hex.length !== width || code < 0 || code > 0x10ffff) {
      throw new Fault('SW_EXPR_SYNTAX', 'invalid escape in string', i);
    }
    value += String.fromCodePoint(code);
    i += 2 + width;
  }
  out.push({ kind: 'string', value, offset: start });
  return i + 1;
}
