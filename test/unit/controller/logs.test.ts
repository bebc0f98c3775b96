// What the controller's logs look like to the person reading them: JSON by default, text with
// --log-format text, the level filter, one `rollout` key (namespace/name) on every line about a
// Rollout, and at debug level one line per pass naming the writes it planned.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { ReplicaSet } from '../../../src/api/index.ts';
import { ConfigError, parseConfig } from '../../../src/controller/config.ts';
import { configSummary } from '../../../src/controller/config-summary.ts';
import { controllerLogger } from '../../../src/controller/logger.ts';
import type { Level, LogFormat } from '../../../src/controller/logger.ts';
import { describeWrite, passFields } from '../../../src/controller/pass-log.ts';
import type { Key, Reconciler } from '../../../src/controller/reconciler.ts';
import { runWorkers } from '../../../src/controller/worker.ts';
import { RateLimitingQueue } from '../../../src/kube/workqueue.ts';
import type { Write } from '../../../src/rollout/index.ts';
import { REPO_ROOT } from '../../cluster/state.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

const AT = new Date('2026-12-07T01:02:03.000Z');

function capture(format: LogFormat, level: Level = 'info') {
  const lines: { at: Level; line: string }[] = [];
  const log = controllerLogger({
    level,
    format,
    base: { component: 'stepwise-controller' },
    write: (at, line) => lines.push({ at, line }),
    now: () => AT,
  });
  return { log, lines };
}

describe('log format', () => {
  it('json (the default): one object a line with time, level, msg, the base and the fields', () => {
    const { log, lines } = capture('json');
    log.info('caches synced', { rollouts: 3, rollout: 'team/web' });
    assert.deepEqual(JSON.parse(lines[0]?.line ?? ''), {
      time: AT.toISOString(),
      level: 'info',
      msg: 'caches synced',
      component: 'stepwise-controller',
      rollouts: 3,
      rollout: 'team/web',
    });
    assert.equal(parseConfig([], {}).logFormat, 'json');
  });

  it('text: time LEVEL msg key=value, quoting values with spaces, objects as JSON', () => {
    const { log, lines } = capture('text');
    log.warn('reconcile failed, retrying with backoff', {
      rollout: 'team/web',
      error: 'Conflict: the object has been modified',
      writes: ['apply status phase=Paused step=1'],
      requeueAfterMs: 5,
    });
    assert.equal(
      lines[0]?.line,
      '2026-12-07T01:02:03.000Z WARN  reconcile failed, retrying with backoff ' +
        'component=stepwise-controller rollout=team/web ' +
        'error="Conflict: the object has been modified" ' +
        'writes=["apply status phase=Paused step=1"] requeueAfterMs=5',
    );
    assert.equal(lines[0]?.at, 'warn');
  });

  it('drops lines below the level', () => {
    const { log, lines } = capture('json', 'info');
    log.debug('pass planned', { rollout: 'team/web', writes: [] });
    log.error('boom');
    assert.deepEqual(
      lines.map((l) => l.at),
      ['error'],
    );
  });

  it('--log-format and STEPWISE_LOG_FORMAT choose it; anything else is refused naming the flag', () => {
    assert.equal(parseConfig(['--log-format=text'], {}).logFormat, 'text');
    assert.equal(parseConfig([], { STEPWISE_LOG_FORMAT: 'text' }).logFormat, 'text');
    assert.equal(configSummary(parseConfig(['--log-format=text'], {})).logFormat, 'text');
    assert.throws(
      () => parseConfig(['--log-format=logfmt'], {}),
      (err: unknown) =>
        err instanceof ConfigError && /--log-format must be json or text/.test(err.message),
    );
  });

  it('the start-up summary carries no secret in text format either', () => {
    const { log, lines } = capture('text');
    log.info('starting', {
      config: configSummary(
        parseConfig(['--public-url=https://ops:hunter2@stepwise.example.com/?token=s3cret'], {}),
      ),
    });
    assert.ok(!/hunter2|s3cret/.test(lines[0]?.line ?? ''), lines[0]?.line);
    assert.match(lines[0]?.line ?? '', /"publicUrl":"https:\/\/stepwise.example.com"/);
  });
});

describe('the debug line of a pass', () => {
  const rs = (name: string, replicas: number): ReplicaSet => ({
    metadata: { name, namespace: 'team' },
    spec: { replicas, selector: {}, template: { spec: { containers: [] } } },
  });

  it('names each planned write in order, without bodies', () => {
    const writes: Write[] = [
      { kind: 'applyReplicaSet', body: rs('web-abc', 1), reason: 'scale' },
      {
        kind: 'setTraffic',
        state: { canaryWeight: 25, headerRoutes: [], mirrorRoutes: [] },
        canaryHash: 'abc',
        stableHash: 'def',
      },
      { kind: 'deleteReplicaSet', name: 'web-old' },
      { kind: 'applyStatus', status: { phase: 'Paused', currentStepIndex: 1 } },
      { kind: 'event', type: 'Normal', reason: 'RolloutPaused' as never, message: 'a long text' },
    ];
    assert.deepEqual(passFields('team/web', writes, 5000), {
      rollout: 'team/web',
      writes: [
        'apply ReplicaSet web-abc replicas=1 (scale)',
        'set traffic canary=25%',
        'delete ReplicaSet web-old',
        'apply status phase=Paused step=1',
        'event Normal RolloutPaused',
      ],
      requeueAfterMs: 5000,
    });
    assert.deepEqual(passFields('team/web', [], undefined), { rollout: 'team/web', writes: [] });
  });

  it('describes every kind of write (a new kind fails to compile until it is described)', () => {
    const text = describeWrite({ kind: 'terminateAnalysisRun', name: 'web-abc-2' });
    assert.equal(text, 'terminate AnalysisRun web-abc-2');
  });
});

describe('worker lines name the object by its controller', () => {
  it('a failed Rollout pass logs rollout=namespace/name', async () => {
    const clock = new FakeClock(0);
    const queue = new RateLimitingQueue<Key>({ clock });
    const { log, lines } = capture('json');
    const reconciler: Reconciler = {
      reconcile: () => Promise.reject(new Error('boom')),
    };
    const done = runWorkers(queue, reconciler, 1, log, new AbortController().signal, {
      keyField: 'rollout',
    });
    queue.add('team/web');
    await new Promise((r) => setImmediate(r));
    const line = JSON.parse(lines[0]?.line ?? '{}') as Record<string, unknown>;
    assert.equal(line.msg, 'reconcile failed, retrying with backoff');
    assert.equal(line.rollout, 'team/web');
    assert.equal(line.key, undefined);
    await queue.shutDown();
    await done;
  });
});

describe('the controller process', () => {
  it('with --log-format text, its start-up line is text, with the configuration and no secret', async () => {
    // No cluster: the kubeconfig is missing, so it stops right after the start-up line.
    const run = await promisify(execFile)(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        join(REPO_ROOT, 'src', 'controller', 'main.ts'),
        '--log-format=text',
        '--public-url=https://ops:hunter2@stepwise.example.com/?token=s3cret',
      ],
      { env: { ...process.env, KUBECONFIG: join(REPO_ROOT, 'no-such-kubeconfig') } },
    ).catch((err: unknown) => err as { stdout: string; stderr: string });
    const [first] = run.stdout.split('\n');
    assert.match(
      first ?? '',
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}starting component=stepwise-controller /,
    );
    assert.match(first ?? '', /"logFormat":"text"/);
    assert.doesNotMatch(run.stdout + run.stderr, /hunter2|s3cret/);
  });
});
