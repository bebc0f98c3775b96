import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mirror, Throttle, type Source } from '../../../src/cli/watch.ts';
import { LiveView, physicalRows } from '../../../src/cli/terminal.ts';
import { CliError } from '../../../src/cli/errors.ts';
import type { WatchStream } from '../../../src/cli/client.ts';

interface Item {
  metadata: { uid: string; name: string; resourceVersion: string };
  v?: number;
}
const item = (name: string, rv: number, v = 0): Item => ({
  metadata: { uid: name, name, resourceVersion: String(rv) },
  v,
});

/** A scripted source: each watch call gets the next script, which emits and then ends. */
class FakeSource implements Source<Item> {
  lists: Item[][] = [];
  listCalls = 0;
  watchFrom: string[] = [];
  scripts: ((emit: (t: string, o: unknown) => void, end: (err: unknown) => void) => void)[] = [];
  list() {
    const items = this.lists[Math.min(this.listCalls++, this.lists.length - 1)] ?? [];
    return Promise.resolve({ items, resourceVersion: String(100 + this.listCalls) });
  }
  watch(rv: string, on: (t: string, o: unknown) => void): WatchStream {
    this.watchFrom.push(rv);
    const script = this.scripts.shift();
    let end: (err: unknown) => void = () => undefined;
    const done = new Promise<unknown>((r) => (end = r));
    if (script) queueMicrotask(() => script(on, end));
    return { done, stop: () => end(null) };
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test('mirror: list, then watch from its resourceVersion; events update the copy', async () => {
  const src = new FakeSource();
  src.lists = [[item('a', 1)]];
  src.scripts = [
    (emit, end) => {
      emit('ADDED', item('b', 102));
      emit('MODIFIED', item('a', 103, 7));
      emit('BOOKMARK', { metadata: { resourceVersion: '110' } });
      emit('DELETED', item('b', 111));
      end(null);
    },
  ];
  let changes = 0;
  const m = new Mirror<Item>(src, { onChange: () => changes++, sleep: () => Promise.resolve() });
  await m.start();
  await tick();
  m.stop();
  await m.closed();
  assert.deepEqual(
    m.values.map((i) => [i.metadata.name, i.v]),
    [['a', 7]],
  );
  assert.equal(changes, 4); // list + 3 object events (not the bookmark)
  assert.deepEqual(src.watchFrom.slice(0, 2), ['101', '111']); // resumed after the bookmark
});

test('mirror: "410 Gone" lists again; other errors retry with backoff and are reported', async () => {
  const src = new FakeSource();
  src.lists = [[item('a', 1)], [item('c', 5)]];
  src.scripts = [
    (emit, end) => {
      emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
      end(null);
    },
    (_emit, end) => end(new CliError('forbidden', { httpStatus: 403 })),
  ];
  const sleeps: number[] = [];
  const retries: unknown[] = [];
  const m = new Mirror<Item>(src, {
    onChange: () => undefined,
    onRetry: (e) => retries.push(e),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  await m.start();
  await tick();
  m.stop();
  await m.closed();
  assert.equal(src.listCalls, 2);
  assert.deepEqual(
    m.values.map((i) => i.metadata.name),
    ['c'],
  );
  assert.equal(retries.length, 1);
  assert.ok(sleeps.includes(250));
});

test('mirror: a failing first list reaches the caller', async () => {
  const src = new FakeSource();
  src.list = () => Promise.reject(new CliError('forbidden: nope'));
  const m = new Mirror<Item>(src, { onChange: () => undefined });
  await assert.rejects(m.start(), /forbidden: nope/);
});

test('throttle: at most one call per interval, and always one after the last request', async () => {
  let calls = 0;
  const t = new Throttle(() => calls++, 40);
  t.request();
  assert.equal(calls, 1); // the first runs at once
  t.request();
  t.request();
  t.request();
  assert.equal(calls, 1);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(calls, 2); // the burst collapsed into one trailing call
  t.request();
  t.cancel();
  await new Promise((r) => setTimeout(r, 60));
  assert.ok(calls <= 3);
});

class Sink {
  chunks: string[] = [];
  isTTY: boolean;
  columns: number | undefined;
  constructor(tty: boolean, columns?: number) {
    this.isTTY = tty;
    this.columns = columns;
  }
  write(s: string) {
    this.chunks.push(s);
    return true;
  }
  get text() {
    return this.chunks.join('');
  }
}

test('live view on a terminal: hide cursor, redraw in place, restore cursor', () => {
  const out = new Sink(true, 80);
  const v = new LiveView(out);
  v.update('one\ntwo\n');
  v.update('one\ntwo\n'); // unchanged: nothing written
  v.update('three\n');
  v.close();
  v.close();
  assert.deepEqual(out.chunks, ['\x1b[?25lone\ntwo\n', '\x1b[2A\r\x1b[Jthree\n', '\x1b[?25h']);
});

test('live view elsewhere: whole snapshots when the key changes, no escape codes', () => {
  const out = new Sink(false);
  const v = new LiveView(out);
  v.update('\x1b[32mA\x1b[39m 1s\n', 'A');
  v.update('A 2s\n', 'A'); // only the age moved
  v.update('B 3s\n', 'B');
  v.close();
  assert.equal(out.text, 'A 1s\n\nB 3s\n');
});

test('physical rows count wrapped lines', () => {
  assert.equal(physicalRows('abc\ndef\n', 80), 2);
  assert.equal(physicalRows('x'.repeat(100) + '\n', 40), 3);
  assert.equal(physicalRows('\x1b[31m' + 'x'.repeat(40) + '\x1b[39m\n', 40), 1);
  assert.equal(physicalRows('a\n\nb\n', undefined), 3);
});
