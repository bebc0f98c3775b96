import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiStatusError, KubeTransportError } from '../../../src/kube/errors.ts';
import { Informer, type InformerOptions } from '../../../src/kube/informer.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';
import { FakeListWatch, gone, obj, type TestObj } from '../../fixtures/kube/fake-listwatch.ts';

const MIN = 60_000;

function setup(opts: Partial<InformerOptions<TestObj>> = {}) {
  const clock = new FakeClock();
  const source = new FakeListWatch<TestObj>();
  const calls: string[] = [];
  const informer = new Informer<TestObj>({ source, clock, random: () => 0, ...opts });
  informer.addEventHandler({
    onAdd: (o) => calls.push(`add ${o.metadata?.name} ${o.metadata?.resourceVersion}`),
    onUpdate: (a, b) =>
      calls.push(
        `update ${b.metadata?.name} ${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`,
      ),
    onDelete: (o) => calls.push(`delete ${o.metadata?.name}`),
  });
  const start = async () => {
    informer.start();
    await flush();
  };
  return { clock, source, informer, calls, start };
}

describe('informer: list, sync, watch', () => {
  test('lists in pages, syncs, then watches from the list resourceVersion with bookmarks', async () => {
    const { source, informer, calls, start } = setup({ pageSize: 2 });
    source.objects = ['a', 'b', 'c', 'd', 'e'].map((n, i) => obj('ns', n, String(10 + i)));
    source.listRv = '42';
    assert.equal(informer.hasSynced(), false);
    await start();
    assert.equal(await informer.synced, true);
    assert.equal(informer.hasSynced(), true);
    assert.deepEqual(
      source.listCalls.map((c) => [c.limit, c.continue]),
      [
        [2, undefined],
        [2, '2'],
        [2, '4'],
      ],
    );
    assert.equal(informer.size, 5);
    assert.equal(calls.length, 5);
    const w = source.current;
    assert.ok(w);
    assert.equal(w.opts.resourceVersion, '42');
    assert.equal(w.opts.allowWatchBookmarks, true);
    assert.equal(w.opts.timeoutSeconds, 300);
    await informer.stop();
  });

  test('the server timeout is jittered between 5 and 10 minutes', async () => {
    const { source, informer, start } = setup({ random: () => 0.5 });
    await start();
    assert.equal(source.current?.opts.timeoutSeconds, 450);
    await informer.stop();
  });

  test('add, update (only on a new resourceVersion) and delete', async () => {
    const { source, informer, calls, start } = setup();
    source.objects = [obj('ns', 'a', '1')];
    await start();
    const w = source.current!;
    w.emit({ type: 'ADDED', object: obj('ns', 'b', '2') });
    w.emit({ type: 'MODIFIED', object: obj('ns', 'a', '3') });
    w.emit({ type: 'MODIFIED', object: obj('ns', 'a', '3') });
    w.emit({ type: 'DELETED', object: obj('ns', 'b', '4') });
    assert.deepEqual(calls, ['add a 1', 'add b 2', 'update a 1->3', 'delete b']);
    assert.equal(informer.get('ns/b'), undefined);
    assert.equal(informer.get('ns/a')?.metadata?.resourceVersion, '3');
    assert.equal(informer.lastResourceVersion(), '4');
    await informer.stop();
  });

  test('a bookmark moves the resourceVersion only; a server close re-watches from it, no LIST', async () => {
    const { source, informer, calls, start } = setup();
    await start();
    source.current!.bookmark('500');
    assert.deepEqual(calls, []);
    assert.equal(informer.lastResourceVersion(), '500');
    source.current!.close();
    await flush();
    assert.equal(source.watches.length, 2);
    assert.equal(source.current?.opts.resourceVersion, '500');
    assert.equal(source.listCalls.length, 1);
    await informer.stop();
  });

  test('an idle hour with bookmarks and server timeouts makes no LIST after sync', async () => {
    const { clock, source, informer, start } = setup();
    await start();
    for (let m = 1; m <= 60; m++) {
      await clock.tick(MIN);
      source.current!.bookmark(String(1000 + m));
      if (m % 7 === 0) source.current!.close();
      await flush();
    }
    assert.equal(source.listCalls.length, 1);
    assert.equal(informer.stats.watchdogRestarts, 0);
    assert.equal(source.current?.opts.resourceVersion, '1056', 'last re-watch from the bookmark');
    assert.equal(informer.lastResourceVersion(), '1060');
    assert.equal(source.watches.length, 9);
    await informer.stop();
  });
});

