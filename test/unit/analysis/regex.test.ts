// `matches` as a template author sees it: Go RE2 syntax and semantics, patterns that would
// backtrack for hours finishing in milliseconds, and patterns or subjects too large to bound
// refused with the column of the pattern (at validation when the pattern is a literal).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import {
  checkCondition,
  createConditionEvaluator,
  ExprError,
  MAX_EVAL_STEPS,
  MAX_REGEX_INPUT_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  MAX_REGEX_WORK,
} from '../../../src/analysis/expr/index.ts';
import { metricNamePattern } from '../../../src/analysis/evaluate/validate.ts';
import { compileGoRegex, testBounded } from '../../../src/analysis/expr/regex.ts';
import { estimateProgramSize } from '../../../src/analysis/expr/regex-size.ts';

const evaluate = createConditionEvaluator();
const matches = (subject: string, pattern: string): boolean | ExprError =>
  evaluate(`result matches \`${pattern}\``, subject);

function refusal(out: unknown, code: string, detail: RegExp): ExprError {
  assert.ok(out instanceof ExprError, `expected an ExprError, got ${String(out)}`);
  assert.equal(out.code, code, out.message);
  assert.match(out.message, detail);
  return out;
}

const cpuMs = (used: NodeJS.CpuUsage): number => (used.user + used.system) / 1000;

describe('the patterns that froze the controller (issue 20, H3)', () => {
  const subject = 'a'.repeat(10_000) + '!';
  for (const pattern of ['(?i)(a+)+$', '(a{1,20})+$', '((?i:a+))+$']) {
    test(`${pattern} against 'a'×10000+'!' answers in well under 100 ms`, () => {
      assert.equal(checkCondition(`result matches \`${pattern}\``), undefined);
      matches('warm the engine', pattern);
      // CPU time, not the clock: the bound is on the engine's work, whatever else the machine runs.
      const started = process.cpuUsage();
      const out = matches(subject, pattern);
      const ms = cpuMs(process.cpuUsage(started));
      assert.equal(out, false);
      assert.ok(ms < 100, `${pattern} took ${ms.toFixed(1)} ms`);
    });
  }
});

describe('Go RE2 semantics', () => {
  const rows: [pattern: string, subject: string, expected: boolean][] = [
    ['(?i)abc', 'xABCx', true],
    ['a(?i:b)c', 'aBc', true],
    ['a(?i:b)c', 'ABc', false], // the flag covers the group only
    ['success', 'success-rate', true], // unanchored, as regexp.MatchString
    ['^rate$', 'success-rate', false],
    ['\\d+', '٣', false], // \d, \w, \s are ASCII in RE2
    ['\\d+', 'a3', true],
    ['a$', 'a\n', false], // without (?m), $ is the end of the text only
    ['(?m)^b$', 'a\nb\nc', true],
    ['a.b', 'a\nb', false],
    ['(?s)a.b', 'a\nb', true],
    ['\\Aab\\z', 'ab', true],
    ['(?P<code>5\\d\\d)', 'HTTP 503', true],
    ['(?<code>5\\d\\d)', 'HTTP 503', true], // Go 1.22 accepts this spelling too
    ['[[:alpha:]]+$', 'ab1', false],
    ['\\p{Greek}', 'α', true],
    ['^.$', '😀', true], // one code point, not two UTF-16 units
    ['\\Qa.b\\E', 'axb', false],
    ['[]a]', ']', true], // a leading ] is a literal
    ['', 'anything', true],
    ['^x{2,1000}$', 'xx', true], // 1000 is Go's largest count
  ];
  for (const [pattern, subject, expected] of rows) {
    test(`${JSON.stringify(subject.slice(0, 20))} matches \`${pattern}\` is ${expected}`, () => {
      assert.equal(matches(subject, pattern), expected);
    });
  }

  const refused: [pattern: string, detail: RegExp][] = [
    ['a{1001}', /invalid repeat count: `\{1001\}`/], // Go's limit of 1000
    ['(a{500}){3}', /invalid repeat count/], // nested counts multiply, as in Go
    ['(a)\\1', /invalid escape sequence: `\\1`/], // no backreferences
    ['(?=a)', /invalid or unsupported Perl syntax: `\(\?=`/], // no lookarounds
    ['(?<=a)b', /invalid named capture/],
    ['(?P=n)', /unsupported Perl syntax/],
    ['\\Z', /invalid escape sequence/],
    ['\\C', /invalid escape sequence/],
    ['[[:foo:]]', /invalid character class range/],
    ['x**', /invalid nested repetition operator/],
    ['a(', /missing closing \)/],
  ];
  for (const [pattern, detail] of refused) {
    test(`\`${pattern}\` is refused at validation, with the pattern's column`, () => {
      const fault = refusal(
        checkCondition(`result matches \`${pattern}\``),
        'SW_EXPR_REGEX',
        detail,
      );
      assert.equal(fault.column, 16);
    });
  }

  test('a pattern built at evaluation time is checked there, with the operator column', () => {
    const out = evaluate('result matches ("a" + "{1001}")', 'a');
    assert.equal(refusal(out, 'SW_EXPR_REGEX', /invalid repeat count/).column, 8);
  });
});

