// The idle-CPU bench prints what Stepwise's and Argo's controllers asked of the API server in
// the same window, from each one's controller_clientset_k8s_request_total.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { metricSum, requestsByVerb } from '../../bench/controller-support.ts';

describe('API requests by verb from a controller’s metrics', () => {
  it('sums Argo Rollouts’ series (kind, name, status_code labels; capitalised verbs)', () => {
    const argo = [
      '# TYPE controller_clientset_k8s_request_total counter',
      'controller_clientset_k8s_request_total{kind="rollouts",name="",namespace="a",status_code="200",verb="Watch"} 3',
      'controller_clientset_k8s_request_total{kind="replicasets",name="",namespace="a",status_code="200",verb="Watch"} 2',
      'controller_clientset_k8s_request_total{kind="rollouts",name="web",namespace="a",status_code="200",verb="Update"} 4',
      'controller_clientset_k8s_request_total{kind="rollouts",name="N/A",namespace="a",status_code="200",verb="List"} 1',
      'rollout_info{name="web",namespace="a",phase="Healthy"} 1',
    ].join('\n');
    assert.deepEqual(
      [...requestsByVerb(argo)],
      [
        ['watch', 5],
        ['update', 4],
        ['list', 1],
      ],
    );
  });

  it('sums Stepwise’s series (verb, resource, code labels) the same way', () => {
    const stepwise = [
      'controller_clientset_k8s_request_total{verb="list",resource="rollouts",code="200"} 1',
      'controller_clientset_k8s_request_total{verb="watch",resource="rollouts",code="200"} 2',
      'controller_clientset_k8s_request_total{verb="watch",resource="pods",code="200"} 1',
      'controller_clientset_k8s_request_total{verb="patch",resource="rollouts",code="409"} 1',
    ].join('\n');
    assert.deepEqual(
      [...requestsByVerb(stepwise)],
      [
        ['list', 1],
        ['watch', 3],
        ['patch', 1],
      ],
    );
    assert.equal(requestsByVerb('# nothing yet\n').size, 0);
  });
});

describe('one metric summed over its series', () => {
  const metrics = [
    '# HELP rollout_reconcile Rollout reconciliation duration in seconds.',
    'rollout_reconcile_bucket{result="ok",le="0.001"} 3',
    'rollout_reconcile_count{result="ok"} 7',
    'rollout_reconcile_count{result="error"} 2',
    'rollout_reconcile_sum{result="ok"} 0.25',
    'go_gc_duration_seconds_count 12',
    'go_gc_duration_seconds_count_other 99',
  ].join('\n');

  it('adds a histogram’s counts across labels, and an unlabelled counter', () => {
    assert.equal(metricSum(metrics, 'rollout_reconcile_count'), 9);
    assert.equal(metricSum(metrics, 'go_gc_duration_seconds_count'), 12);
  });

  it('is 0 for a metric the process does not export', () => {
    assert.equal(metricSum(metrics, 'stepwise_memory_reclaim_seconds_count'), 0);
  });
});
