// Canaries judged by a real Prometheus (issue 7 §6, §8): the demo app serves prom-client HTTP
// metrics for the stable and canary pod-template hashes, the harness' Prometheus scrapes it every
// second, and the controller's prometheus provider asks it about the canary's hash only. A healthy
// canary completes; a bad one is rolled back on its own with the measured value in status; a
// Prometheus that is down, too slow or answering garbage, and conditions that index past the end
// or compare a string with a number, give Error measurements, and after consecutiveErrorLimit the
// rollout aborts, while another Rollout in the same namespace keeps moving.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { AnalysisRun, AnalysisTemplate, Metric, Rollout } from '../../src/api/index.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace } from '../cluster/testing.ts';
import { DemoApp } from '../demo-app/app.ts';
import { startPrometheus } from '../prometheus/server.ts';
import type { RunningPrometheus } from '../prometheus/server.ts';
import { podTemplateHash } from '../../src/rollout/hash.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { waitForCanary, waitForSplit } from './support/faults.ts';
import { closedPort, MetricServer } from './support/metric-server.ts';
import {
  createRollout,
  http,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const API = '/apis/stepwise.dev/v1alpha1';
const exec = promisify(execFile);

/** The plugin as kubectl runs it (src/cli/main.ts), against the test cluster; its stdout. */
async function plugin(...args: string[]): Promise<string> {
  const main = join(REPO_ROOT, 'src', 'cli', 'main.ts');
  const env = { ...process.env, NO_COLOR: '1' };
  const { stdout } = await exec(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', main, ...args],
    { env },
  );
  return stdout;
}
const app = new DemoApp();
// /hang never answers (a Prometheus too slow); /garbage answers JSON that is not its API.
const hanging = new MetricServer();
let prometheus: RunningPrometheus;
let controller: ControllerProcess;

before(async () => {
  await installCrds();
  const target = await app.listen();
  prometheus = await startPrometheus({ scrapeTargets: [{ job: 'demo', target }] });
  await hanging.start();
  // What a proxy in front of Prometheus might say: JSON, but not Prometheus' API.
  hanging.answers.set('garbage/api/v1/query', { hello: 'world' });
  // Metrics that name no address use the controller's default, as Argo's env variable.
  process.env['STEPWISE_PROMETHEUS_ADDRESS'] = prometheus.url;
  controller = await startController();
});
after(async () => {
  await controller?.kill();
  await prometheus?.stop();
  await app.close();
  hanging.close();
});

const SUCCESS_RATE =
  'sum(rate(http_requests_total{rollouts_pod_template_hash="{{args.canary-hash}}",code!~"5.."}[10s])) / ' +
  'sum(rate(http_requests_total{rollouts_pod_template_hash="{{args.canary-hash}}"}[10s]))';

function template(metric: Partial<Metric> = {}): AnalysisTemplate {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'success-rate' },
    spec: {
      args: [{ name: 'canary-hash' }],
      metrics: [
        {
          name: 'success-rate',
          // The canary's series need a few scrapes before rate() has two points.
          initialDelay: '4s',
          interval: '2s',
          count: 3,
          successCondition: 'len(result) > 0 && result[0] >= 0.95',
          provider: { prometheus: { query: SUCCESS_RATE } },
          ...metric,
        },
      ],
    },
  };
}

const steps = [
  { setWeight: 25 },
  {
    analysis: {
      templates: [{ templateName: 'success-rate' }],
      args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' as const } }],
    },
  },
  { setWeight: 50 },
];

/** A Healthy Rollout whose pods serve well, then a new image whose pods behave as `canary`. */
async function release(
  ns: string,
  canary: { errorRate: number },
  metric: Partial<Metric> = {},
): Promise<Rollout> {
  await http.json('POST', `${API}/namespaces/${ns}/analysistemplates`, template(metric));
  await createRollout(ns, rolloutBody('app', { strategy: { canary: { steps } } }));
  const first = await waitForRollout(ns, 'app', 'first revision Healthy', phase('Healthy'));
  app.set(first.status?.stableRS ?? '', { errorRate: 0, latencyMs: 20 });
  // The new pods' hash is known before they exist: their metrics are there from their first
  // scrape, as a real pod's would be. An image of its own keeps the hash from other tests.
  const image = `registry.invalid/app:${ns}`;
  const next = structuredClone(first.spec.template ?? {});
  const [container] = next.spec?.containers ?? [];
  if (container) container.image = image;
  app.set(podTemplateHash(next, 0), { ...canary, latencyMs: 20 });
  await setImage(ns, 'app', `app:${ns}`);
  const updating = await waitForCanary(ns, 'app');
  assert.equal(updating.status?.currentPodHash, podTemplateHash(next, 0));
  return updating;
}

/** One series whatever has been scraped: the condition, not the data, is under test. */
const ONE_SERIES = { prometheus: { query: 'vector(0.99)' } };

const aborted = (r: Rollout): boolean => r.status?.abort === true && r.status.phase === 'Degraded';

async function onlyRun(ns: string): Promise<AnalysisRun> {
  const list = await http.json<{ items: AnalysisRun[] }>(
    'GET',
    `${API}/namespaces/${ns}/analysisruns`,
  );
  assert.equal(list.items.length, 1);
  return list.items[0] as AnalysisRun;
}

