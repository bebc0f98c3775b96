import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideAbort,
  decidePause,
  decidePromote,
  decideResume,
  decideRetry,
} from '../../../src/cli/requests.ts';
import { pausedStatus, rollout } from './fixtures.ts';

const promoted = {
  phase: 'Healthy' as const,
  currentPodHash: '5t4bl3',
  stableRS: '5t4bl3',
  currentStepIndex: 4,
};

test('promote clears pause conditions when paused', () => {
  assert.deepEqual(decidePromote(rollout(pausedStatus), { full: false }), {
    kind: 'patch',
    status: { pauseConditions: null },
    message: "rollout 'web' promoted",
  });
});

test('promote skips the current step when not paused and mid-steps', () => {
  const running = rollout({
    ...pausedStatus,
    phase: 'Progressing',
    pauseConditions: undefined,
    currentStepIndex: 2,
  });
  assert.deepEqual(decidePromote(running, { full: false }), {
    kind: 'patch',
    status: { currentStepIndex: 3 },
    message: "rollout 'web' promoted",
  });
});

test('promote --full asks for full promotion and clears pauses', () => {
  assert.deepEqual(decidePromote(rollout(pausedStatus), { full: true }), {
    kind: 'patch',
    status: { promoteFull: true, pauseConditions: null },
    message: "rollout 'web' fully promoted",
  });
  const asked = decidePromote(rollout({ ...pausedStatus, promoteFull: true }), { full: true });
  assert.equal(asked.kind, 'noop');
});

test('promote of a fully promoted rollout says so and succeeds', () => {
  for (const full of [false, true]) {
    assert.deepEqual(decidePromote(rollout(promoted), { full }), {
      kind: 'noop',
      message: "rollout 'web' is already fully promoted",
    });
  }
  const noSteps = rollout(
    { ...promoted, currentStepIndex: undefined },
    { strategy: { canary: {} } },
  );
  assert.equal(decidePromote(noSteps, { full: false }).kind, 'noop');
});

test('promote refuses a rollout paused in Git (spec.paused)', () => {
  for (const full of [false, true]) {
    const d = decidePromote(rollout(pausedStatus, { paused: true }), { full });
    assert.equal(d.kind, 'error');
    assert.match(
      d.message,
      /paused in Git \(spec\.paused: true\) and cannot be promoted from the plugin/,
    );
  }
});

test('promote refuses an aborted rollout (retry or --full instead)', () => {
  const d = decidePromote(rollout({ ...pausedStatus, abort: true, pauseConditions: [] }), {
    full: false,
  });
  assert.equal(d.kind, 'error');
  assert.match(d.message, /is aborted; use 'kubectl stepwise retry rollout web'.* --full/);
  assert.equal(
    decidePromote(rollout({ ...pausedStatus, abort: true }), { full: true }).kind,
    'patch',
  );
});

test('an aborted rollout with an approval step ahead is not pointed at --full (the status policy refuses it)', () => {
  const gated = rollout(
    { ...pausedStatus, abort: true, pauseConditions: [] },
    { strategy: { canary: { steps: [{ setWeight: 20 }, { approval: {} }, { setWeight: 50 }] } } },
  );
  const d = decidePromote(gated, { full: false });
  assert.equal(d.kind, 'error');
  assert.match(d.message, /is aborted; use 'kubectl stepwise retry rollout web' to restart/);
  assert.doesNotMatch(d.message, /--full/);
});

test('promote with nothing to do explains; an unobserved spec asks to wait', () => {
  const noSteps = rollout(
    { phase: 'Progressing', currentPodHash: 'new', stableRS: 'old' },
    { strategy: { canary: {} } },
  );
  assert.match(
    decidePromote(noSteps, { full: false }).message,
    /no step left to skip; use .*--full/,
  );
  const stale = rollout({ ...promoted, observedGeneration: '1' });
  const d = decidePromote(stale, { full: false });
  assert.equal(d.kind, 'error');
  assert.match(d.message, /has not yet observed the latest spec/);
});

test('abort sets abort: true, once; a finished rollout has nothing to abort', () => {
  assert.deepEqual(decideAbort(rollout(pausedStatus)), {
    kind: 'patch',
    status: { abort: true },
    message: "rollout 'web' aborted",
  });
  assert.equal(decideAbort(rollout({ ...pausedStatus, abort: true })).kind, 'noop');
  assert.equal(decideAbort(rollout(promoted)).kind, 'error');
  // a new spec not yet observed: the status is stale, abort is allowed
  assert.equal(decideAbort(rollout({ ...promoted, observedGeneration: '1' })).kind, 'patch');
});

test('retry sets abort: false only when aborted', () => {
  assert.deepEqual(decideRetry(rollout({ ...pausedStatus, abort: true })), {
    kind: 'patch',
    status: { abort: false },
    message: "rollout 'web' retried",
  });
  const d = decideRetry(rollout(pausedStatus));
  assert.equal(d.kind, 'error');
  assert.match(d.message, /is not aborted/);
});

test('pause adds a person’s pause condition beside the controller’s; twice is a no-op', () => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  const d = decidePause(rollout(pausedStatus), now);
  assert.equal(d.kind, 'patch');
  assert.deepEqual(d.kind === 'patch' && d.status.pauseConditions?.map((c) => c.reason), [
    ...(pausedStatus.pauseConditions ?? []).map((c) => c.reason),
    'PausedByUser',
  ]);
  const held = rollout({
    ...pausedStatus,
    pauseConditions: [{ reason: 'PausedByUser', startTime: '2026-12-01T09:00:00Z' }],
  });
  assert.equal(decidePause(held, now).kind, 'noop');
  assert.match(decidePromote(held, { full: false }).message, /use 'kubectl stepwise resume web'/);
});

test('resume takes only the person’s pause back, and says what holds a rollout it did not pause', () => {
  const both = rollout({
    ...pausedStatus,
    pauseConditions: [
      { reason: 'CanaryPauseStep', startTime: '2026-12-01T09:00:00Z' },
      { reason: 'PausedByUser', startTime: '2026-12-01T09:30:00Z' },
    ],
  });
  assert.deepEqual(decideResume(both), {
    kind: 'patch',
    status: { pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-12-01T09:00:00Z' }] },
    message: "rollout 'web' resumed",
  });
  const atStep = decideResume(rollout(pausedStatus));
  assert.equal(atStep.kind, 'error');
  assert.match(atStep.message, /waits at a step .*use 'kubectl stepwise promote web'/);
});
