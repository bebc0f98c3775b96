// The demo's CURRENT STEP column: the step label the Events and the plugin use (stepLabel), plus
// what the narration tells a newcomer about pauses and approvals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanaryStep } from '../../../src/api/index.ts';
import { describeStep } from '../../../demo/demo-timeline.ts';

const rows: [string, CanaryStep | undefined, string][] = [
  ['a weight, as the Events name it', { setWeight: 25 }, 'setWeight: 25'],
  ['a pause without a duration waits for a promote', { pause: {} }, 'pause (until promoted)'],
  ['a timed pause', { pause: { duration: '5s' } }, 'pause: 5s'],
  ['a pause in seconds', { pause: { duration: 30 } }, 'pause: 30s'],
  ['an approval with its time limit', { approval: { timeout: '10m' } }, 'approval (within 10m)'],
  ['an approval without one', { approval: {} }, 'approval'],
  ['past the last step', undefined, 'all steps done'],
];

for (const [name, step, label] of rows) {
  test(`describeStep: ${name}`, () => assert.equal(describeStep(step), label));
}
