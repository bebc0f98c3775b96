// The alerts in deploy/observability/ as Prometheus runs them: `promtool check rules` accepts the
// PrometheusRule's groups, `promtool test rules` fires each alert on the series in
// test/observability/rules.test.yaml (and not before its `for`), and those series are ones the
// controller really serves: every name, label and phase value is in the fixture the
// observability e2e checks against a real scrape. Our dashboard's queries parse as PromQL too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { dump, load } from 'js-yaml';
import { REPO_ROOT } from '../../cluster/state.ts';
import {
  dashboardQueries,
  OUR_RULES,
  ourDashboard,
  RULE_TESTS,
  scrapedSeriesFixture,
  substitute,
  TARGET_LABELS,
} from '../../observability/dashboards.ts';
import type { ScrapedSeries } from '../../observability/dashboards.ts';

const exec = promisify(execFile);

/** promtool where test/prometheus/build.sh puts it (`make unit` builds it first), or none. */
function promtoolPath(): string | undefined {
  const given = process.env.STEPWISE_PROMETHEUS_BIN;
  if (given !== undefined && existsSync(join(given, 'promtool'))) return join(given, 'promtool');
  const script = readFileSync(join(REPO_ROOT, 'test', 'prometheus', 'build.sh'), 'utf8');
  const version = /^PROMETHEUS_MODULE_VERSION=(\S+)/m.exec(script)?.[1];
  const cache = process.env.STEPWISE_CACHE ?? join(homedir(), '.cache', 'stepwise');
  const path = join(cache, `prometheus-${version ?? '?'}`, 'promtool');
  return existsSync(path) ? path : undefined;
}

const promtool = promtoolPath();
const skip =
  promtool === undefined
    ? 'promtool is not built: `make prometheus-bins` (make unit and make test build it first)'
    : false;

interface RuleFile {
  readonly spec: { readonly groups: readonly { readonly rules: readonly object[] }[] };
}
interface RuleTests {
  readonly tests: readonly { readonly input_series: readonly { readonly series: string }[] }[];
}

let dir = '';
let rulesFile = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stepwise-rules-'));
  const rule = load(readFileSync(OUR_RULES, 'utf8')) as RuleFile;
  rulesFile = join(dir, 'stepwise-rules.yaml');
  await writeFile(rulesFile, dump({ groups: rule.spec.groups }));
});
after(() => rm(dir, { recursive: true, force: true }));

async function run(args: readonly string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await exec(promtool ?? 'promtool', [...args]);
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the PrometheusRule (promtool)', { skip }, () => {
  it('passes promtool check rules', async () => {
    const r = await run(['check', 'rules', rulesFile]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 7 rules found/);
  });

  it('fires each alert on its series, after its `for`, and stops when the state ends', async () => {
    const tests = load(readFileSync(RULE_TESTS, 'utf8')) as Record<string, unknown>;
    const file = join(dir, 'rules.test.yaml');
    await writeFile(file, dump({ ...tests, rule_files: [rulesFile] }));
    const r = await run(['test', 'rules', file]);
    assert.equal(r.code, 0, r.out);
  });

  it('is tested for every alert it has', () => {
    const rule = load(readFileSync(OUR_RULES, 'utf8')) as {
      spec: { groups: { rules: { alert: string }[] }[] };
    };
    const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => r.alert)).sort();
    const tested = new Set(
      [...readFileSync(RULE_TESTS, 'utf8').matchAll(/alertname: (\w+)/g)].map((m) => m[1]),
    );
    assert.deepEqual(
      alerts.filter((a) => !tested.has(a)),
      [],
    );
  });

  it("every query of our Grafana dashboard parses (as a recording rule's expression)", async () => {
    const vars = {
      job: 'stepwise-controller-metrics',
      namespace: '.+',
      rollout: '.+',
      __rate_interval: '1m',
      __interval: '15s',
    };
    const queries = dashboardQueries(await ourDashboard());
    const file = join(dir, 'dashboard-queries.yaml');
    const rules = queries.map((q, i) => ({
      record: `dashboard:query_${i}`,
      expr: substitute(q.expr, vars),
    }));
    await writeFile(file, dump({ groups: [{ name: 'dashboard', rules }] }));
    const r = await run(['check', 'rules', '--lint=none', file]);
    assert.equal(r.code, 0, r.out);
  });
});

/** `name{a="x",b="y"}` → its name and labels (promtool's series notation, as the tests write it). */
function parseSeries(text: string): { name: string; labels: Record<string, string> } {
  const m = /^([a-zA-Z_:][\w:]*)\{(.*)\}$/.exec(text.trim());
  if (!m) throw new Error(`cannot read series ${text}`);
  const labels: Record<string, string> = {};
  for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
    labels[l[1] ?? ''] = l[2] ?? '';
  return { name: m[1] ?? '', labels };
}

/** What the series use that the fixture does not show the controller serving. */
function seriesGaps(fixture: ScrapedSeries, seriesTexts: readonly string[]): string[] {
  const gaps: string[] = [];
  for (const series of seriesTexts) {
    const { name, labels } = parseSeries(series);
    const seen = fixture[name];
    if (seen === undefined) {
      gaps.push(`${name}: not served`);
      continue;
    }
    for (const [label, value] of Object.entries(labels)) {
      // A label set to "" is no label to Prometheus: nothing to look for.
      if (TARGET_LABELS.includes(label) || value === '') continue;
      if (!seen.labels.includes(label)) gaps.push(`${name}: no label ${label}`);
      const values = seen.values?.[label];
      if (values !== undefined && !values.includes(value)) {
        gaps.push(`${name}{${label}="${value}"}: not produced`);
      }
    }
    // Every label the controller puts on it, except on Argo's own series: they lack our
    // status_phase, which the rules rely on to leave them out.
    if (labels.job !== 'argo-rollouts-metrics') {
      for (const label of seen.labels) {
        if (!(label in labels)) gaps.push(`${name}: input lacks ${label}`);
      }
    }
  }
  return gaps;
}

function ruleTestSeries(): string[] {
  const tests = load(readFileSync(RULE_TESTS, 'utf8')) as RuleTests;
  return tests.tests.flatMap((t) => t.input_series.map((s) => s.series));
}

describe('the alert tests read series the controller serves', () => {
  it('every input series name, label and phase value is in the scraped fixture', async () => {
    assert.deepEqual(seriesGaps(await scrapedSeriesFixture(), ruleTestSeries()), []);
  });

  it('a metric or label the controller no longer serves is a gap', async () => {
    const fixture = await scrapedSeriesFixture();
    const { rollout_info: info, ...rest } = fixture;
    assert.ok(info, 'rollout_info in the fixture');
    const renamed: ScrapedSeries = { ...rest, rollout_status: info };
    assert.ok(seriesGaps(renamed, ruleTestSeries()).includes('rollout_info: not served'));
    const relabelled: ScrapedSeries = {
      ...fixture,
      rollout_info: { ...info, labels: info.labels.filter((l) => l !== 'status_phase') },
    };
    assert.ok(
      seriesGaps(relabelled, ruleTestSeries()).includes('rollout_info: no label status_phase'),
    );
  });
});
