/**
 * Grafana dashboards as PromQL: the queries of Argo Rollouts' own dashboard (examples/
 * dashboard.json in Argo's Go module, the version the router CRDs come from) and of ours
 * (deploy/observability/), with Grafana's variables given values, and the series a run scraped,
 * kept as a fixture that the alert rules' tests are checked against.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARGO_ROLLOUTS_MODULE, moduleDir } from '../cluster/router-crds.ts';
import { REPO_ROOT } from '../cluster/state.ts';

export const OBSERVABILITY_DIR = join(REPO_ROOT, 'deploy', 'observability');
export const OUR_DASHBOARD = join(OBSERVABILITY_DIR, 'stepwise-dashboard.json');
export const OUR_RULES = join(OBSERVABILITY_DIR, 'stepwise-rules.yaml');
/** What the observability e2e scraped: metric names, label names and the values it produced. */
export const SCRAPED_SERIES_FIXTURE = join(
  REPO_ROOT,
  'test',
  'observability',
  'scraped-series.json',
);
export const RULE_TESTS = join(REPO_ROOT, 'test', 'observability', 'rules.test.yaml');

/**
 * Argo's panels that read the Go runtime (go_memstats_*): a Node process has none. Our
 * dashboard's "Memory" panel reads process_resident_memory_bytes instead.
 */
export const GO_RUNTIME_PANELS: readonly string[] = ['Memory Used'];

/** The scrape job Argo's dashboard selects (`job="argo-rollouts-metrics"`, fixed in each query). */
export const ARGO_DASHBOARD_JOB = 'argo-rollouts-metrics';

export interface DashboardQuery {
  readonly panel: string;
  readonly expr: string;
}

interface Panel {
  readonly title?: string;
  readonly panels?: readonly Panel[];
  readonly targets?: readonly { readonly expr?: string }[];
}

/** Every target's `expr`, rows' panels included, in the dashboard's order. */
export function dashboardQueries(dashboard: {
  readonly panels?: readonly Panel[];
}): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  const walk = (panels: readonly Panel[]): void => {
    for (const p of panels) {
      if (p.panels) walk(p.panels);
      for (const t of p.targets ?? []) {
        if (t.expr !== undefined && t.expr.trim() !== '') {
          out.push({ panel: p.title ?? '(untitled)', expr: t.expr });
        }
      }
    }
  };
  walk(dashboard.panels ?? []);
  return out;
}

/**
 * Grafana's variable forms ($name, ${name}, ${name:fmt}, [[name]]) replaced by `values`; a
 * variable without a value is an error (a query would silently match nothing).
 */
export function substitute(expr: string, values: Readonly<Record<string, string>>): string {
  return expr.replace(
    /\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g,
    (whole, a?: string, b?: string, c?: string) => {
      const name = a ?? b ?? c ?? '';
      const value = values[name];
      if (value === undefined) throw new Error(`no value for Grafana variable ${whole} in ${expr}`);
      return value;
    },
  );
}

/** Argo's examples/dashboard.json from its Go module (downloaded into the module cache once). */
export async function argoDashboard(): Promise<{ readonly panels?: readonly Panel[] }> {
  const dir = await moduleDir(ARGO_ROLLOUTS_MODULE);
  return JSON.parse(await readFile(join(dir, 'examples', 'dashboard.json'), 'utf8')) as {
    panels?: Panel[];
  };
}

export async function ourDashboard(): Promise<{ readonly panels?: readonly Panel[] }> {
  return JSON.parse(await readFile(OUR_DASHBOARD, 'utf8')) as { panels?: Panel[] };
}

/**
 * Panels of our dashboard that need a state the e2e run does not produce; every other query
 * returns data there. (Counters such as write storms are served as 0 from the start, so their
 * panels have data without a storm.)
 */
export const NEEDS_UNPRODUCED_STATE: Readonly<Record<string, string>> = {};

/**
 * The fixture: metric name → label names seen (without the `job` and `instance` Prometheus adds;
 * a label whose value is "" is no label to Prometheus, so `traffic_router` of a Rollout without a
 * router is not there), and for a few labels the values the run is sure to produce (it waits for
 * each).
 */
export interface ScrapedSeries {
  readonly [metric: string]: {
    readonly labels: readonly string[];
    readonly values?: Readonly<Record<string, readonly string[]>>;
  };
}

export async function scrapedSeriesFixture(): Promise<ScrapedSeries> {
  return JSON.parse(await readFile(SCRAPED_SERIES_FIXTURE, 'utf8')) as ScrapedSeries;
}

/**
 * Families whose series come and go with what the process happens to be doing (Node's active
 * requests by type, say): a fixture naming them would fail a later run that saw none.
 */
export const UNSTEADY_FAMILIES = /^nodejs_active_/;

/** Labels Prometheus attaches to every scraped series; not the controller's. */
export const TARGET_LABELS: readonly string[] = ['job', 'instance'];

/**
 * From Prometheus' /api/v1/series answer: the fixture's shape, sorted, with values only for the
 * labels and values in `produced` (metric → label → values the run waited for).
 */
export function summariseSeries(
  series: readonly Readonly<Record<string, string>>[],
  produced: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>,
): ScrapedSeries {
  const names = new Map<string, Set<string>>();
  const seenValues = new Set<string>();
  for (const s of series) {
    const metric = s.__name__;
    if (metric === undefined || UNSTEADY_FAMILIES.test(metric)) continue;
    let labels = names.get(metric);
    if (!labels) names.set(metric, (labels = new Set()));
    for (const [k, v] of Object.entries(s)) {
      if (k === '__name__' || TARGET_LABELS.includes(k)) continue;
      labels.add(k);
      seenValues.add(`${metric}\u0000${k}\u0000${v}`);
    }
  }
  const out: Record<string, { labels: string[]; values?: Record<string, string[]> }> = {};
  for (const metric of [...names.keys()].sort()) {
    const entry: { labels: string[]; values?: Record<string, string[]> } = {
      labels: [...(names.get(metric) ?? [])].sort(),
    };
    const wanted = produced[metric];
    if (wanted !== undefined) {
      entry.values = {};
      for (const [label, values] of Object.entries(wanted)) {
        entry.values[label] = values
          .filter((v) => seenValues.has(`${metric}\u0000${label}\u0000${v}`))
          .sort();
      }
    }
    out[metric] = entry;
  }
  return out;
}

/** What `want` has that `have` lacks: metrics, label names, values (empty when none). */
export function missingFrom(have: ScrapedSeries, want: ScrapedSeries): string[] {
  const gaps: string[] = [];
  for (const [metric, w] of Object.entries(want)) {
    const h = have[metric];
    if (h === undefined) {
      gaps.push(`metric ${metric}`);
      continue;
    }
    for (const l of w.labels) if (!h.labels.includes(l)) gaps.push(`${metric} label ${l}`);
    for (const [label, values] of Object.entries(w.values ?? {})) {
      for (const v of values) {
        if (!(h.values?.[label] ?? []).includes(v)) gaps.push(`${metric}{${label}="${v}"}`);
      }
    }
  }
  return gaps;
}
