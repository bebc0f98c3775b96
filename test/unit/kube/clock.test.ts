/**
 * Timers longer than setTimeout can hold (2^31−1 ms, 24.8 days): a 720 h pause or a `restartAt`
 * years ahead must wait, not spin. The real clock for the overflow (no warning, no early call);
 * a fake clock for the re-arming.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMER_MS, systemClock, withCappedTimers } from '../../../src/kube/clock.ts';
import { RateLimitingQueue } from '../../../src/kube/workqueue.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';

const HOURS_720 = 720 * 3600_000;

/** Collects process warnings while `fn` runs and a few event-loop turns after. */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error): void => void seen.push(w.name);
  process.on('warning', onWarning);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 20)); // warnings are emitted on a later tick
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

describe('systemClock: delays past 2^31−1 ms', () => {
  test('a 720 h timer emits no TimeoutOverflowWarning and does not fire early', async () => {
    let fired = 0;
    let cancel = (): void => undefined;
    const warnings = await warningsDuring(async () => {
      cancel = systemClock.after(HOURS_720, () => fired++);
      // A clamped timer would fire after 1 ms; give it many chances.
      await new Promise((r) => setTimeout(r, 50));
    });
    cancel();
    assert.deepEqual(warnings, []);
    assert.equal(fired, 0);
  });

  test('a real work queue holding a key for 720 h stays quiet', async () => {
    const q = new RateLimitingQueue<string>();
    const warnings = await warningsDuring(async () => {
      q.addAfter('ns/paused', HOURS_720);
      await new Promise((r) => setTimeout(r, 50));
    });
    assert.deepEqual(warnings, []);
    assert.equal(q.len(), 0, 'the key is not ready');
    await q.shutDown();
  });

  test('delays within the cap are unchanged', async () => {
    const start = Date.now();
    await new Promise<void>((r) => systemClock.after(30, r));
    assert.ok(Date.now() - start >= 29);
  });
});

describe('withCappedTimers: re-arming', () => {
  test('a long delay is armed in capped steps and fires exactly at its deadline', () => {
    const raw = new FakeClock();
    const clock = withCappedTimers(raw, 1000);
    const start = raw.now();
    const fired: number[] = [];
    clock.after(3500, () => fired.push(raw.now() - start));
    assert.deepEqual(raw.pendingDelays(), [1000]);
    raw.advance(3499);
    assert.deepEqual(fired, []);
    assert.deepEqual(raw.pendingDelays(), [1]);
    raw.advance(1);
    assert.deepEqual(fired, [3500]);
    assert.equal(raw.pending(), 0);
  });

  test('cancel works between steps', () => {
    const raw = new FakeClock();
    const clock = withCappedTimers(raw, 1000);
    let fired = false;
    const cancel = clock.after(5000, () => (fired = true));
    raw.advance(2500);
    cancel();
    assert.equal(raw.pending(), 0);
    raw.advance(10_000);
    assert.equal(fired, false);
  });

  test('the default cap is setTimeout’s limit', () => {
    const raw = new FakeClock();
    withCappedTimers(raw).after(HOURS_720, () => undefined);
    assert.deepEqual(raw.pendingDelays(), [MAX_TIMER_MS]);
  });

  test('the work queue never arms a timer past the cap, and releases the key on time', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addAfter('ns/paused', HOURS_720);
    assert.deepEqual(clock.pendingDelays(), [MAX_TIMER_MS]);
    clock.advance(HOURS_720 - 1);
    assert.equal(q.len(), 0);
    clock.advance(1);
    await flush();
    assert.equal(await q.get(), 'ns/paused');
    await q.shutDown();
  });
});
