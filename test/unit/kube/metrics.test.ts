import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { requestMetrics, workqueueMetrics } from '../../../src/kube/metrics.ts';
import { RateLimitingQueue } from '../../../src/kube/workqueue.ts';
import { FakeClock } from '../../fixtures/kube/fake-clock.ts';

test('work queue metrics in the workqueue_* family, labelled by queue name', async () => {
  const registry = new Registry();
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({
    clock,
    metrics: workqueueMetrics(registry)('rollouts'),
  });
  q.add('ns/a');
  q.add('ns/b');
  clock.advance(2);
  q.done((await q.get()) as string);
  q.addRateLimited('ns/c');
  const text = await registry.metrics();
  assert.match(text, /^workqueue_depth\{name="rollouts"\} 1$/m);
  assert.match(text, /^workqueue_adds_total\{name="rollouts"\} 2$/m);
  assert.match(text, /^workqueue_retries_total\{name="rollouts"\} 1$/m);
  assert.match(text, /^workqueue_queue_duration_seconds_count\{name="rollouts"\} 1$/m);
  assert.match(text, /^workqueue_queue_duration_seconds_sum\{name="rollouts"\} 0.002$/m);
  assert.match(text, /^workqueue_work_duration_seconds_count\{name="rollouts"\} 1$/m);
});

test('request metrics: verb, resource and code only', async () => {
  const registry = new Registry();
  const hook = requestMetrics(registry);
  hook({ verb: 'apply', resource: 'replicasets.apps', code: '200', durationMs: 12 });
  hook({ verb: 'apply', resource: 'replicasets.apps', code: '200', durationMs: 8 });
  hook({ verb: 'get', resource: 'leases.coordination.k8s.io', code: 'error', durationMs: 1 });
  const text = await registry.metrics();
  assert.match(
    text,
    /^controller_clientset_k8s_request_total\{verb="apply",resource="replicasets.apps",code="200"\} 2$/m,
  );
  assert.match(
    text,
    /^controller_clientset_k8s_request_total\{verb="get",resource="leases.coordination.k8s.io",code="error"\} 1$/m,
  );
  assert.match(
    text,
    /^controller_clientset_k8s_request_duration_seconds_count\{verb="apply",resource="replicasets.apps"\} 2$/m,
  );
});