describe('informer: 410 Gone', () => {
  test('an ERROR event with code 410 re-lists; objects missing from the new list are deleted', async () => {
    const { source, informer, calls, start } = setup();
    source.objects = [obj('ns', 'a', '1'), obj('ns', 'b', '2')];
    await start();
    const first = source.current!;
    source.objects = [obj('ns', 'a', '7'), obj('ns', 'c', '8')];
    source.listRv = '200';
    first.emit({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    await flush();
    assert.equal(first.aborted, true);
    assert.equal(source.listCalls.length, 2);
    assert.deepEqual(calls.slice(2), ['update a 1->7', 'add c 8', 'delete b']);
    assert.equal(source.current?.opts.resourceVersion, '200');
    assert.equal(informer.stats.relistsAfterGone, 1);
    await informer.stop();
  });

  test('an HTTP 410 when the watch starts re-lists at once', async () => {
    const { source, informer, start } = setup();
    source.watchErrors.push(gone());
    await start();
    assert.equal(source.listCalls.length, 2);
    assert.ok(source.current);
    await informer.stop();
  });

  test('a watch that ends with 410 re-lists', async () => {
    const { source, informer, start } = setup();
    await start();
    source.current!.close(gone());
    await flush();
    assert.equal(source.listCalls.length, 2);
    await informer.stop();
  });

  test('an expired continue token restarts with one unpaged LIST', async () => {
    const { source, informer, start } = setup({ pageSize: 1 });
    source.objects = [obj('ns', 'a', '1'), obj('ns', 'b', '2')];
    source.expireContinue = true;
    await start();
    assert.deepEqual(
      source.listCalls.map((c) => [c.limit, c.continue]),
      [
        [1, undefined],
        [1, '1'],
        [undefined, undefined],
      ],
    );
    assert.equal(informer.size, 2);
    await informer.stop();
  });
});

describe('informer: watchdog', () => {
  test('a watch silent for 3 minutes is restarted from the last resourceVersion, no LIST', async () => {
    const { clock, source, informer, start } = setup();
    await start();
    const first = source.current!;
    first.bookmark('300');
    await clock.tick(3 * MIN - 1);
    assert.equal(source.watches.length, 1);
    await clock.tick(1);
    assert.equal(first.aborted, true);
    assert.equal(source.watches.length, 2);
    assert.equal(source.current?.opts.resourceVersion, '300');
    assert.equal(source.listCalls.length, 1);
    assert.equal(informer.stats.watchdogRestarts, 1);
    await informer.stop();
  });

  test('activity pushes the deadline back', async () => {
    const { clock, source, informer, start } = setup();
    await start();
    await clock.tick(2 * MIN);
    source.current!.bookmark('301');
    await clock.tick(2 * MIN);
    assert.equal(source.watches.length, 1, 'not at 3 min: a bookmark came at 2 min');
    await clock.tick(MIN);
    assert.equal(source.watches.length, 2, 'restarted at 5 min');
    await informer.stop();
  });

  test('the threshold is configurable', async () => {
    const { clock, source, informer, start } = setup({ watchdogMs: 10_000 });
    await start();
    await clock.tick(10_000);
    assert.equal(source.watches.length, 2);
    await informer.stop();
  });
});

describe('informer: errors and backoff', () => {
  test('a failing LIST is retried with backoff, then syncs', async () => {
    const { clock, source, informer, start } = setup();
    source.listErrors.push(new KubeTransportError('refused'), new KubeTransportError('refused'));
    await start();
    assert.equal(informer.hasSynced(), false);
    assert.deepEqual(clock.pendingDelays(), [400]); // 800 ms, equal jitter with random 0
    await clock.tick(400);
    assert.deepEqual(clock.pendingDelays(), [800]);
    await clock.tick(800);
    assert.equal(informer.hasSynced(), true);
    assert.equal(source.listCalls.length, 3);
    await informer.stop();
  });

  test('backoff is capped at 2 s, so a long outage does not delay the return', async () => {
    const { clock, source, informer, start } = setup({ random: () => 0.999 });
    for (let i = 0; i < 20; i++) source.listErrors.push(new KubeTransportError('refused'));
    await start();
    let max = 0;
    for (let i = 0; i < 20; i++) {
      const d = clock.pendingDelays()[0] ?? 0;
      max = Math.max(max, d);
      await clock.tick(d);
    }
    assert.ok(max <= 2000 && max > 1900, `max backoff ${max}`);
    assert.equal(informer.hasSynced(), true);
    await informer.stop();
  });

  test('Retry-After is honoured', async () => {
    const { clock, source, informer, start } = setup();
    source.listErrors.push(apiStatusError(429, undefined, '7'));
    await start();
    assert.deepEqual(clock.pendingDelays(), [7000]);
    await informer.stop();
  });

  test('a broken watch backs off and re-watches from its resourceVersion, no LIST', async () => {
    const { clock, source, informer, start } = setup();
    await start();
    source.current!.bookmark('555');
    source.current!.close(new KubeTransportError('reset'));
    await flush();
    assert.equal(source.watches.length, 1);
    await clock.tick(400);
    assert.equal(source.watches.length, 2);
    assert.equal(source.current?.opts.resourceVersion, '555');
    assert.equal(source.listCalls.length, 1);
    await informer.stop();
  });

  test('a watch that cannot start (not 410) backs off', async () => {
    const { clock, source, informer, start } = setup();
    source.watchErrors.push(apiStatusError(500));
    await start();
    assert.equal(source.watches.length, 0);
    await clock.tick(400);
    assert.equal(source.watches.length, 1);
    assert.equal(source.listCalls.length, 1);
    await informer.stop();
  });

  test('watches the server closes at once with no events back off instead of spinning', async () => {
    const { clock, source, informer, start } = setup();
    await start();
    source.current!.close();
    await flush();
    assert.equal(source.watches.length, 1);
    assert.deepEqual(clock.pendingDelays(), [400]);
    await informer.stop();
  });

  test('a handler that throws does not stop the informer', async () => {
    const { source, informer, start } = setup();
    let seen = 0;
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('boom');
      },
    });
    informer.addEventHandler({ onAdd: () => seen++ });
    await start();
    source.current!.emit({ type: 'ADDED', object: obj('ns', 'x', '2') });
    assert.equal(seen, 1);
    assert.equal(informer.stats.handlerErrors, 1);
    assert.equal(informer.size, 1);
    await informer.stop();
  });
});

