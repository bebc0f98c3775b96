// `matches` on re2js (issue 20, H3): the patterns that froze the controller on V8's regexes,
// the NFA's worst kinds sized to the work bound (program instructions × subject length at
// MAX_REGEX_WORK), and a plain pattern, each timed as a whole condition (compile included on
// the first round). The worst case is what a hostile template can cost the event loop per
// condition. No cluster: `make bench BENCH=regex`.
import {
  createConditionEvaluator,
  ExprError,
  MAX_REGEX_WORK,
} from '../../src/analysis/expr/index.ts';
import { compileGoRegex } from '../../src/analysis/expr/regex.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const ROUNDS = Number(process.env['BENCH_REGEX_ROUNDS'] ?? 20);

interface Case {
  readonly label: string;
  readonly pattern: string;
  /** Builds a subject of about `length` characters. */
  readonly subject: (length: number) => string;
  /** Length to use; by default the longest the work bound admits for this pattern. */
  readonly length?: number;
}

const as = (n: number): string => 'a'.repeat(n) + '!';
const ab = (n: number): string => {
  let s = '';
  for (let i = 0; s.length < n; i++) s += (i * 7919) % 3 === 0 ? 'b' : 'a';
  return s + '!';
};

const CASES: readonly Case[] = [
  { label: 'issue: (?i)(a+)+$ on a×10000+!', pattern: '(?i)(a+)+$', subject: as, length: 10_000 },
  { label: 'issue: (a{1,20})+$ on a×10000+!', pattern: '(a{1,20})+$', subject: as, length: 10_000 },
  { label: 'issue: ((?i:a+))+$ on a×10000+!', pattern: '((?i:a+))+$', subject: as, length: 10_000 },
  {
    label: 'plain: ^HTTP/1\\.[01] 2\\d\\d on 10000',
    pattern: '^HTTP/1\\.[01] 2\\d\\d',
    subject: as,
    length: 10_000,
  },
  { label: 'DFA blow-up: [ab]*a[ab]{30}$', pattern: '[ab]*a[ab]{30}$', subject: ab },
  { label: 'DFA blow-up: [ab]*a[ab]{300}$', pattern: '[ab]*a[ab]{300}$', subject: ab },
  // The largest programs that still take the DFA (500 instructions), then the NFA's.
  { label: 'DFA at 500: [ab]*a[ab]{494}$', pattern: '[ab]*a[ab]{494}$', subject: ab },
  { label: 'DFA at 500: (?i)(a|aa|aaa){1,49}b', pattern: '(?i)(a|aa|aaa){1,49}b', subject: as },
  { label: 'DFA at 500: (?:a?){165}a{165}$', pattern: '(?:a?){165}a{165}$', subject: as },
  { label: 'NFA: (\\pL|\\d|[^x]){999}$', pattern: '(\\pL|\\d|[^x]){999}$', subject: as },
  { label: 'NFA: (?:a?){500}a{500}$', pattern: '(?:a?){500}a{500}$', subject: as },
  { label: 'NFA: (?i)(a|aa|aaa){1,300}b', pattern: '(?i)(a|aa|aaa){1,300}b', subject: as },
  { label: 'largest program: [ab]{4990}', pattern: '[ab]{999}'.repeat(5), subject: ab },
];

function longest(pattern: string): number {
  const regex = compileGoRegex(pattern);
  if (typeof regex === 'string') throw new Error(`${pattern}: ${regex}`);
  // 1% below the bound leaves the node visits room in the same step budget.
  return Math.floor((0.99 * MAX_REGEX_WORK) / regex.programSize()) - 1;
}

const benchmark: Benchmark = {
  name: 'regex',
  description: `matches on RE2: worst case per condition (${ROUNDS} rounds, work bound ${MAX_REGEX_WORK})`,
  run(ctx) {
    const summary: string[] = [];
    const data: Record<string, unknown> = { machine: machine(), workBound: MAX_REGEX_WORK };
    let worst = { ms: 0, label: '' };
    for (const c of CASES) {
      const length = c.length ?? longest(c.pattern);
      const subject = c.subject(length);
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // A fresh evaluator each round: the condition is compiled, as on a controller restart.
        const evaluate = createConditionEvaluator();
        const started = performance.now();
        const out = evaluate(`result matches \`${c.pattern}\``, subject);
        times.push(performance.now() - started);
        if (out instanceof ExprError) throw new Error(`${c.label}: ${out.message}`);
      }
      const s = stats(times);
      if (s.max > worst.ms) worst = { ms: s.max, label: c.label };
      summary.push(formatStats(`${c.label} (${subject.length} chars)`, s));
      data[c.label] = { subjectLength: subject.length, ...s };
      ctx.log(`${c.label}: max ${s.max.toFixed(1)} ms`);
    }
    summary.push(`worst case: ${worst.ms.toFixed(1)} ms (${worst.label})`);
    data['worstMs'] = worst.ms;
    return Promise.resolve({ summary, data });
  },
};

export default benchmark;