describe('bounds', () => {
  test('a pattern compiling to too large a program is refused at validation, fast', () => {
    const pattern = '[a-z]{1000}'.repeat(6); // 6000 instructions, each count allowed
    const started = process.cpuUsage();
    const fault = refusal(
      checkCondition(`result matches \`${pattern}\``),
      'SW_EXPR_REGEX',
      new RegExp(`too large: 6002 instructions, at most ${MAX_REGEX_PROGRAM_SIZE}`),
    );
    assert.equal(fault.column, 16);
    const huge = '[a-z]{1000}'.repeat(93); // a million instructions if compiled
    refusal(checkCondition(`result matches \`${huge}\``), 'SW_EXPR_REGEX', /too large: about/);
    assert.ok(cpuMs(process.cpuUsage(started)) < 1000, 'refused before compiling');
  });

  test('a subject too long for the pattern is an SW_EXPR_LIMIT naming both sizes', () => {
    const pattern = '[ab]*a[ab]{300}$'; // 306 instructions: the NFA's worst kind
    const out = matches('ab'.repeat(5000), pattern);
    refusal(out, 'SW_EXPR_LIMIT', /10000-character string is too long for this regex \(306 /);
    assert.equal(matches('ab'.repeat(100), pattern), false);
    const long = 'a'.repeat(MAX_REGEX_INPUT_LENGTH + 1);
    refusal(matches(long, 'a'), 'SW_EXPR_LIMIT', /longer than 100000 characters/);
    assert.equal(matches('a'.repeat(MAX_REGEX_INPUT_LENGTH), '^a+$'), true);
  });

  test('regex work counts against the step budget of the whole condition', () => {
    // Each match does 60% of the budget's work: one passes, two exceed it.
    const pattern = '^(?:a|b)+$';
    const size = compileProgramSize(pattern) ?? 1;
    const subject = 'a'.repeat(Math.floor((0.6 * MAX_EVAL_STEPS) / size));
    assert.ok(size * subject.length < MAX_REGEX_WORK);
    assert.equal(evaluate(`result matches \`${pattern}\``, subject), true);
    const out = evaluate(`result matches \`${pattern}\` && result matches \`${pattern}\``, subject);
    refusal(out, 'SW_EXPR_LIMIT', /more than 1000000 steps/);
  });

  test('matching leaves no lazy DFA behind in the cached patterns', () => {
    const regex = compileGoRegex('(?i)[ab]*a[ab]{8}$');
    assert.ok(regex instanceof RE2JS);
    const engine = regex.re2() as unknown as Record<string, unknown>;
    assert.ok('lazyDFA' in engine, 're2js still keeps its DFA in lazyDFA (else update regex.ts)');
    regex.test('ab'.repeat(500) + 'a');
    assert.notEqual(engine['lazyDFA'], null, 'a plain test keeps the DFA');
    assert.equal(testBounded(regex, 'ab'.repeat(500) + 'a'), true);
    assert.equal(engine['lazyDFA'], null);
  });

  test('the size estimate that guards compilation stays within 0.75-2x of the real size', () => {
    const atom = fc.constantFrom('a', '.', '[ab]', '\\pL', '(?i:A)', '\\b', '$', '\\Qab\\E');
    const count = fc.integer({ min: 0, max: 40 });
    const quantifier = fc.oneof(
      fc.constantFrom('', '*', '+?', '?'),
      count.map((n) => `{${n}}`),
      count.map((n) => `{${n},}`),
      fc.tuple(count, count).map(([n, m]) => `{${Math.min(n, m)},${Math.max(n, m)}}`),
    );
    const pattern = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.tuple(atom, quantifier).map(([a, q]) => a + q),
        fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
        fc
          .tuple(fc.array(tie('node'), { minLength: 1, maxLength: 3 }), quantifier)
          .map(([alts, q]) => `(${alts.join('|')})${q}`),
      ),
    })).node;
    let compared = 0;
    for (const p of fc.sample(pattern, { seed: 7, numRuns: 1000 })) {
      const real = compileProgramSize(p);
      if (real === undefined) continue;
      const ratio = estimateProgramSize(p) / real;
      assert.ok(
        ratio >= 0.75 && ratio <= 2,
        `${p}: estimate ${estimateProgramSize(p)}, real ${real}`,
      );
      compared++;
    }
    assert.ok(compared > 500, `only ${compared} patterns compiled`);
  });
});

describe('dryRun and measurementRetention rules use the same engine', () => {
  test('Go syntax works and bad patterns are refused', () => {
    assert.equal(metricNamePattern('(?i)^SUCCESS')?.test('success-rate'), true);
    assert.equal(metricNamePattern('rate$')?.test('success-rate'), true);
    assert.equal(metricNamePattern('a{1001}'), undefined);
    assert.equal(metricNamePattern('(a)\\1'), undefined);
  });
});

function compileProgramSize(pattern: string): number | undefined {
  try {
    return RE2JS.compile(pattern).programSize();
  } catch {
    return undefined;
  }
}
