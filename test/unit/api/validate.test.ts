import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutSpecProblems, fieldPath } from '../../../src/api/index.ts';
import type { Rollout, RolloutSpec } from '../../../src/api/index.ts';
import { commonRuleProblems } from '../../../src/api/rollout-rules.ts';

const valid = {
  replicas: 4,
  selector: { matchLabels: { app: 'web' } },
  template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
  strategy: {
    canary: {
      maxSurge: '25%',
      maxUnavailable: 0,
      steps: [{ setWeight: 20 }, { pause: {} }, { pause: { duration: '30s' } }, { setWeight: 60 }],
    },
  },
};

test('a valid spec has no problems', () => {
  assert.deepEqual(rolloutSpecProblems(valid), []);
});

test('problems name the field path and say what must hold', () => {
  const problems = rolloutSpecProblems({
    ...valid,
    replicas: 'four',
    strategy: { canary: { steps: [{ setWeight: 10, pause: {} }], surprise: true } },
  });
  assert.ok(problems.includes('spec.replicas: must be integer'), problems.join('\n'));
  assert.ok(problems.includes('spec.strategy.canary.steps[0]: must set exactly one action'));
  assert.ok(problems.includes('spec.strategy.canary: unknown field surprise'));
});

const rolloutOf = (spec: unknown): Rollout =>
  ({ apiVersion: 'stepwise.dev/v1alpha1', kind: 'Rollout', metadata: {}, spec }) as Rollout;

test('a missing selector is reported (the schema allows it: a workloadRef may supply one)', () => {
  const { selector: _selector, ...noSelector } = valid;
  assert.deepEqual(rolloutSpecProblems(noSelector), []);
  assert.deepEqual(commonRuleProblems(rolloutOf(noSelector)), ['spec.selector: must be set']);
});

test('the template comes from exactly one place: inline or a workloadRef', () => {
  const workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } as const;
  const both: RolloutSpec = { ...(valid as RolloutSpec), workloadRef };
  assert.deepEqual(rolloutSpecProblems(both), []);
  assert.deepEqual(commonRuleProblems(rolloutOf(both)), [
    'spec.template: must not be set together with spec.workloadRef (the pod template comes from Deployment "web")',
  ]);
  const { template: _t, selector: _s, ...neither } = valid;
  assert.deepEqual(commonRuleProblems(rolloutOf(neither)), [
    'spec.template: must be set, or spec.workloadRef must name a Deployment, ReplicaSet or PodTemplate to take it from',
  ]);
  // Offline (the plugin's lint), a workloadRef alone is fine: its template is the cluster's.
  assert.deepEqual(commonRuleProblems(rolloutOf({ ...neither, workloadRef })), []);
  assert.deepEqual(
    rolloutSpecProblems({ ...neither, workloadRef: { ...workloadRef, kind: 'StatefulSet' } })
      .length,
    1,
  );
});

test('field paths render JSON pointers the way kubectl does', () => {
  assert.equal(
    fieldPath('spec', '/strategy/canary/steps/3/pause'),
    'spec.strategy.canary.steps[3].pause',
  );
  assert.equal(fieldPath('spec', ''), 'spec');
});

test('blue-green: exactly one strategy, an activeService, one kind of antiAffinity', () => {
  const blueGreen = { activeService: 'web', previewService: 'web-preview' };
  assert.deepEqual(rolloutSpecProblems({ ...valid, strategy: { blueGreen } }), []);
  assert.deepEqual(rolloutSpecProblems({ ...valid, strategy: { canary: {}, blueGreen } }), [
    'spec.strategy: must set exactly one strategy: canary or blueGreen',
  ]);
  assert.deepEqual(rolloutSpecProblems({ ...valid, strategy: {} }), [
    'spec.strategy: must set exactly one strategy: canary or blueGreen',
  ]);
  assert.deepEqual(rolloutSpecProblems({ ...valid, strategy: { blueGreen: {} } }), [
    'spec.strategy.blueGreen: must have activeService',
  ]);
  const both = {
    preferredDuringSchedulingIgnoredDuringExecution: { weight: 10 },
    requiredDuringSchedulingIgnoredDuringExecution: {},
  };
  assert.deepEqual(
    rolloutSpecProblems({
      ...valid,
      strategy: { blueGreen: { ...blueGreen, antiAffinity: both } },
    }),
    [
      'spec.strategy.blueGreen.antiAffinity: must set exactly one of preferredDuringSchedulingIgnoredDuringExecution and requiredDuringSchedulingIgnoredDuringExecution',
    ],
  );
});
