// The benches run the controller as the Deployment does: its NODE_OPTIONS and its other literal
// env values, read from deploy/controller/controller.yaml, each replaceable to compare others.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commandLine, heapLimitMb, productionRuntime } from '../../bench/controller-support.ts';

describe('the production runtime the benches use', () => {
  it('is the Deployment’s: its V8 heap flag and two malloc arenas; the downward API is not', async () => {
    const runtime = await productionRuntime({});
    assert.deepEqual(runtime.nodeFlags, ['--max-old-space-size=384']);
    assert.deepEqual(runtime.env, { MALLOC_ARENA_MAX: '2' });
    assert.equal(heapLimitMb(runtime), 384);
    assert.equal(
      commandLine(runtime, 'dist/bundle/controller.mjs', ['--qps=50']),
      'MALLOC_ARENA_MAX=2 node --max-old-space-size=384 dist/bundle/controller.mjs --qps=50',
    );
  });

  it('BENCH_NODE_FLAGS and BENCH_<NAME> replace a value, "" drops it', async () => {
    const other = await productionRuntime({
      BENCH_NODE_FLAGS: '--max-old-space-size=256 --max-semi-space-size=1',
      BENCH_MALLOC_ARENA_MAX: '8',
    });
    assert.deepEqual(other.nodeFlags, ['--max-old-space-size=256', '--max-semi-space-size=1']);
    assert.deepEqual(other.env, { MALLOC_ARENA_MAX: '8' });
    const none = await productionRuntime({ BENCH_NODE_FLAGS: '', BENCH_MALLOC_ARENA_MAX: '' });
    assert.deepEqual(none, { nodeFlags: [], env: {} });
    assert.equal(heapLimitMb(other), 256);
    assert.equal(heapLimitMb(none), undefined);
  });
});