// Each in a namespace of its own, waiting on scrapes and intervals: side by side.
describe('a canary judged by Prometheus', { concurrency: true }, () => {
  it('a healthy canary (1% errors) passes and completes', async () => {
    const ns = await testNamespace('prom-ok');
    await release(ns, { errorRate: 0.01 });
    const done = await waitForRollout(
      ns,
      'app',
      'fully promoted or aborted',
      (r) => aborted(r) || phase('Healthy', (x) => x.status?.currentStepIndex === 3)(r),
      90_000,
    );
    assert.ok(
      !aborted(done),
      `${done.status?.message} ${JSON.stringify((await onlyRun(ns)).status)}`,
    );
    const run = await onlyRun(ns);
    assert.equal(run.status?.phase, 'Successful');
    for (const m of run.status?.metricResults?.[0]?.measurements ?? []) {
      const [v] = JSON.parse(m.value ?? '[]') as number[];
      assert.ok(v !== undefined && v >= 0.95 && v <= 1, m.value);
      assert.match(m.metadata?.['resolvedPrometheusQuery'] ?? '', /rollouts_pod_template_hash="/);
    }
  });

  it('a bad canary (30% errors) is rolled back on its own, the value in status', async () => {
    const ns = await testNamespace('prom-bad');
    await release(ns, { errorRate: 0.3 });
    const r = await waitForRollout(ns, 'app', 'aborted by analysis', aborted, 90_000);
    const message = r.status?.message ?? '';
    assert.match(message, /success-rate/);
    const value = /last value \[([0-9.]+)\]/.exec(message)?.[1];
    // About 0.7 (30% errors); rate() over a young series extrapolates, so only roughly.
    assert.ok(value !== undefined && Number(value) > 0.5 && Number(value) < 0.95, message);
    await waitForSplit(ns, r, 0, 4);
    const run = await onlyRun(ns);
    assert.equal(run.status?.phase, 'Failed');
    assert.equal(run.status?.metricResults?.[0]?.measurements?.at(-1)?.phase, 'Failed');
    // The plugin shows the run, the failing metric and its value.
    const tree = await plugin('get', 'rollout', 'app', '-n', ns);
    assert.match(tree, new RegExp(`α ${run.metadata.name} +AnalysisRun +✖ Failed`));
    assert.match(tree, new RegExp(`success-rate +Metric +✖ Failed +\\[${value}\\]`));
    const detail = await plugin('get', 'analysisrun', run.metadata.name ?? '', '-n', ns);
    assert.match(detail, /Success: +len\(result\) > 0 && result\[0\] >= 0\.95/);
    assert.match(detail, /✖ Failed +\[0\.\d+\]/);
  });
});

// The cases wait on the run's interval and the abort, not on the CPU: side by side, each in a
// namespace of its own.
describe(
  'bad input and faults give Error measurements, then an abort',
  { concurrency: true },
  () => {
    const cases: readonly [string, Partial<Metric>, RegExp][] = [
      [
        'Prometheus down',
        { provider: { prometheus: { address: 'http://127.0.0.1:PORT', query: 'up' } } },
        /unreachable: ECONNREFUSED/,
      ],
      [
        'Prometheus slower than timeout',
        { provider: { prometheus: { address: 'HANG', query: 'up', timeout: 1 } } },
        /timed out after 1s/,
      ],
      [
        'Prometheus answering garbage',
        { provider: { prometheus: { address: 'GARBAGE', query: 'up' } } },
        /not a Prometheus API answer/,
      ],
      [
        'a Secret that does not exist',
        {
          provider: {
            prometheus: {
              query: 'up',
              authentication: {
                bearer: { tokenSecretKeyRef: { name: 'prom-token', key: 'token' } },
              },
            },
          },
        },
        /Secret "prom-fault-[a-z0-9]+\/prom-token" not found/,
      ],
      [
        'an index past the end',
        { successCondition: 'result[3] >= 0.95', provider: ONE_SERIES },
        /index 3 out of range \(len 1\)/,
      ],
      [
        'a string compared with a number',
        { successCondition: 'result[0] >= "0.95"', provider: ONE_SERIES },
        /invalid operation: float >= string/,
      ],
      [
        'a division by zero',
        { successCondition: 'result[0] / 0 >= 0.95', provider: ONE_SERIES },
        /division by zero/,
      ],
    ];
    for (const [name, metric, pattern] of cases) {
      it(name, async () => {
        const ns = await testNamespace('prom-fault');
        const port = await closedPort();
        const p = metric.provider?.prometheus;
        const provider =
          p === undefined
            ? undefined
            : {
                prometheus: {
                  ...p,
                  address:
                    p.address === 'HANG'
                      ? hanging.url('hang')
                      : p.address === 'GARBAGE'
                        ? hanging.url('garbage')
                        : p.address?.replace('PORT', String(port)),
                },
              };
        await release(
          ns,
          { errorRate: 0 },
          {
            initialDelay: '0s',
            interval: '1s',
            consecutiveErrorLimit: 1,
            ...metric,
            ...(provider ? { provider } : {}),
          },
        );
        // A second Rollout beside it keeps moving while this one's analysis fails.
        await createRollout(
          ns,
          rolloutBody('other', {
            strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
          }),
        );
        await waitForRollout(ns, 'other', 'other Healthy', phase('Healthy'));
        await setImage(ns, 'other', 'app:2');
        const r = await waitForRollout(ns, 'app', 'aborted by an erroring run', aborted, 90_000);
        assert.match(r.status?.message ?? '', /Error/);
        const run = await onlyRun(ns);
        assert.equal(run.status?.phase, 'Error');
        const ms = run.status?.metricResults?.[0]?.measurements ?? [];
        assert.ok(ms.length >= 2, 'consecutiveErrorLimit 1: two errors in a row end it');
        for (const m of ms) {
          assert.equal(m.phase, 'Error');
          assert.match(m.message ?? '', pattern);
        }
        await waitForRollout(ns, 'other', 'other paused at its step', phase('Paused'));
        await patchStatus(ns, 'other', { pauseConditions: null });
        await waitForRollout(
          ns,
          'other',
          'other Healthy again',
          phase('Healthy', (x) => x.status?.currentStepIndex === 2),
        );
      });
    }
  },
);