describe('informer: options and lifecycle', () => {
  test('periodic re-LIST is off by default and works when set', async () => {
    const off = setup();
    await off.start();
    await off.clock.tick(60 * MIN);
    assert.equal(off.source.listCalls.length, 1);
    await off.informer.stop();

    const on = setup({ relistIntervalMs: 10 * MIN, watchdogMs: 60 * MIN });
    await on.start();
    await on.clock.tick(10 * MIN);
    assert.equal(on.source.listCalls.length, 2);
    await on.informer.stop();
  });

  test('selectors go to LIST and WATCH', async () => {
    const { source, informer, start } = setup({
      labelSelector: 'app=x',
      fieldSelector: 'metadata.name=y',
    });
    await start();
    assert.equal(source.listCalls[0]?.labelSelector, 'app=x');
    assert.equal(source.listCalls[0]?.fieldSelector, 'metadata.name=y');
    assert.equal(source.current?.opts.labelSelector, 'app=x');
    assert.equal(source.current?.opts.fieldSelector, 'metadata.name=y');
    await informer.stop();
  });

  test('cached objects drop managedFields and are frozen', async () => {
    const { source, informer, start } = setup();
    source.objects = [
      { ...obj('ns', 'a', '1'), metadata: { namespace: 'ns', name: 'a', managedFields: [{}] } },
    ];
    await start();
    const a = informer.get('ns/a')!;
    assert.equal(a.metadata?.managedFields, undefined);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.metadata));
    await informer.stop();
  });

  test('indexes follow updates and deletes', async () => {
    const byApp = (o: TestObj) => [o.metadata?.labels?.['app'] ?? ''].filter(Boolean);
    const { source, informer, start } = setup({ indexers: { app: byApp } });
    source.objects = [obj('ns', 'a', '1', { labels: { app: 'x' } }), obj('ns', 'b', '1')];
    await start();
    assert.deepEqual(
      informer.byIndex('app', 'x').map((o) => o.metadata?.name),
      ['a'],
    );
    source.current!.emit({
      type: 'MODIFIED',
      object: obj('ns', 'a', '2', { labels: { app: 'y' } }),
    });
    assert.deepEqual(informer.byIndex('app', 'x'), []);
    assert.equal(informer.byIndex('app', 'y').length, 1);
    source.current!.emit({ type: 'DELETED', object: obj('ns', 'a', '3') });
    assert.deepEqual(informer.byIndex('app', 'y'), []);
    assert.throws(() => informer.byIndex('nope', 'x'));
    await informer.stop();
  });

  test('a handler added late gets the cached objects as adds', async () => {
    const { source, informer, start } = setup();
    source.objects = [obj('ns', 'a', '1')];
    await start();
    const late: string[] = [];
    const off = informer.addEventHandler({ onAdd: (o) => late.push(o.metadata?.name ?? '') });
    assert.deepEqual(late, ['a']);
    off();
    source.current!.emit({ type: 'ADDED', object: obj('ns', 'b', '2') });
    assert.deepEqual(late, ['a']);
    await informer.stop();
  });

  test('stop ends the watch and leaves no timer; synced is false if it never synced', async () => {
    const a = setup();
    await a.start();
    const w = a.source.current!;
    await a.informer.stop();
    assert.equal(w.aborted, true);
    assert.equal(a.clock.pending(), 0);

    const b = setup();
    b.source.listErrors.push(new KubeTransportError('refused'));
    await b.start();
    await b.informer.stop();
    assert.equal(await b.informer.synced, false);
    assert.equal(b.clock.pending(), 0);
  });
});

