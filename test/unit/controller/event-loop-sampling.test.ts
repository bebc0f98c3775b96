// The event-loop delay is sampled (a wake-up a second) only while the controller works and for
// SAMPLE_AFTER_WORK_MS after: an idle controller's one periodic wake-up was most of its idle CPU.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import {
  processMetrics,
  SAMPLE_AFTER_WORK_MS,
  SamplingWhileBusy,
  type Sampler,
} from '../../../src/controller/event-loop-metrics.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

/** A sampler that records each switch. */
function recorder(): Sampler & { switches: string[] } {
  const switches: string[] = [];
  return {
    switches,
    enable: () => (switches.push('on'), true),
    disable: () => (switches.push('off'), true),
  };
}

describe('sampling the event-loop delay while busy', () => {
  it('samples from start-up and pauses once nothing happened for the idle period', () => {
    const clock = new FakeClock();
    const sampler = recorder();
    const busy = new SamplingWhileBusy({ sampler, clock, idleMs: 30_000 });
    assert.equal(busy.sampling, true);
    clock.advance(29_999);
    assert.equal(busy.sampling, true);
    clock.advance(1);
    assert.equal(busy.sampling, false);
    assert.deepEqual(sampler.switches, ['on', 'off']);
    assert.equal(clock.pending(), 0, 'a paused sampler arms no timer');
  });

  it('keeps sampling while work goes on, with one timer however much work there is', () => {
    const clock = new FakeClock();
    const sampler = recorder();
    const busy = new SamplingWhileBusy({ sampler, clock, idleMs: 30_000 });
    for (let i = 0; i < 100; i++) {
      clock.advance(20_000);
      busy.noteActivity();
      assert.equal(clock.pending(), 1);
    }
    assert.equal(busy.sampling, true);
    clock.advance(29_999);
    assert.equal(busy.sampling, true);
    clock.advance(1);
    assert.equal(busy.sampling, false);
    assert.deepEqual(sampler.switches, ['on', 'off']);
  });

  it('resumes at once when work comes after a pause', () => {
    const clock = new FakeClock();
    const sampler = recorder();
    const busy = new SamplingWhileBusy({ sampler, clock, idleMs: 30_000 });
    clock.advance(60_000);
    busy.noteActivity();
    assert.equal(busy.sampling, true);
    clock.advance(30_000);
    assert.deepEqual(sampler.switches, ['on', 'off', 'on', 'off']);
  });

  it('stops for good at shutdown: later work turns nothing back on', () => {
    const clock = new FakeClock();
    const sampler = recorder();
    const busy = new SamplingWhileBusy({ sampler, clock, idleMs: 30_000 });
    busy.stop();
    busy.noteActivity();
    assert.equal(busy.sampling, false);
    assert.equal(clock.pending(), 0);
    assert.deepEqual(sampler.switches, ['on', 'off']);
  });
});

describe('the event-loop lag family while sampling is paused', () => {
  it('is still served, reading 0 delay, and sampling resumes with work', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const activity = processMetrics(registry, 1000, clock);
    assert.equal(activity.sampling, true);
    clock.advance(SAMPLE_AFTER_WORK_MS);
    assert.equal(activity.sampling, false);
    await registry.metrics(); // any sample taken before the pause is read here
    const text = await registry.metrics();
    for (const figure of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
      assert.match(text, new RegExp(`^nodejs_eventloop_lag_${figure}_seconds 0$`, 'm'));
    }
    activity.noteActivity();
    assert.equal(activity.sampling, true);
    activity.stop();
  });
});
