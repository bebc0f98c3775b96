import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutSpecProblems, fieldPath } from '../../../src/api/index.ts';

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

test('a missing selector is reported', () => {
  const { selector: _selector, ...noSelector } = valid;
  assert.deepEqual(rolloutSpecProblems(noSelector), ['spec: must have selector']);
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
