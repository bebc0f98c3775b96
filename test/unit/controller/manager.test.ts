// The manager's order: probes, informers, caches synced, servers, then (once leading) the
// controllers; stop in the reverse order within the grace period; a lost Lease exits 3.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExitCode } from '../../../src/controller/config.ts';
import { Manager } from '../../../src/controller/manager.ts';
import type { Controller, Election, ManagerOptions } from '../../../src/controller/manager.ts';
import type { Key } from '../../../src/controller/reconciler.ts';
import type { Watch } from '../../../src/controller/watch.ts';
import { RateLimitingQueue } from '../../../src/kube/index.ts';
import type { Logger } from '../../../src/kube/index.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';

/** Everything the fakes and hooks do, in order. */
type Trail = string[];

function logger(trail: Trail): Logger {
  const at = (level: string) => (msg: string) => void trail.push(`log ${level}: ${msg}`);
  return { debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}

/** A step that records itself and is done at once. */
const noted = (trail: Trail, what: string) => (): Promise<void> => {
  trail.push(what);
  return Promise.resolve();
};

function informer(trail: Trail, name: string) {
  let synced: () => void = () => undefined;
  return {
    start: () => void trail.push(`${name} start`),
    synced: new Promise<void>((r) => (synced = r)),
    stop: noted(trail, `${name} stop`),
    sync: () => synced(),
  };
}

function runnable(trail: Trail, name: string) {
  return {
    start: noted(trail, `${name} start`),
    stop: noted(trail, `${name} stop`),
  };
}

/** A controller whose reconciler records each key; `fire` is its one watch's event. */
function controller(trail: Trail, name: string, keys: Key[]) {
  const queue = new RateLimitingQueue<Key>({ clock: new FakeClock() });
  let fire: (key: Key) => void = () => assert.fail('watch not attached');
  let seen: () => void = () => undefined;
  const watch: Watch = {
    description: `${name} watch`,
    attach: (wake, s) => {
      trail.push(`${name} watch attached`);
      fire = wake;
      seen = s;
    },
  };
  const shutDown = queue.shutDown.bind(queue);
  queue.shutDown = async (opts) => {
    trail.push(`${name} queue shut down`);
    await shutDown(opts);
  };
  const c: Controller = {
    name,
    queue,
    reconciler: {
      reconcile: (key) => {
        trail.push(`${name} reconcile ${key}`);
        return Promise.resolve({});
      },
    },
    workers: 1,
    watches: [watch],
    keys: () => {
      trail.push(`${name} keys`);
      return keys;
    },
  };
  return {
    c,
    fire: (key: Key) => {
      seen();
      fire(key);
    },
  };
}

function election(trail: Trail) {
  let started: () => void = () => undefined;
  let lost: () => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const e: Election = {
    lease: 'ns/stepwise-controller',
    run: (s, l) => {
      trail.push('campaign');
      started = s;
      lost = l;
      return new Promise((_, reject) => (fail = reject));
    },
    stop: () => {
      trail.push('election stop');
      lost();
      return Promise.resolve();
    },
  };
  return { e, win: () => started(), lose: () => lost(), fail: (err: Error) => fail(err) };
}

function setup(over: Partial<ManagerOptions> = {}, trail: Trail = []) {
  const informers = [informer(trail, 'informer A'), informer(trail, 'informer B')];
  const rollouts = controller(trail, 'rollout', ['ns/web']);
  const runs = controller(trail, 'analysisrun', ['ns/web-1']);
  const grace = new FakeClock();
  const manager = new Manager({
    informers,
    controllers: [rollouts.c, runs.c],
    probes: [runnable(trail, 'probes')],
    servers: [runnable(trail, 'approvals')],
    graceMs: 10_000,
    log: logger(trail),
    synced: () => void trail.push('synced'),
    leading: () => void trail.push('leading'),
    stopping: () => void trail.push('stopping'),
    flush: noted(trail, 'flush'),
    activity: () => void trail.push('activity'),
    after: (ms, fn) => grace.after(ms, fn),
    ...over,
  });
  const syncAll = async (): Promise<void> => {
    await flush();
    for (const i of informers) i.sync();
    await flush();
  };
  return { trail, manager, informers, rollouts, runs, grace, syncAll };
}

describe('Manager', () => {
  it('starts probes, then informers (watches attached), then servers once every cache synced, then the controllers', async () => {
    const t = setup();
    const done = t.manager.run();
    await flush();
    assert.deepEqual(t.trail, [
      'rollout watch attached',
      'analysisrun watch attached',
      'probes start',
      'informer A start',
      'informer B start',
    ]);
    t.trail.length = 0;
    await t.syncAll();
    assert.deepEqual(
      t.trail.filter((s) => s !== 'activity'),
      [
        'approvals start',
        'synced',
        'rollout keys',
        'analysisrun keys',
        'leading',
        'rollout reconcile ns/web',
        'analysisrun reconcile ns/web-1',
      ],
    );
    assert.equal(t.trail.filter((s) => s === 'activity').length, 2, 'each pass is activity');
    assert.equal(t.manager.leading, true);
    t.manager.stop('SIGTERM', ExitCode.ok);
    assert.equal(await done, ExitCode.ok);
  });

  it('waits for every informer before starting the servers', async () => {
    const t = setup();
    void t.manager.run();
    await flush();
    t.trail.length = 0;
    t.informers[0]?.sync();
    await flush();
    assert.deepEqual(t.trail, [], 'one of two synced: nothing more starts');
    t.informers[1]?.sync();
    await flush();
    assert.equal(t.trail[0], 'approvals start');
    t.manager.stop('SIGTERM', ExitCode.ok);
  });

  it('starts leader-only controllers only when elected, and requeues nothing before', async () => {
    const trail: Trail = [];
    const el = election(trail);
    const t = setup({ election: el.e }, trail);
    const done = t.manager.run();
    await t.syncAll();
    assert.equal(t.manager.leading, false);
    assert.ok(t.trail.includes('log info: waiting for leadership'));
    assert.ok(!t.trail.some((s) => s.includes('reconcile') || s.includes('keys')));
    t.manager.requeueAll();
    assert.ok(!t.trail.some((s) => s.includes('keys')), 'a standby requeues nothing');
    el.win();
    await flush();
    assert.equal(t.manager.leading, true);
    assert.ok(t.trail.includes('rollout reconcile ns/web'));
    assert.ok(t.trail.includes('leading'));
    t.manager.stop('SIGTERM', ExitCode.ok);
    assert.equal(await done, ExitCode.ok);
  });

  it('a watched event wakes its controller, and counts as activity', async () => {
    const t = setup();
    void t.manager.run();
    await t.syncAll();
    t.trail.length = 0;
    t.rollouts.fire('ns/other');
    await flush();
    assert.deepEqual(t.trail.slice(0, 2), ['activity', 'rollout reconcile ns/other']);
    t.manager.stop('SIGTERM', ExitCode.ok);
  });

  it('after an outage every key goes back through its controller', async () => {
    const t = setup();
    void t.manager.run();
    await t.syncAll();
    t.trail.length = 0;
    t.manager.requeueAll();
    await flush();
    assert.deepEqual(
      t.trail.filter((s) => !s.startsWith('activity')),
      [
        'rollout keys',
        'analysisrun keys',
        'rollout reconcile ns/web',
        'analysisrun reconcile ns/web-1',
      ],
    );
    t.manager.stop('SIGTERM', ExitCode.ok);
  });

  it('stops in reverse: controllers drained, election, servers, informers, flush, probes', async () => {
    const trail: Trail = [];
    const el = election(trail);
    const t = setup({ election: el.e }, trail);
    const done = t.manager.run();
    await t.syncAll();
    el.win();
    await flush();
    t.trail.length = 0;
    t.manager.stop('SIGTERM', ExitCode.ok);
    assert.equal(await done, ExitCode.ok);
    assert.deepEqual(t.trail, [
      'log info: shutting down',
      'stopping',
      'rollout queue shut down',
      'analysisrun queue shut down',
      'election stop',
      'approvals stop',
      'informer A stop',
      'informer B stop',
      'flush',
      'probes stop',
      'log info: stopped',
    ]);
  });

  it('a lost Lease stops everything and exits 3; the loss that a stop causes is not one', async () => {
    const trail: Trail = [];
    const el = election(trail);
    const t = setup({ election: el.e }, trail);
    const done = t.manager.run();
    await t.syncAll();
    el.win();
    await flush();
    t.trail.length = 0;
    el.lose();
    assert.equal(await done, ExitCode.leaseLost);
    assert.equal(
      t.trail[0],
      'log error: leader Lease lost: not renewed within the renew deadline; exiting',
    );
    assert.ok(!t.trail.includes('log info: shutting down'));
    assert.equal(t.trail.filter((s) => s.startsWith('log error')).length, 1, 'one line');
  });

  it('a stop that outlasts the grace period ends anyway, a clean one as a failure', async () => {
    const t = setup({ flush: () => new Promise<void>(() => undefined) });
    const done = t.manager.run();
    await t.syncAll();
    t.manager.stop('SIGTERM', ExitCode.ok);
    await flush();
    t.grace.advance(9_999);
    let code: number | undefined;
    void done.then((c) => (code = c));
    await flush();
    assert.equal(code, undefined);
    t.grace.advance(1);
    assert.equal(await done, ExitCode.failed);
  });

  it('an election that fails ends the process with 1', async () => {
    const trail: Trail = [];
    const el = election(trail);
    const t = setup({ election: el.e }, trail);
    const done = t.manager.run();
    await t.syncAll();
    el.fail(new Error('no Lease API'));
    assert.equal(await done, ExitCode.failed);
    assert.ok(t.trail.includes('log error: leader election failed'));
  });
});
