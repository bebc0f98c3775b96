// The chart's optional Grafana dashboard and alerts (deploy/observability/), rendered by the real
// helm: off by default; the dashboard as a ConfigMap Grafana's sidecar picks up, byte for byte the
// shipped JSON; the PrometheusRule with this release's metrics job and the `for` values given;
// log format passed to the controller; wrong values refused by the schema.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { OUR_DASHBOARD, OUR_RULES } from '../../observability/dashboards.ts';
import { findDoc, render, renderChart } from '../../helm/render.ts';
import type { Doc } from '../../helm/render.ts';

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly annotations: Record<string, string>;
}
interface PrometheusRule extends Doc {
  readonly spec: { readonly groups: readonly { readonly rules: readonly Rule[] }[] };
}
interface ConfigMap extends Doc {
  readonly data: Readonly<Record<string, string>>;
}

const rulesOf = (doc: PrometheusRule): Rule[] => doc.spec.groups.flatMap((g) => g.rules);
const byAlert = (doc: PrometheusRule, alert: string): Rule | undefined =>
  rulesOf(doc).find((r) => r.alert === alert);

describe('chart: dashboard and alerts', () => {
  it('renders neither by default', () => {
    const docs = render();
    assert.equal(
      docs.some((d) => d.kind === 'PrometheusRule' || d.metadata.name === 'stepwise-dashboard'),
      false,
    );
  });

  it('the dashboard: a ConfigMap labelled grafana_dashboard, with the shipped JSON unchanged', () => {
    const docs = render({
      observability: {
        dashboard: {
          enabled: true,
          namespace: 'monitoring',
          labels: { team: 'platform' },
          annotations: { grafana_folder: 'Delivery' },
        },
      },
    });
    const cm = findDoc<ConfigMap>(docs, 'ConfigMap', 'stepwise-dashboard');
    assert.equal(cm.metadata.namespace, 'monitoring');
    assert.equal(cm.metadata.labels?.grafana_dashboard, '1');
    assert.equal(cm.metadata.labels?.team, 'platform');
    assert.equal(cm.metadata.annotations?.grafana_folder, 'Delivery');
    assert.equal(cm.data['stepwise-dashboard.json'], readFileSync(OUR_DASHBOARD, 'utf8').trimEnd());
  });

  it("the PrometheusRule: the shipped alerts, selecting this release's metrics Service as job", () => {
    const docs = render(
      { observability: { prometheusRule: { enabled: true, labels: { release: 'kps' } } } },
      { release: 'delivery' },
    );
    const rule = findDoc<PrometheusRule>(docs, 'PrometheusRule', 'delivery-stepwise');
    assert.equal(rule.metadata.namespace, 'ops');
    assert.equal(rule.metadata.labels?.release, 'kps');
    const shipped = load(readFileSync(OUR_RULES, 'utf8')) as PrometheusRule;
    assert.deepEqual(
      rulesOf(rule).map((r) => r.alert),
      rulesOf(shipped).map((r) => r.alert),
    );
    const down = byAlert(rule, 'StepwiseControllerDown');
    assert.equal(down?.expr, 'absent(up{job="delivery-stepwise-controller-metrics"} == 1)');
    // The Service the job is named after (the ServiceMonitor's job).
    findDoc(docs, 'Service', 'delivery-stepwise-controller-metrics');
    // Prometheus' templates in the annotations are left for Prometheus.
    assert.match(
      byAlert(rule, 'StepwiseRolloutAborted')?.annotations.summary ?? '',
      /\{\{ \$labels\.name \}\}/,
    );
  });

  it("takes each alert's `for` and the job from values", () => {
    const docs = render({
      observability: {
        prometheusRule: {
          enabled: true,
          job: 'kubernetes-pods',
          for: { StepwiseRolloutDegraded: '30m', StepwiseRolloutPaused: '1d' },
        },
      },
    });
    const rule = findDoc<PrometheusRule>(docs, 'PrometheusRule', 'stepwise');
    assert.equal(byAlert(rule, 'StepwiseRolloutDegraded')?.for, '30m');
    assert.equal(byAlert(rule, 'StepwiseRolloutPaused')?.for, '1d');
    assert.equal(byAlert(rule, 'StepwiseRolloutAborted')?.for, '1m', 'the default kept');
    assert.match(byAlert(rule, 'StepwiseNoLeader')?.expr ?? '', /job="kubernetes-pods"/);
  });

  for (const [what, values, message] of [
    ['an unknown alert', { for: { StepwiseRolloutGone: '5m' } }, /StepwiseRolloutGone/],
    [
      'a duration Prometheus cannot read',
      { for: { StepwiseRolloutDegraded: 'ten minutes' } },
      /StepwiseRolloutDegraded/,
    ],
    ['an unknown key', { enable: true }, /enable/],
  ] as const) {
    it(`refuses ${what} naming it`, () => {
      const out = renderChart({ observability: { prometheusRule: values } });
      assert.notEqual(out.status, 0);
      assert.match(out.stderr, message);
    });
  }
});

describe('chart: logFormat', () => {
  interface Deployment extends Doc {
    readonly spec: { template: { spec: { containers: { args: string[] }[] } } };
  }
  const args = (docs: readonly Doc[]): readonly string[] =>
    findDoc<Deployment>(docs, 'Deployment', 'stepwise-controller').spec.template.spec.containers[0]
      ?.args ?? [];

  it('passes --log-format (json by default, text when asked); refuses another', () => {
    assert.ok(args(render()).includes('--log-format=json'));
    assert.ok(args(render({ logFormat: 'text' })).includes('--log-format=text'));
    const out = renderChart({ logFormat: 'logfmt' });
    assert.notEqual(out.status, 0);
    assert.match(out.stderr, /logFormat/);
  });
});
