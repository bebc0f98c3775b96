import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { KubeEventRecorder } from '../../../src/kube/events.ts';
import { Resources } from '../../../src/kube/resources.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';

const rollout = {
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'Rollout',
  metadata: { namespace: 'shop', name: 'web', uid: 'u-1', resourceVersion: '7' },
};

function setup() {
  const clock = new FakeClock();
  const api = new FakeKubeApi();
  const errors: unknown[] = [];
  const rec = new KubeEventRecorder({
    api,
    clock,
    reportingInstance: 'stepwise-0',
    onError: (e) => errors.push(e),
  });
  return { clock, api, rec, errors };
}

describe('event recorder', () => {
  test('writes an events.k8s.io/v1 Event about the object', async () => {
    const { api, rec } = setup();
    rec.event(
      rollout,
      'Normal',
      'RolloutStepCompleted',
      'Rollout step 1/3 completed (setWeight: 20)',
    );
    await rec.flush();
    const [w] = api.writes();
    assert.equal(w?.verb, 'create');
    assert.equal(w?.resource, 'events.events.k8s.io');
    const body = w?.body as Record<string, unknown>;
    assert.equal(body['apiVersion'], 'events.k8s.io/v1');
    assert.equal(body['type'], 'Normal');
    assert.equal(body['reason'], 'RolloutStepCompleted');
    assert.equal(body['action'], 'RolloutStepCompleted');
    assert.equal(body['note'], 'Rollout step 1/3 completed (setWeight: 20)');
    assert.equal(body['reportingController'], 'stepwise-controller');
    assert.equal(body['reportingInstance'], 'stepwise-0');
    assert.match(body['eventTime'] as string, /\.\d{6}Z$/);
    assert.deepEqual(body['regarding'], {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      name: 'web',
      namespace: 'shop',
      uid: 'u-1',
      resourceVersion: '7',
    });
    const meta = body['metadata'] as { name: string; namespace: string };
    assert.equal(meta.namespace, 'shop');
    assert.match(meta.name, /^web\.[0-9a-f]+$/);
  });

  test('repeats within 10 minutes bump series.count on the same Event', async () => {
    const { api, rec, clock } = setup();
    rec.event(rollout, 'Warning', 'AnalysisRunFailed', 'success rate 0.91 < 0.99');
    await rec.flush();
    clock.advance(60_000);
    rec.event(rollout, 'Warning', 'AnalysisRunFailed', 'success rate 0.91 < 0.99');
    await rec.flush();
    clock.advance(9 * 60_000);
    rec.event(rollout, 'Warning', 'AnalysisRunFailed', 'success rate 0.91 < 0.99');
    await rec.flush();
    const writes = api.writes();
    assert.deepEqual(
      writes.map((w) => w.verb),
      ['create', 'patch', 'patch'],
    );
    const name = (writes[0]?.body as { metadata: { name: string } }).metadata.name;
    assert.equal(writes[2]?.name, name);
    const ev = api.stored(Resources.Event, 'shop', name) as {
      series?: { count: number; lastObservedTime: string };
    };
    assert.equal(ev.series?.count, 3);
    assert.equal(
      ev.series?.lastObservedTime,
      new Date(clock.now()).toISOString().replace('Z', '000Z'),
    );
  });

  test('a different message, reason, type or object is a new Event', async () => {
    const { api, rec } = setup();
    rec.event(rollout, 'Normal', 'A', 'm1');
    rec.event(rollout, 'Normal', 'A', 'm2');
    rec.event(rollout, 'Normal', 'B', 'm1');
    rec.event(rollout, 'Warning', 'A', 'm1');
    rec.event(
      { ...rollout, metadata: { ...rollout.metadata, name: 'api', uid: 'u-2' } },
      'Normal',
      'A',
      'm1',
    );
    await rec.flush();
    const creates = api.writes().filter((w) => w.verb === 'create');
    assert.equal(creates.length, 5);
    const names = new Set(
      creates.map((w) => (w.body as { metadata: { name: string } }).metadata.name),
    );
    assert.equal(names.size, 5, 'unique names even within the same millisecond');
  });

  test('after the window a repeat creates a new Event', async () => {
    const { api, rec, clock } = setup();
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    clock.advance(10 * 60_000 + 1);
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    assert.deepEqual(
      api.writes().map((w) => w.verb),
      ['create', 'create'],
    );
  });

  test('a burst of repeats while a write is in flight coalesces into one patch', async () => {
    const { api, rec } = setup();
    for (let i = 0; i < 50; i++) rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    assert.deepEqual(
      api.writes().map((w) => w.verb),
      ['create', 'patch'],
    );
    assert.deepEqual((api.writes()[1]?.body as { series: { count: number } }).series.count, 50);
  });

  test('never throws: failures are logged and counted, and the next one retries', async () => {
    const { api, rec, errors } = setup();
    api.failWith = () => apiStatusError(403);
    assert.doesNotThrow(() => rec.event(rollout, 'Normal', 'A', 'm'));
    assert.doesNotThrow(() => rec.event({ kind: 'Rollout' }, 'Normal', 'A', 'no name'));
    await rec.flush();
    assert.equal(rec.failures, 2);
    assert.equal(errors.length, 2);
    api.failWith = () => undefined;
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    assert.deepEqual(
      api.writes().map((w) => w.verb),
      ['create', 'create'],
    );
  });

  test('an Event deleted on the server (TTL) is created again on the next repeat', async () => {
    const { api, rec } = setup();
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    const name = (api.writes()[0]?.body as { metadata: { name: string } }).metadata.name;
    await api.delete(Resources.Event, 'shop', name);
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    rec.event(rollout, 'Normal', 'A', 'm');
    await rec.flush();
    assert.deepEqual(
      api.writes().map((w) => w.verb),
      ['create', 'delete', 'patch', 'create'],
    );
    assert.equal(rec.failures, 1);
  });

  test('long notes are cut to 1 KiB; cluster-scoped objects report into default', async () => {
    const { api, rec } = setup();
    rec.event(
      {
        apiVersion: 'stepwise.dev/v1alpha1',
        kind: 'ClusterAnalysisTemplate',
        metadata: { name: 't' },
      },
      'Warning',
      'Invalid',
      'x'.repeat(5000),
    );
    await rec.flush();
    const body = api.writes()[0]?.body as { note: string; metadata: { namespace: string } };
    assert.equal(body.note.length, 1024);
    assert.equal(body.metadata.namespace, 'default');
  });

  test('tells onRecorded of every event, repeats aggregated into one Event included', async () => {
    const seen: string[] = [];
    const rec = new KubeEventRecorder({
      api: new FakeKubeApi(),
      clock: new FakeClock(),
      reportingInstance: 'stepwise-0',
      onRecorded: (o, type, reason) => seen.push(`${o.kind ?? ''} ${type} ${reason}`),
    });
    rec.event(rollout, 'Normal', 'RolloutStepCompleted', 'step 1');
    rec.event(rollout, 'Normal', 'RolloutStepCompleted', 'step 1');
    rec.event(rollout, 'Warning', 'RolloutAborted', 'aborted');
    await rec.flush();
    assert.deepEqual(seen, [
      'Rollout Normal RolloutStepCompleted',
      'Rollout Normal RolloutStepCompleted',
      'Rollout Warning RolloutAborted',
    ]);
  });
});
