// orderWrites: the safety order of a pass's writes, stated once in WRITE_ORDER. Each row is
// named for the rule it pins; writes are stand-ins named after their stage.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Reason } from '../../../src/api/index.ts';
import type { RolloutStatus } from '../../../src/api/index.ts';
import { WRITE_ORDER, orderWrites, requeueAfter } from '../../../src/rollout/order.ts';
import type { Fragment, Stage } from '../../../src/rollout/order.ts';
import type { Write } from '../../../src/rollout/types.ts';

/** A stand-in write named `name` (what it is does not matter to the order). */
const w = (name: string): Write => ({ kind: 'evictPod', name });
const ev = (message: string): Write => ({
  kind: 'event',
  type: 'Normal',
  reason: Reason.RolloutUpdated,
  message,
});
const at = (stage: Stage, ...names: string[]): Fragment => ({
  writes: { [stage]: names.map(w) },
});
const STATUS: RolloutStatus = { phase: 'Progressing' };

/** What came out, as names: `status` for the status write, `event:<message>`, else the name. */
function names(writes: readonly Write[]): string[] {
  return writes.map((x) =>
    x.kind === 'applyStatus'
      ? 'status'
      : x.kind === 'event'
        ? `event:${x.message}`
        : 'name' in x
          ? x.name
          : x.kind,
  );
}

/** The names `orderWrites` puts out; `status` undefined means the status is unchanged. */
function order(fragments: Fragment[], status?: RolloutStatus, refused = false): string[] {
  return names(orderWrites({ fragments, status, refused }));
}

describe('orderWrites', () => {
  const rows: [string, Fragment[], string[]][] = [
    [
      'less traffic to the canary goes before any pod is scaled',
      [at('scaleUp', 'up'), at('scaleDown', 'down'), at('trafficDown', 'less')],
      ['less', 'up', 'down', 'status'],
    ],
    [
      'every scale-up before any scale-down, whichever part decided it',
      [at('scaleDown', 'old-down'), at('scaleUp', 'stable-up'), at('scaleUp', 'canary-up')],
      ['stable-up', 'canary-up', 'old-down', 'status'],
    ],
    [
      'more traffic to the canary only after the scale-ups it needs',
      [at('trafficUp', 'more'), at('scaleUp', 'up')],
      ['up', 'more', 'status'],
    ],
    [
      'an event describing a child write stays right after it',
      [{ writes: { scaleUp: [w('create'), ev('created')] } }, at('trafficDown', 'less')],
      ['less', 'create', 'event:created', 'status'],
    ],
    [
      'the children in WRITE_ORDER, then the status',
      [...WRITE_ORDER].reverse().map((stage) => at(stage, stage)),
      [...WRITE_ORDER, 'status'],
    ],
    [
      'events after the status they describe, in the order their parts ran',
      [{ events: [ev('updated')] }, at('services', 'svc'), { events: [ev('step'), ev('paused')] }],
      ['svc', 'status', 'event:updated', 'event:step', 'event:paused'],
    ],
    [
      'approval answers last, after the events',
      [{ answers: [w('answer')] }, { events: [ev('recorded')] }, at('evictions', 'evict')],
      ['evict', 'status', 'event:recorded', 'answer'],
    ],
  ];
  for (const [name, fragments, expected] of rows) {
    it(name, () => assert.deepEqual(order(fragments, STATUS), expected));
  }

  it('status unchanged: no status write and no events, the rest as ever', () => {
    const fragments = [at('scaleUp', 'up'), { events: [ev('e')], answers: [w('answer')] }];
    assert.deepEqual(order(fragments, undefined), ['up', 'answer']);
  });

  it('a refused ReplicaSet write: no child writes, status and events and answers still', () => {
    const fragments = [at('scaleUp', 'up'), at('trafficDown', 'less'), { events: [ev('e')] }];
    assert.deepEqual(order([...fragments, { answers: [w('answer')] }], STATUS, true), [
      'status',
      'event:e',
      'answer',
    ]);
  });

  it('nothing decided, status unchanged: no writes (the idle controller is silent)', () => {
    assert.deepEqual(order([{}, {}], undefined), []);
  });
});

describe('requeueAfter', () => {
  it('is the earliest time of any part, from now', () => {
    assert.equal(
      requeueAfter([{ requeueAt: [5_000, 9_000] }, {}, { requeueAt: [3_000] }], 1_000),
      2_000,
    );
  });
  it('is 0 for a time already past', () => {
    assert.equal(requeueAfter([{ requeueAt: [500] }], 1_000), 0);
  });
  it('is undefined when no part needs a timer', () => {
    assert.equal(requeueAfter([{}, { requeueAt: [] }], 1_000), undefined);
  });
});