describe('informer: back after an outage', () => {
  test('onResumed fires once when a watch starts again after failures, not on a healthy start', async () => {
    let resumed = 0;
    const { clock, source, informer, start } = setup({ onResumed: () => resumed++ });
    await start();
    assert.equal(resumed, 0, 'a first start is not a recovery');
    const refused = new KubeTransportError('refused');
    source.watchErrors.push(refused, refused, refused);
    source.current?.close(new KubeTransportError('connection reset'));
    for (let i = 0; i < 4; i++) await clock.tick(2000);
    assert.equal(source.watches.length, 2, 'three refused in between');
    assert.ok(source.current, 'the new watch is open');
    assert.equal(resumed, 1);
    source.current?.close(); // a normal server-side close: not an outage
    await clock.tick(2000);
    assert.equal(resumed, 1);
    await informer.stop();
  });

  test('onResumed fires when a LIST succeeds after failures', async () => {
    let resumed = 0;
    const { clock, source, informer, start } = setup({ onResumed: () => resumed++ });
    source.listErrors.push(new KubeTransportError('refused'));
    await start();
    assert.equal(resumed, 0);
    await clock.tick(2000);
    assert.equal(informer.hasSynced(), true);
    assert.equal(resumed, 1);
    await informer.stop();
  });
});
