// Read your writes: after our write, a cache that still shows a version the write replaced is
// stale (the pass is deferred or goes on from what the server answered); any other version is
// fresh and clears the expectation; an expectation never outlives its TTL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPECTATION_TTL_MS, Expectations } from '../../../src/controller/expectations.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

describe('Expectations', () => {
  it('detects a stale cache: it still shows the version our write replaced', () => {
    const e = new Expectations<string>(new FakeClock());
    e.expect('ns/web', ['7'], '8');
    const stale = e.stale('ns/web', '7');
    assert.equal(stale?.written, '8');
    assert.deepEqual([...(stale?.replaced ?? [])], ['7']);
    assert.ok(e.stale('ns/web', '7'), 'still stale on the next look: the pass stays deferred');
  });

  it('lets a fresh cache proceed, and forgets the expectation', () => {
    const e = new Expectations<string>(new FakeClock());
    e.expect('ns/web', ['7'], '8');
    assert.equal(e.stale('ns/web', '8'), undefined, 'our write arrived');
    assert.equal(e.stale('ns/web', '7'), undefined, 'forgotten once the cache caught up');
    e.expect('ns/web', ['8'], '9');
    assert.equal(e.stale('ns/web', '12'), undefined, 'someone else’s newer write is fresh too');
  });

  it('expects nothing of an object it has not written', () => {
    const e = new Expectations<string>(new FakeClock());
    assert.equal(e.stale('ns/web', '7'), undefined);
    assert.equal(e.stale('ns/web', undefined), undefined);
  });

  it('lets an expectation expire: a write the watch never delivers does not hold the object', () => {
    const clock = new FakeClock();
    const e = new Expectations<string>(clock);
    e.expect('ns/web', ['7'], '8');
    clock.advance(EXPECTATION_TTL_MS - 1);
    assert.ok(e.stale('ns/web', '7'), 'stale until the TTL');
    clock.advance(1);
    assert.equal(e.stale('ns/web', '7'), undefined, 'expired: the pass proceeds');
    assert.equal(e.peek('ns/web', '7'), undefined);
  });

  it('peeks without forgetting, and forgets the children of a deleted owner', () => {
    const e = new Expectations<string>(new FakeClock(), 1_000);
    e.expect('ns/web', ['1', '2'], '3');
    assert.equal(e.peek('ns/web', '3'), undefined);
    assert.ok(e.peek('ns/web', '2'), 'a fresh peek did not forget');
    e.expect('ns/web-abc', ['4'], '5');
    e.expect('ns/other-abc', ['4'], '5');
    e.forgetWhere((k) => k.startsWith('ns/web-'));
    assert.equal(e.stale('ns/web-abc', '4'), undefined);
    assert.ok(e.stale('ns/other-abc', '4'));
    e.forget('ns/web');
    assert.equal(e.stale('ns/web', '2'), undefined);
  });
});
