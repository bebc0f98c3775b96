// The step-kind table (what each kind of canary step means) and the one "setWeight at index".
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CanaryStepSchema } from '../../../src/api/rollout.ts';
import type { CanaryStep } from '../../../src/api/index.ts';
import {
  STEP_KINDS,
  kindOf,
  stepLabel,
  stepProblems,
} from '../../../src/rollout/canary/step-kinds.ts';
import { setWeightAt } from '../../../src/rollout/index.ts';

describe('STEP_KINDS', () => {
  it('has one row for every kind of step the schema has', () => {
    assert.deepEqual(
      Object.keys(STEP_KINDS).sort(),
      Object.keys(CanaryStepSchema.properties).sort(),
    );
  });

  const rows: [CanaryStep, string, string, boolean][] = [
    // step, label, completes, waits on purpose
    [{ setWeight: 20 }, 'setWeight: 20', 'atCounts', false],
    [{ pause: {} }, 'pause', 'pauseEnds', true],
    [{ pause: { duration: 30 } }, 'pause: 30s', 'pauseEnds', true],
    [{ pause: { duration: '5m' } }, 'pause: 5m', 'pauseEnds', true],
    [{ setCanaryScale: { replicas: 2 } }, 'setCanaryScale: replicas 2', 'atCounts', false],
    [{ setCanaryScale: { weight: 40 } }, 'setCanaryScale: weight 40', 'atCounts', false],
    [
      { setCanaryScale: { matchTrafficWeight: true } },
      'setCanaryScale: matchTrafficWeight',
      'atCounts',
      false,
    ],
    [
      { analysis: { templates: [{ templateName: 'a' }, { templateName: 'b' }] } },
      'analysis: a, b',
      'analysisPassed',
      false,
    ],
    [{ approval: {} }, 'approval', 'approved', true],
    [{ approval: { minApprovals: 2 } }, 'approval: 2 approvers', 'approved', true],
    [{ setHeaderRoute: { name: 'h' } }, 'unknown', 'atCounts', false],
    [{ setMirrorRoute: { name: 'm' } }, 'unknown', 'atCounts', false],
  ];
  for (const [step, label, completes, waits] of rows) {
    it(`${label}: completes ${completes}${waits ? ', waits on purpose' : ''}`, () => {
      const kind = kindOf(step);
      assert.ok(kind !== undefined);
      assert.equal(stepLabel(step), label);
      assert.equal(STEP_KINDS[kind].completes, completes);
      assert.equal(STEP_KINDS[kind].waitsOnPurpose, waits);
    });
  }

  it('labels past the last step "done"', () => {
    assert.equal(stepLabel(undefined), 'done');
  });

  it('checks each kind by its own rules', () => {
    const at = 'spec.strategy.canary.steps[0]';
    assert.deepEqual(stepProblems({ setWeight: 120 }, at, { maxWeight: 100 }), [
      `${at}.setWeight: must be between 0 and 100, got 120`,
    ]);
    assert.deepEqual(stepProblems({ setWeight: 120 }, at, { maxWeight: 1000 }), []);
    assert.deepEqual(stepProblems({ setCanaryScale: {} }, at, { maxWeight: 100 }), [
      `${at}.setCanaryScale: must set exactly one of replicas, weight, matchTrafficWeight`,
    ]);
    assert.deepEqual(stepProblems({ approval: { timeout: 0 } }, at, { maxWeight: 100 }), [
      `${at}.approval.timeout: must be greater than 0`,
    ]);
    assert.deepEqual(stepProblems({ pause: { duration: '5m' } }, at, { maxWeight: 100 }), []);
  });
});

describe('setWeightAt: the last setWeight at or before the index, 0 if none, 100 past the end', () => {
  const steps: CanaryStep[] = [{ pause: {} }, { setWeight: 20 }, { pause: {} }, { setWeight: 60 }];
  const rows: [string, number, number][] = [
    ['no setWeight yet', 0, 0],
    ['at a setWeight', 1, 20],
    ['after one, before the next', 2, 20],
    ['at the last step', 3, 60],
    ['past the last step: all of it', 4, 100],
    ['far past the last step', 9, 100],
    ['before the first step', -1, 0],
  ];
  for (const [name, index, weight] of rows) {
    it(`${name} (index ${index}) → ${weight}`, () =>
      assert.equal(setWeightAt(steps, index), weight));
  }
  it('no steps: 100, every step is behind', () => assert.equal(setWeightAt([], 0), 100));
});
