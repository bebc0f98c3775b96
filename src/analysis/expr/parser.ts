// Pratt parser for the expr-lang subset, with expr's precedences. It also does the checks
// expr does at compile time: unknown names and functions, argument counts, `#` outside a
// predicate, regex literals that do not compile, and the size limits.
import type { BinaryOperator, Node } from './ast.ts';
import { children } from './ast.ts';
import { PLAIN_BUILTINS } from './builtins.ts';
import { PREDICATE_BUILTINS } from './closures.ts';
import { Fault } from './errors.ts';
import { MAX_AST_DEPTH, MAX_SOURCE_LENGTH } from './limits.ts';
import { compileRegex } from './regex.ts';
import type { Token } from './tokenizer.ts';
import { tokenize } from './tokenizer.ts';

interface BinaryInfo {
  readonly op: BinaryOperator;
  readonly precedence: number;
  readonly rightAssociative?: boolean;
}

// From expr-lang/expr parser/operator (v1.17).
const BINARY = new Map<string, BinaryInfo>([
  ['or', { op: 'or', precedence: 10 }],
  ['||', { op: 'or', precedence: 10 }],
  ['and', { op: 'and', precedence: 15 }],
  ['&&', { op: 'and', precedence: 15 }],
  ...(['==', '!=', '<', '>', '<=', '>='] as const).map(
    (op) => [op, { op, precedence: 20 }] as const,
  ),
  ...(['in', 'matches', 'contains', 'startsWith', 'endsWith'] as const).map(
    (op) => [op, { op, precedence: 20 }] as const,
  ),
  ['..', { op: '..', precedence: 25 }],
  ['+', { op: '+', precedence: 30 }],
  ['-', { op: '-', precedence: 30 }],
  ['*', { op: '*', precedence: 60 }],
  ['/', { op: '/', precedence: 60 }],
  ['%', { op: '%', precedence: 60 }],
  ['**', { op: '**', precedence: 100, rightAssociative: true }],
  ['^', { op: '**', precedence: 100, rightAssociative: true }],
  ['??', { op: '??', precedence: 500 }],
]);
const NOT_IN: BinaryInfo = { op: 'not in', precedence: 20 };
const UNARY_PRECEDENCE = { not: 50, sign: 90 };
const LITERAL_NAMES = new Map<string, null | boolean>([
  ['true', true],
  ['false', false],
  ['nil', null],
]);

export interface ParseOptions {
  /** Variable names the environment will have; others are compile errors. Undefined: any. */
  readonly variables?: readonly string[] | undefined;
}

export function parse(source: string, options: ParseOptions = {}): Node {
  if (source.length > MAX_SOURCE_LENGTH) {
    throw new Fault('SW_EXPR_LIMIT', `expression longer than ${MAX_SOURCE_LENGTH} characters`, 0);
  }
  const parser = new Parser(tokenize(source), options.variables);
  const tree = parser.parseExpression();
  const rest = parser.peek();
  if (rest.kind !== 'eof') throw unexpected(rest);
  checkDepth(tree, 1);
  return tree;
}

/** Operator chains (`1+1+…`) are deep without deep recursion in the parser: check the tree. */
function checkDepth(node: Node, depth: number): void {
  if (depth > MAX_AST_DEPTH) {
    throw new Fault('SW_EXPR_LIMIT', `expression nested deeper than ${MAX_AST_DEPTH}`, node.offset);
  }
  for (const child of children(node)) checkDepth(child, depth + 1);
}

function unexpected(token: Token): Fault {
  if (token.kind === 'eof')
    return new Fault('SW_EXPR_SYNTAX', 'unexpected end of expression', token.offset);
  const text = token.kind === 'string' ? JSON.stringify(token.value) : String(token.value);
  return new Fault('SW_EXPR_SYNTAX', `unexpected token ${text}`, token.offset);
}

class Parser {
  private position = 0;
  private depth = 0;
  private closures = 0;

  private readonly tokens: readonly Token[];
  private readonly variables: readonly string[] | undefined;

  constructor(tokens: readonly Token[], variables: readonly string[] | undefined) {
    this.tokens = tokens;
    this.variables = variables;
  }

