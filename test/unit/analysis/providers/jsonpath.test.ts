// The web provider's JSONPath: what Argo users write, own properties only, clear refusals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readJsonPath } from '../../../../src/analysis/providers/index.ts';

const doc = {
  data: { ok: true, rate: 0.97, 'key.with.dots': 'x' },
  items: [{ v: 1 }, { v: 2 }, { w: 3 }],
  list: [10, 20, 30],
};

describe('JSONPath reads', () => {
  const rows: readonly [string, unknown][] = [
    ['{$}', doc],
    ['{ $ }', doc],
    ['{$.data.rate}', 0.97],
    ['{.data.ok}', true],
    ['{$.items[1].v}', 2],
    ['{$.list[-1]}', 30],
    ["{$.data['key.with.dots']}", 'x'],
    ['{$["data"]["rate"]}', 0.97],
    ['{$.items[*].v}', [1, 2]],
    ['{$.list[*]}', [10, 20, 30]],
  ];
  for (const [path, want] of rows) {
    it(path, () => assert.deepEqual(readJsonPath(path, doc), { ok: true, value: want }));
  }
});

describe('JSONPath refusals', () => {
  const rows: readonly [string, RegExp][] = [
    ['{$.data.missing}', /found nothing/],
    ['{$.list[7]}', /found nothing/],
    ['{$.data.rate.constructor}', /found nothing/],
    ['{$.__proto__}', /found nothing/],
    ['{$.data.toString}', /found nothing/],
    ['$.data', /wrapped in braces/],
    ['{data}', /must start with \$ or \./],
    ['{$.items[?(@.v > 1)]}', /cannot read/],
    ['{$..v}', /cannot read/],
    [`{$${'.a'.repeat(300)}}`, /longer than 512/],
  ];
  for (const [path, why] of rows) {
    it(path.slice(0, 40), () => {
      const r = readJsonPath(path, doc);
      assert.ok(!r.ok && why.test(r.error), JSON.stringify(r));
    });
  }
});
