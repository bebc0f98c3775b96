// The quiet-period timer both the event-loop sampling and the memory reclaim hang on: called
// once idleMs after the last activity, never during a burst, with one timer however many events.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QuietPeriod } from '../../../src/controller/quiet-period.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

function harness() {
  const clock = new FakeClock();
  const quietAt: number[] = [];
  const quiet = new QuietPeriod({
    clock,
    idleMs: 10_000,
    onQuiet: () => quietAt.push(clock.now()),
  });
  return { clock, quiet, quietAt };
}

describe('QuietPeriod', () => {
  it('is quiet idleMs after the last activity, once, and keeps no timer afterwards', async () => {
    const h = harness();
    const start = h.clock.now();
    h.quiet.noteActivity();
    await h.clock.tick(9_999);
    assert.deepEqual(h.quietAt, [], 'not before idleMs');
    await h.clock.tick(1);
    assert.deepEqual(h.quietAt, [start + 10_000]);
    await h.clock.tick(600_000);
    assert.equal(h.quietAt.length, 1, 'once per quiet period');
    assert.equal(h.clock.pending(), 0, 'nothing armed while nothing happens');
  });

  it('counts from the last of a burst, with at most one timer', async () => {
    const h = harness();
    const start = h.clock.now();
    for (let t = 0; t < 30; t++) {
      for (let i = 0; i < 100; i++) h.quiet.noteActivity();
      assert.ok(h.clock.pending() <= 1, 'events do not arm timers');
      await h.clock.tick(1000);
    }
    assert.deepEqual(h.quietAt, [], 'never during the burst');
    await h.clock.tick(9_000);
    assert.deepEqual(h.quietAt, [start + 29_000 + 10_000], 'idleMs after the last event');
  });

  it('starts a new period on activity after a quiet one', async () => {
    const h = harness();
    h.quiet.noteActivity();
    await h.clock.tick(10_000);
    h.quiet.noteActivity();
    await h.clock.tick(10_000);
    assert.equal(h.quietAt.length, 2);
  });

  it('calls nothing after stop(), and arms nothing', async () => {
    const h = harness();
    h.quiet.noteActivity();
    h.quiet.stop();
    h.quiet.noteActivity();
    await h.clock.tick(60_000);
    assert.deepEqual(h.quietAt, []);
    assert.equal(h.clock.pending(), 0);
  });
});
