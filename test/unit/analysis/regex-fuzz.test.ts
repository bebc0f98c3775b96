// Random RE2 patterns, built to be expensive (nested and counted repeats, alternations of
// overlapping branches, case folding), against long subjects of the patterns' own letters:
// every `matches` either answers or is refused with SW_EXPR_REGEX / SW_EXPR_LIMIT, and none
// takes longer than the budget. The seed is fixed so a failure reproduces; REGEX_FUZZ_SEED
// runs another one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createConditionEvaluator, ExprError } from '../../../src/analysis/expr/index.ts';

const SEED = Number(process.env['REGEX_FUZZ_SEED'] ?? 20_261_206);
const RUNS = Number(process.env['REGEX_FUZZ_RUNS'] ?? 150);
/** What one condition may take: the bench measures ~150 ms at worst on a loaded 2-core machine. */
const REGEX_BUDGET_MS = 500;

const atom = fc.constantFrom(
  'a',
  'b',
  '.',
  '[ab]',
  '[^b]',
  '\\w',
  '\\pL',
  '(?i:A)',
  '\\b',
  '$',
  '^',
);
const count = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 12 }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 1000 }), weight: 1 },
);
const quantifier = fc.oneof(
  fc.constantFrom('', '', '*', '+', '?', '*?', '+?'),
  count.map((n) => `{${n}}`),
  count.map((n) => `{${n},}`),
  fc.tuple(count, count).map(([n, m]) => `{${Math.min(n, m)},${Math.max(n, m)}}`),
);
const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(atom, quantifier).map(([a, q]) => a + q),
    fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
    fc
      .tuple(fc.array(tie('node'), { minLength: 1, maxLength: 3 }), quantifier, fc.boolean())
      .map(([alts, q, capture]) => `(${capture ? '' : '?:'}${alts.join('|')})${q}`),
  ),
})).node;
const flags = fc.constantFrom('', '(?i)', '(?s)', '(?m)', '(?U)');
const subject = fc
  .tuple(
    fc.constantFrom('a', 'ab', 'aB', 'ab\n'),
    fc.integer({ min: 0, max: 100_000 }),
    fc.constantFrom('', '!', 'b'),
  )
  .map(([alphabet, length, tail]) => {
    let s = '';
    for (let i = 0; s.length < length; i++) s += alphabet[(i * 7919) % alphabet.length];
    return s.slice(0, length) + tail;
  });

test('no random pattern and subject takes longer than the budget', { timeout: 600_000 }, () => {
  const evaluate = createConditionEvaluator();
  let worst = { ms: 0, pattern: '', length: 0 };
  const outcomes = { matched: 0, unmatched: 0, refused: 0, limited: 0 };
  fc.assert(
    fc.property(fc.tuple(flags, pattern), subject, ([flag, body], s) => {
      const condition = `result matches ${JSON.stringify(flag + body)}`;
      // CPU time, not the clock: the budget is on the engine's work, whatever else the machine
      // runs (make test runs the unit tests at low priority beside the end-to-end files).
      const started = process.cpuUsage();
      const out = evaluate(condition, s);
      const used = process.cpuUsage(started);
      const ms = (used.user + used.system) / 1000;
      if (ms > worst.ms) worst = { ms, pattern: flag + body, length: s.length };
      if (out instanceof ExprError) {
        assert.ok(['SW_EXPR_REGEX', 'SW_EXPR_LIMIT'].includes(out.code), out.message);
        if (out.code === 'SW_EXPR_REGEX') outcomes.refused++;
        else outcomes.limited++;
      } else if (out) outcomes.matched++;
      else outcomes.unmatched++;
      assert.ok(
        ms < REGEX_BUDGET_MS,
        `${condition} on ${s.length} characters took ${ms.toFixed(0)} ms of CPU`,
      );
    }),
    { seed: SEED, numRuns: RUNS },
  );
  process.stderr.write(
    `regex fuzz seed ${SEED}: ${JSON.stringify(outcomes)}; worst ${worst.ms.toFixed(1)} ms (${JSON.stringify(worst.pattern).slice(0, 80)} on ${worst.length})\n`,
  );
});
