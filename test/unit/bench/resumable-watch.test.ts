import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeHttp, WatchEvent } from '../../cluster/kube-http.ts';
import { resumableWatch } from '../../bench/resumable-watch.ts';

/** A fake API server's watch endpoint: records each open, lets the test send events and end it. */
class FakeWatches {
  readonly paths: string[] = [];
  /** Opens to refuse before accepting again. */
  refuse = 0;
  #current: { onEvent: (e: WatchEvent) => void; onEnd?: () => void } | undefined;
  #opened: (() => void)[] = [];

  readonly http: Pick<KubeHttp, 'watch'> = {
    watch: (path, onEvent, onEnd) => {
      this.paths.push(path);
      if (this.refuse > 0) {
        this.refuse--;
        return Promise.reject(new Error(`watch ${path}: connect ECONNREFUSED`));
      }
      this.#current = { onEvent, ...(onEnd ? { onEnd } : {}) };
      for (const r of this.#opened.splice(0)) r();
      return Promise.resolve({ close: () => (this.#current = undefined) });
    },
  };

  send(type: WatchEvent['type'], object: Record<string, unknown>): void {
    this.#current?.onEvent({ type, object });
  }

  /** The server ends the watch; resolves once it has been opened again. */
  end(): Promise<void> {
    const reopened = new Promise<void>((r) => this.#opened.push(r));
    const c = this.#current;
    this.#current = undefined;
    c?.onEnd?.();
    return reopened;
  }
}

const rs = (name: string, rv: string) => ({ metadata: { name, resourceVersion: rv } });
const PATH = '/apis/apps/v1/namespaces/ns/replicasets';

test('a watch the server ends is opened again from the last resourceVersion, bookmarks included, and counted as a gap', async () => {
  const fake = new FakeWatches();
  const seen: string[] = [];
  const gaps: string[] = [];
  const w = await resumableWatch(fake.http, PATH, {
    onEvent: (type, obj) => seen.push(`${type} ${(obj as ReturnType<typeof rs>).metadata.name}`),
    onGap: (why) => gaps.push(why),
  });
  fake.send('ADDED', rs('a', '10'));
  fake.send('BOOKMARK', { metadata: { resourceVersion: '12' } });
  await fake.end();
  fake.send('MODIFIED', rs('a', '13'));
  assert.deepEqual(fake.paths, [PATH, `${PATH}?resourceVersion=12&allowWatchBookmarks=true`]);
  assert.deepEqual(seen, ['ADDED a', 'MODIFIED a'], 'bookmarks are not delivered');
  assert.equal(w.gaps, 1);
  assert.match(gaps[0] ?? '', /replicasets: the server ended the watch/);
  w.close();
});

test('an expired resourceVersion (410 in the stream) resumes from the current state', async () => {
  const fake = new FakeWatches();
  const w = await resumableWatch(fake.http, `${PATH}?labelSelector=app`, { onEvent: () => {} });
  fake.send('ADDED', rs('a', '10'));
  fake.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
  await fake.end();
  assert.deepEqual(fake.paths, [`${PATH}?labelSelector=app`, `${PATH}?labelSelector=app`]);
  assert.equal(w.gaps, 1);
  w.close();
});

test('an open that fails is retried, and one that keeps failing is reported, not thrown', async () => {
  const fake = new FakeWatches();
  const failures: Error[] = [];
  let reportFailure: (err: Error) => void = () => undefined;
  const reported = new Promise<Error>((resolve) => (reportFailure = resolve));
  const w = await resumableWatch(fake.http, PATH, {
    onEvent: () => {},
    onFailed: (err) => {
      failures.push(err);
      reportFailure(err);
    },
    retryDelayMs: 1,
  });
  fake.send('ADDED', rs('a', '7'));
  fake.refuse = 2;
  await fake.end();
  assert.equal(fake.paths.length, 4, 'the first open, two refused, one accepted');
  assert.equal(failures.length, 0);

  fake.refuse = 100;
  void fake.end();
  assert.match((await reported).message, /could not be opened again \(10 tries\): .*ECONNREFUSED/);
  assert.equal(failures.length, 1, 'reported once');
  w.close();
});

test('after close, an ending watch is not opened again', async () => {
  const fake = new FakeWatches();
  const w = await resumableWatch(fake.http, PATH, { onEvent: () => {} });
  w.close();
  void fake.end();
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(fake.paths, [PATH]);
  assert.equal(w.gaps, 0);
});