  peek(ahead = 0): Token {
    const last = this.tokens[this.tokens.length - 1] as Token;
    return this.tokens[this.position + ahead] ?? last;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.position++;
    return token;
  }

  private isPunct(value: string, ahead = 0): boolean {
    const token = this.peek(ahead);
    return token.kind === 'punct' && token.value === value;
  }

  private expect(value: string): Token {
    if (!this.isPunct(value)) throw unexpected(this.peek());
    return this.next();
  }

  /** Lowest level: the ternary `a ? b : c`, right-associative. */
  parseExpression(): Node {
    return this.nested(this.peek().offset, () => {
      const test = this.parseBinary(0);
      if (!this.isPunct('?')) return test;
      const at = this.next().offset;
      const then = this.parseExpression();
      this.expect(':');
      const otherwise = this.parseExpression();
      return { kind: 'conditional', test, then, otherwise, offset: at };
    });
  }

  private nested<T>(offset: number, parse: () => T): T {
    if (++this.depth > MAX_AST_DEPTH) {
      throw new Fault('SW_EXPR_LIMIT', `expression nested deeper than ${MAX_AST_DEPTH}`, offset);
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private binaryAhead(): BinaryInfo | undefined {
    const token = this.peek();
    if (token.kind === 'name' && token.value === 'not') {
      const after = this.peek(1);
      return after.kind === 'name' && after.value === 'in' ? NOT_IN : undefined;
    }
    if (token.kind !== 'punct' && token.kind !== 'name') return undefined;
    return BINARY.get(token.value);
  }

  private parseBinary(minPrecedence: number): Node {
    return this.nested(this.peek().offset, () => {
      let left = this.parseUnary();
      for (let info = this.binaryAhead(); info; info = this.binaryAhead()) {
        if (info.precedence < minPrecedence) break;
        const at = this.next().offset;
        if (info === NOT_IN) this.next();
        const right = this.parseBinary(info.precedence + (info.rightAssociative ? 0 : 1));
        if (info.op === 'matches' && right.kind === 'literal' && typeof right.value === 'string') {
          compileRegex(right.value, right.offset); // a bad literal pattern is a compile error
        }
        left = { kind: 'binary', op: info.op, left, right, offset: at };
      }
      return left;
    });
  }

  private parseUnary(): Node {
    const token = this.peek();
    const word = token.kind === 'name' && token.value === 'not';
    const sign = token.kind === 'punct' && ['!', '-', '+'].includes(token.value);
    if (!word && !sign) return this.parsePostfix(this.parsePrimary());
    this.next();
    const negation = word || token.value === '!';
    const operand = this.parseBinary(negation ? UNARY_PRECEDENCE.not : UNARY_PRECEDENCE.sign);
    const op = negation ? 'not' : token.value === '-' ? '-' : '+';
    return { kind: 'unary', op, operand, offset: token.offset };
  }

  private parsePrimary(): Node {
    const token = this.next();
    switch (token.kind) {
      case 'int':
      case 'float':
      case 'string':
        return { kind: 'literal', value: token.value, offset: token.offset };
      case 'pointer':
        if (this.closures === 0) {
          throw new Fault(
            'SW_EXPR_SYNTAX',
            `${token.value} used outside of a predicate`,
            token.offset,
          );
        }
        if (token.value !== '#' && token.value !== '#index') {
          throw new Fault('SW_EXPR_UNKNOWN_NAME', `unknown pointer ${token.value}`, token.offset);
        }
        return { kind: 'pointer', name: token.value, offset: token.offset };
      case 'name':
        return this.parseName(token.value, token.offset);
      case 'punct':
        return this.parsePunct(token);
      case 'eof':
        throw unexpected(token);
    }
  }

  private parseName(name: string, offset: number): Node {
    const literal = LITERAL_NAMES.get(name);
    if (literal !== undefined) return { kind: 'literal', value: literal, offset };
    if (this.isPunct('(')) return this.parseCall(name, offset);
    if (BINARY.has(name) || name === 'not') {
      throw new Fault('SW_EXPR_SYNTAX', `unexpected token ${name}`, offset);
    }
    if (this.variables && !this.variables.includes(name)) {
      throw new Fault('SW_EXPR_UNKNOWN_NAME', `unknown name ${name}`, offset);
    }
    return { kind: 'name', name, offset };
  }

  private parsePunct(token: Token): Node {
    const at = token.offset;
    if (token.value === '(') {
      const inner = this.parseExpression();
      this.expect(')');
      return inner;
    }
    if (token.value === '[') {
      const items = this.parseList(']', () => this.parseExpression());
      return { kind: 'array', items, offset: at };
    }
    if (token.value === '{') {
      const entries = this.parseList('}', () => {
        const key = this.next();
        if (key.kind !== 'name' && key.kind !== 'string') throw unexpected(key);
        this.expect(':');
        return { key: key.value, value: this.parseExpression() };
      });
      return { kind: 'map', entries, offset: at };
    }
    if (token.value === '.' && this.closures > 0 && this.peek().kind === 'name') {
      // `.field` inside a predicate means `#.field`.
      const name = this.next();
      const object: Node = { kind: 'pointer', name: '#', offset: at };
      const property: Node = { kind: 'literal', value: String(name.value), offset: name.offset };
      return { kind: 'member', object, property, optional: false, offset: at };
    }
    throw unexpected(token);
  }

  private parseList<T>(close: string, item: () => T): T[] {
    const items: T[] = [];
    while (!this.isPunct(close)) {
      items.push(item());
      if (!this.isPunct(close)) this.expect(',');
    }
    this.next();
    return items;
  }

  private parseCall(name: string, offset: number): Node {
    const plain = PLAIN_BUILTINS.get(name);
    const predicate = PREDICATE_BUILTINS.get(name);
    const signature = plain ?? predicate;
    if (!signature) throw new Fault('SW_EXPR_UNKNOWN_NAME', `unknown function ${name}`, offset);
    this.expect('(');
    let index = 0;
    const args = this.parseList(')', () =>
      predicate && index++ === 1 ? this.parseClosure() : this.parseExpression(),
    );
    if (args.length < signature.min || args.length > signature.max) {
      const want =
        signature.min === signature.max
          ? `${signature.min}`
          : `${signature.min} to ${signature.max}`;
      const detail = `${name} takes ${want} argument(s), got ${args.length}`;
      throw new Fault('SW_EXPR_ARGUMENTS', detail, offset);
    }
    return { kind: 'call', name, args, offset };
  }

  /** A predicate: `{ … }` or, as expr allows, the bare expression. */
  private parseClosure(): Node {
    const at = this.peek().offset;
    this.closures++;
    try {
      if (!this.isPunct('{')) return { kind: 'closure', body: this.parseExpression(), offset: at };
      this.next();
      const body = this.parseExpression();
      this.expect('}');
      return { kind: 'closure', body, offset: at };
    } finally {
      this.closures--;
    }
  }

  /** Member access, indexing and slicing after a primary expression. */
  private parsePostfix(start: Node): Node {
    let node = start;
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punct') return node;
      if (token.value === '.' || token.value === '?.') {
        this.next();
        const optional = token.value === '?.';
        if (optional && this.isPunct('[')) {
          node = this.parseIndex(node, true);
          continue;
        }
        const name = this.next();
        if (name.kind !== 'name') throw unexpected(name);
        if (this.isPunct('(')) {
          throw new Fault('SW_EXPR_SYNTAX', 'methods cannot be called; use a builtin', name.offset);
        }
        const property: Node = { kind: 'literal', value: name.value, offset: name.offset };
        node = { kind: 'member', object: node, property, optional, offset: token.offset };
      } else if (token.value === '[') {
        node = this.parseIndex(node, false);
      } else if (token.value === '(') {
        throw new Fault('SW_EXPR_SYNTAX', 'only builtin functions can be called', token.offset);
      } else {
        return node;
      }
    }
  }

  private parseIndex(object: Node, optional: boolean): Node {
    const at = this.expect('[').offset;
    const from = this.isPunct(':') ? undefined : this.parseExpression();
    if (this.isPunct(':')) {
      this.next();
      const to = this.isPunct(']') ? undefined : this.parseExpression();
      this.expect(']');
      return { kind: 'slice', object, from, to, offset: at };
    }
    this.expect(']');
    if (!from) throw unexpected(this.peek());
    return { kind: 'member', object, property: from, optional, offset: at };
  }
}
