// The controller's metrics as a user's Prometheus and Grafana read them (issue 24 item 4): the
// real Prometheus scrapes the real controller while Rollouts pass through every phase Argo's
// dashboard counts (a canary to Healthy, a pause, an abort, a failed analysis, a spec the
// controller refuses, a progress deadline, a ReplicaSet the API server refuses). Then every query
// of Argo Rollouts' own Grafana dashboard returns data, but its Go runtime panel; so does every
// query of ours (deploy/observability/), and every alert of our PrometheusRule whose state the
// run produced. The series seen are checked against the fixture the alert tests are checked
// against (STEPWISE_WRITE_FIXTURES=1 rewrites it).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import type { AnalysisTemplate, Rollout } from '../../src/api/index.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startPrometheus } from '../prometheus/server.ts';
import type { RunningPrometheus } from '../prometheus/server.ts';
import {
  ARGO_DASHBOARD_JOB,
  argoDashboard,
  dashboardQueries,
  GO_RUNTIME_PANELS,
  missingFrom,
  NEEDS_UNPRODUCED_STATE,
  OUR_RULES,
  ourDashboard,
  SCRAPED_SERIES_FIXTURE,
  scrapedSeriesFixture,
  substitute,
  summariseSeries,
} from '../observability/dashboards.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { neverReadyTemplate } from './support/faults.ts';
import {
  createRollout,
  createService,
  http,
  installCrds,
  patchSpec,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';

let controller: ControllerProcess;
let prometheus: RunningPrometheus;
let startedAt = 0;

before(async () => {
  // The controller on a port chosen here, so that Prometheus (whose first scrape takes seconds)
  // starts beside it rather than after it.
  const { metrics } = await freeLoopbackPorts(['metrics']);
  await installCrds();
  [controller, prometheus] = await Promise.all([
    startController({
      args: [
        '--leader-elect=false',
        '--rollout-replica-metrics=true',
        `--metrics-bind-address=127.0.0.1:${metrics}`,
      ],
    }),
    // Named as Argo's dashboard selects it, as a user running it unchanged names the scrape job.
    startPrometheus({
      scrapeTargets: [{ job: ARGO_DASHBOARD_JOB, target: `127.0.0.1:${metrics}` }],
    }),
  ]);
  startedAt = Date.now() / 1000;
});
after(async () => {
  await controller?.kill();
  await prometheus?.stop();
});

interface PromResult {
  readonly metric: Record<string, string>;
  readonly values?: [number, string][];
}

/** A range query over the run, as Grafana's panels ask (1 s steps). */
async function rangeQuery(expr: string): Promise<PromResult[]> {
  const params = new URLSearchParams({
    query: expr,
    start: String(startedAt),
    end: String(Date.now() / 1000),
    step: '1',
  });
  const res = await fetch(`${prometheus.url}/api/v1/query_range?${params.toString()}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data?: { result: PromResult[] };
  };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error ?? res.status}`);
  return body.data?.result ?? [];
}

/** Waits until Prometheus has scraped what `expr` selects (it scrapes every second). */
async function scraped(expr: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await rangeQuery(expr)).length === 0) {
    if (Date.now() > deadline) throw new Error(`Prometheus never saw ${expr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const ONE = { replicas: 1 };
const argoPhase = (r: Rollout) =>
  r.status?.conditions?.find((c) => c.type === 'Progressing')?.reason ?? '';

/** A canary to Healthy, an update paused, promoted: Completed, Progressing and Paused. */
async function promoted(): Promise<void> {
  const ns = await testNamespace('obs-canary');
  await createRollout(ns, rolloutBody('web', { ...ONE }));
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  await waitForRollout(ns, 'web', 'paused at step 1', phase('Paused'));
  // At debug level (the e2e controllers' level) each pass logs the writes it planned.
  await controller.waitForLog(
    (l) =>
      l.msg === 'pass planned' &&
      l.rollout === `${ns}/web` &&
      Array.isArray(l.writes) &&
      l.writes.includes('event Normal RolloutPaused'),
  );
  // Held a few scrapes so that Paused is seen, then promoted.
  await scraped(`rollout_info{namespace="${ns}",phase="Paused"}`);
  await patchStatus(ns, 'web', { pauseConditions: null });
  await waitForRollout(
    ns,
    'web',
    'promoted',
    phase('Healthy', (r) => r.status?.currentStepIndex === 2),
  );
}

/** Paused on a canary, then aborted: Abort (Degraded). */
async function aborted(): Promise<void> {
  const ns = await testNamespace('obs-abort');
  await createRollout(ns, rolloutBody('web', { ...ONE }));
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  await waitForRollout(ns, 'web', 'paused', phase('Paused'));
  await patchStatus(ns, 'web', { abort: true });
  await waitForRollout(
    ns,
    'web',
    'aborted',
    phase('Degraded', (r) => r.status?.abort === true),
  );
}

/** An analysis step whose Prometheus query fails its condition: the run Fails, the update aborts. */
async function failedAnalysis(): Promise<void> {
  const ns = await testNamespace('obs-analysis');
  const template: AnalysisTemplate = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'always-low' },
    spec: {
      metrics: [
        {
          name: 'success-rate',
          interval: '1s',
          count: 2,
          successCondition: 'result[0] >= 0.95',
          provider: { prometheus: { address: prometheus.url, query: 'vector(0.5)' } },
        },
      ],
    },
  };
  await http.json('POST', `${API}/namespaces/${ns}/analysistemplates`, template);
  const steps = [{ setWeight: 25 }, { analysis: { templates: [{ templateName: 'always-low' }] } }];
  await createRollout(ns, rolloutBody('web', { ...ONE, strategy: { canary: { steps } } }));
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await setImage(ns, 'web', 'app:2');
  await waitForRollout(ns, 'web', 'aborted by analysis', (r) => r.status?.abort === true);
}

/** A canaryService that does not exist: InvalidSpec. */
async function invalidSpec(): Promise<void> {
  const ns = await testNamespace('obs-invalid');
  await createService(ns, 'web-stable', 'web');
  await createRollout(
    ns,
    rolloutBody('web', {
      ...ONE,
      strategy: { canary: { canaryService: 'missing', stableService: 'web-stable', steps: [] } },
    }),
  );
  await waitForRollout(ns, 'web', 'InvalidSpec', (r) =>
    (r.status?.conditions ?? []).some((c) => c.type === 'InvalidSpec' && c.status === 'True'),
  );
}

/** An update whose pods never become Ready, past a 5 s deadline: Timeout. */
async function timedOut(): Promise<void> {
  const ns = await testNamespace('obs-deadline');
  await createRollout(
    ns,
    rolloutBody('web', { ...ONE, progressDeadlineSeconds: 5, strategy: { canary: {} } }),
  );
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await patchSpec(ns, 'web', neverReadyTemplate('web'));
  await waitForRollout(
    ns,
    'web',
    'ProgressDeadlineExceeded',
    (r) => argoPhase(r) === 'ProgressDeadlineExceeded',
    30_000,
  );
}

/** A template the API server refuses (a 64-character label value): Error. */
async function refused(): Promise<void> {
  const ns = await testNamespace('obs-refused');
  await createRollout(ns, rolloutBody('web', { ...ONE, strategy: { canary: {} } }));
  await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
  await patchSpec(ns, 'web', {
    template: { metadata: { labels: { app: 'web', extra: 'x'.repeat(64) } } },
  });
  await waitForRollout(
    ns,
    'web',
    'ReplicaSetCreateError',
    (r) => argoPhase(r) === 'ReplicaSetCreateError',
  );
}

/** Values the run waits for, so the fixture may name them (dashboards.ts summariseSeries). */
const PRODUCED = {
  rollout_info: {
    phase: ['Completed', 'Progressing', 'Paused', 'Abort', 'InvalidSpec', 'Timeout', 'Error'],
    status_phase: ['Healthy', 'Progressing', 'Paused', 'Degraded'],
    strategy: ['canary'],
  },
  analysis_run_info: { phase: ['Failed'] },
  analysis_run_metric_phase: { phase: ['Failed'] },
};

describe('Prometheus scraping the controller through every phase', () => {
  it('sees Rollouts Completed, Progressing, Paused, aborted, failed by analysis, InvalidSpec, timed out and refused', async () => {
    await Promise.all([
      promoted(),
      aborted(),
      failedAnalysis(),
      invalidSpec(),
      timedOut(),
      refused(),
    ]);
    for (const [label, values] of Object.entries(PRODUCED.rollout_info)) {
      for (const v of values) await scraped(`rollout_info{${label}="${v}"}`);
    }
    await scraped('analysis_run_info{phase="Failed"}');
  });

  it("every query of Argo Rollouts' own dashboard returns data, but the Go runtime panel", async () => {
    const queries = dashboardQueries(await argoDashboard());
    assert.equal(queries.length, 17, "Argo's examples/dashboard.json has 17 queries");
    // Its per-Rollout panels pick one Rollout by namespace and name: one that went Healthy.
    const [one] = await rangeQuery('rollout_info{phase="Completed"}');
    const vars = {
      rollout_namespace: one?.metric.namespace ?? '',
      rollout_name: one?.metric.name ?? '',
    };
    const empty: string[] = [];
    for (const q of queries) {
      const expr = substitute(q.expr, vars);
      const result = await rangeQuery(expr);
      if (GO_RUNTIME_PANELS.includes(q.panel)) {
        assert.equal(result.length, 0, `${q.panel} reads the Go runtime, which Node has not`);
      } else if (result.length === 0) {
        empty.push(`${q.panel}: ${expr}`);
      }
    }
    assert.deepEqual(empty, [], 'panels without data');
  });

  it('every query of our dashboard returns data', async () => {
    const vars = {
      job: ARGO_DASHBOARD_JOB,
      namespace: '.+',
      rollout: '.+',
      __rate_interval: '15s',
      __interval: '1s',
      datasource: 'prometheus',
    };
    const empty: string[] = [];
    for (const q of dashboardQueries(await ourDashboard())) {
      if (NEEDS_UNPRODUCED_STATE[q.panel] !== undefined) continue;
      const result = await rangeQuery(substitute(q.expr, vars));
      if (result.length === 0) empty.push(`${q.panel}: ${q.expr}`);
    }
    assert.deepEqual(empty, [], 'panels without data');
  });

  it('the alerts whose state the run produced fire on it (their expressions return data)', async () => {
    const rule = load(await readFile(OUR_RULES, 'utf8')) as {
      spec: { groups: { rules: { alert: string; expr: string }[] }[] };
    };
    const produced = [
      'StepwiseRolloutDegraded',
      'StepwiseRolloutAborted',
      'StepwiseAnalysisRunFailed',
      'StepwiseRolloutPaused',
    ];
    const fired: string[] = [];
    for (const r of rule.spec.groups.flatMap((g) => g.rules)) {
      const expr = r.expr.replaceAll(
        'job="stepwise-controller-metrics"',
        `job="${ARGO_DASHBOARD_JOB}"`,
      );
      if ((await rangeQuery(expr)).length > 0) fired.push(r.alert);
    }
    assert.deepEqual(fired.sort(), produced.sort());
  });

  it('serves every metric name, label and value the alert tests rely on (the fixture)', async () => {
    const params = new URLSearchParams({
      'match[]': `{job="${ARGO_DASHBOARD_JOB}"}`,
      start: String(startedAt),
      end: String(Date.now() / 1000),
    });
    const res = await fetch(`${prometheus.url}/api/v1/series?${params.toString()}`);
    const body = (await res.json()) as { data: Record<string, string>[] };
    const seen = summariseSeries(body.data, PRODUCED);
    if (process.env.STEPWISE_WRITE_FIXTURES === '1') {
      await writeFile(SCRAPED_SERIES_FIXTURE, `${JSON.stringify(seen, null, 2)}\n`);
    }
    assert.deepEqual(missingFrom(seen, await scrapedSeriesFixture()), []);
  });
});
