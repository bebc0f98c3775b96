// `migrate`'s conversion of Argo Rollouts' manifests (its documentation's examples): the group
// changes, what Git declares stays, what the cluster added goes, Argo's status is kept aside for
// the hand-over, and every field Stepwise cannot take is named by path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadAll } from 'js-yaml';
import { convertArgo } from '../../../../src/cli/migrate/convert.ts';
import { manifestFiles } from '../../../../src/cli/migrate/render.ts';
import { ANALYSIS, BLUE_GREEN, CANARY, EXPERIMENT } from './argo-docs.ts';

const convert = (text: string) =>
  convertArgo(loadAll(text).map((value, i) => ({ source: `argo.yaml: document ${i + 1}`, value })));

describe('migrate: converting Argo’s manifests', () => {
  it('the getting-started canary: our group, Git’s metadata and spec, nothing the cluster added', () => {
    const r = convert(CANARY);
    assert.deepEqual(r.problems, []);
    const [ro] = r.converted;
    assert.equal(ro?.manifest.apiVersion, 'stepwise.dev/v1alpha1');
    assert.equal(ro?.manifest.kind, 'Rollout');
    assert.deepEqual(ro?.manifest.metadata, {
      name: 'rollouts-demo',
      labels: { tier: 'web' },
      annotations: { team: 'shop' },
    });
    // `creationTimestamp: null` (the API server's serialisation) is gone.
    const spec = ro?.manifest.spec as { template: { metadata: object } };
    assert.deepEqual(spec.template.metadata, { labels: { app: 'rollouts-demo' } });
    assert.equal('status' in (ro?.manifest ?? {}), false);
  });

  it('Argo’s status is handed over without its Go hashes', () => {
    const [ro] = convert(CANARY).converted;
    assert.deepEqual(ro?.handover, {
      stableRS: '687d76d795',
      currentPodHash: '6c7b9b5f4f',
      currentStepIndex: 1,
      pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-12-06T10:00:00Z' }],
      controllerPause: true,
      canary: {
        weights: {
          canary: { weight: 20, podTemplateHash: '6c7b9b5f4f' },
          stable: { weight: 80, podTemplateHash: '687d76d795' },
        },
      },
    });
  });

  it('blue-green and an analysis with its template convert as they are', () => {
    assert.deepEqual(convert(BLUE_GREEN).problems, []);
    const r = convert(ANALYSIS);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(
      r.converted.map((c) => `${c.manifest.apiVersion} ${c.kind}/${c.name}`),
      [
        'stepwise.dev/v1alpha1 AnalysisTemplate/success-rate',
        'stepwise.dev/v1alpha1 Rollout/guestbook',
      ],
    );
    assert.equal(r.converted[1]?.handover, undefined, 'no status: nothing to hand over');
  });

  it('every field Stepwise cannot take is named, by path and with what it is', () => {
    assert.deepEqual(convert(EXPERIMENT).problems, [
      "argo.yaml: document 1: Rollout/guestbook: metadata.annotations.notifications.argoproj.io/subscribe.on-rollout-completed.slack: Argo's notification subscriptions are not converted (Stepwise's are notifications.stepwise.dev/*)",
      "argo.yaml: document 1: Rollout/guestbook: spec.strategy.canary.steps[0].experiment: Argo's Experiment step (Argo Experiments), which Stepwise does not have",
      "argo.yaml: document 1: Rollout/guestbook: spec.strategy.canary.steps[1].plugin: Argo's step plugin (a Go plugin), which Stepwise does not have",
      "argo.yaml: document 1: Rollout/guestbook: spec.strategy.canary.trafficRouting.plugins: Argo's traffic router plugins (Go plugins; Gateway API is built in: trafficRouting.gatewayAPI), which Stepwise does not have",
      'argo.yaml: document 2: AnalysisTemplate/error-rate: spec.metrics[0].provider: unknown field datadog',
    ]);
  });

  it('kinds it does not convert are noted, and `kubectl get -o yaml` lists are read item by item', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${JSON.stringify(loadAll(BLUE_GREEN)[0])}\n- {apiVersion: argoproj.io/v1alpha1, kind: Experiment, metadata: {name: exp}}\n`;
    const r = convert(list);
    assert.deepEqual(
      r.converted.map((c) => c.name),
      ['rollout-bluegreen'],
    );
    assert.deepEqual(r.notes, [
      'argo.yaml: document 1 item 2: Experiment/exp: skipped: argoproj.io/v1alpha1 Experiment is not converted',
    ]);
  });

  it('an Argo API version other than v1alpha1 is a problem, not a guess', () => {
    const r = convert(CANARY.replace('argoproj.io/v1alpha1', 'argoproj.io/v1beta1'));
    assert.match(r.problems[0] ?? '', /apiVersion: argoproj.io\/v1beta1 cannot be converted/);
    assert.equal(r.converted.length, 0);
  });

  it('--allow-partial’s files carry each document’s problems as comments', () => {
    const r = convert(EXPERIMENT);
    const [rollout, template] = manifestFiles(r.converted, r.problems);
    assert.equal(rollout?.name, 'rollout-guestbook.yaml');
    assert.equal(
      rollout?.text.split('\n').filter((l) => l.startsWith('# cannot convert:')).length,
      4,
    );
    assert.match(
      template?.text ?? '',
      /^# cannot convert: .*unknown field datadog\napiVersion: stepwise.dev\/v1alpha1/,
    );
  });
});
