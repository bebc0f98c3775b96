// Idle-time memory reclaim: one memory-reducing collection per quiet period, never while work
// goes on, never when nothing grew, and a failure that turns it off instead of crashing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics } from 'node:v8';
import {
  MemoryReclaimer,
  MIN_GROWTH_BYTES,
  v8Reclaim,
  worthReclaiming,
} from '../../../src/controller/memory-reclaim.ts';
import type { Logger } from '../../../src/kube/log.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

const MB = 2 ** 20;

describe('worthReclaiming', () => {
  const base = { rssBytes: 200 * MB, rssAfterLastReclaim: 100 * MB, minGrowthBytes: 8 * MB };
  for (const [name, change, want] of [
    ['grown since the last reclaim: reclaim', {}, true],
    ['grown less than the minimum: skip', { rssBytes: 107 * MB }, false],
    ['shrunk since the last reclaim: skip', { rssBytes: 90 * MB }, false],
    ['exactly the minimum: reclaim', { rssBytes: 108 * MB }, true],
    ['never reclaimed: any real process has grown', { rssAfterLastReclaim: 0 }, true],
  ] as const) {
    it(name, () => assert.equal(worthReclaiming({ ...base, ...change }), want));
  }
});

function harness(opts: { rss?: number[]; failWith?: Error } = {}) {
  const clock = new FakeClock();
  const rssSeries = [...(opts.rss ?? [])];
  let rss = 300 * MB;
  const collected: number[] = [];
  const warnings: string[] = [];
  const reclaimed: number[] = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg) => warnings.push(msg),
    error: (msg) => warnings.push(msg),
  };
  const reclaimer = new MemoryReclaimer({
    clock,
    idleMs: 10_000,
    log,
    rss: () => rssSeries.shift() ?? rss,
    collect: () => {
      collected.push(clock.now());
      if (opts.failWith) return Promise.reject(opts.failWith);
      rss = 100 * MB;
      return Promise.resolve();
    },
    onReclaimed: (_s, freed) => reclaimed.push(freed),
  });
  return {
    clock,
    reclaimer,
    collected,
    warnings,
    reclaimed,
    grow: (to: number) => {
      rss = to;
    },
  };
}

describe('MemoryReclaimer', () => {
  it('reclaims once, idleMs after start-up, and reports what it gave back', async () => {
    const h = harness();
    h.reclaimer.start();
    await h.clock.tick(9_999);
    assert.equal(h.collected.length, 0, 'not before idleMs');
    await h.clock.tick(1);
    assert.equal(h.collected.length, 1);
    assert.deepEqual(h.reclaimed, [200 * MB]);
    await h.clock.tick(600_000);
    assert.equal(h.collected.length, 1, 'a quiet controller does it once');
    assert.equal(h.clock.pending(), 0, 'and keeps no timer while nothing happens');
  });

  it('waits while work goes on, with one timer however many events arrive', async () => {
    const h = harness();
    h.reclaimer.start();
    for (let t = 0; t < 60; t++) {
      for (let i = 0; i < 100; i++) h.reclaimer.noteActivity();
      assert.ok(h.clock.pending() <= 1, 'events do not arm timers');
      await h.clock.tick(1000);
    }
    assert.equal(h.collected.length, 0, 'never during a busy minute');
    await h.clock.tick(10_000);
    assert.equal(h.collected.length, 1, 'once the minute of work is over');
  });

  it('reclaims again after a new burst only when memory grew by the minimum', async () => {
    const h = harness();
    h.reclaimer.start();
    await h.clock.tick(10_000);
    h.grow(100 * MB + MIN_GROWTH_BYTES - 1);
    h.reclaimer.noteActivity();
    await h.clock.tick(20_000);
    assert.equal(h.collected.length, 1, 'too little to gain: skipped');
    h.grow(180 * MB);
    h.reclaimer.noteActivity();
    await h.clock.tick(20_000);
    assert.equal(h.collected.length, 2, 'a burst that grew the heap is given back');
  });

  it('stops after a failed collection with a warning, and the process goes on', async () => {
    const h = harness({ failWith: new Error('no gc here') });
    h.reclaimer.start();
    await h.clock.tick(10_000);
    assert.deepEqual(h.warnings, ['memory reclaim failed; not trying again']);
    h.reclaimer.noteActivity();
    await h.clock.tick(60_000);
    assert.equal(h.collected.length, 1, 'not retried');
  });

  it('does nothing after stop()', async () => {
    const h = harness();
    h.reclaimer.start();
    h.reclaimer.stop();
    h.reclaimer.noteActivity();
    await h.clock.tick(60_000);
    assert.equal(h.collected.length, 0);
    assert.equal(h.clock.pending(), 0);
  });
});

describe('v8Reclaim', () => {
  it("shrinks V8's young generation back after a burst of allocation", async () => {
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    const young = (): number => newSpace()?.space_size ?? NaN;
    const youngPhysical = (): number => newSpace()?.physical_space_size ?? NaN;
    // Objects that survive a few scavenges make V8 grow the young generation.
    let keep: object[] = [];
    for (let round = 0; round < 40; round++) {
      const batch = Array.from({ length: 50_000 }, (_, i) => ({ i, s: `x${i}` }));
      keep = keep.concat(batch.slice(0, 2000));
    }
    const grown = young();
    const grownPhysical = youngPhysical();
    await v8Reclaim()();
    const after = young();
    assert.ok(keep.length > 0);
    assert.ok(grown >= 16 * MB, `the burst grew the young generation, to ${grown} bytes`);
    // An ordinary major GC leaves both where they were: this is what tells the two apart.
    assert.ok(after <= 2 * MB, `shrunk to its minimum, got ${after} bytes`);
    assert.ok(
      youngPhysical() <= grownPhysical / 8,
      `its pages given back: ${grownPhysical} → ${youngPhysical()} bytes`,
    );
  });
});
