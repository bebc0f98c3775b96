// Which routers a Rollout's trafficRouting names: Argo's Gateway API plugin form is the built-in
// router, read with the same keys; several routers at once are all used.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanaryStrategy, Rollout } from '../../../src/api/index.ts';
import { routersFor, trafficRefKeys } from '../../../src/traffic/index.ts';

const rollout = (canary: CanaryStrategy): Rollout => ({
  apiVersion: 'stepwise.dev/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { selector: {}, template: {}, strategy: { canary } },
});

describe('routersFor', () => {
  it('no trafficRouting: no router', () => {
    assert.deepEqual(routersFor({}), []);
  });

  it('Argo\'s plugins["argoproj-labs/gatewayAPI"] is the built-in Gateway API router', () => {
    const canary: CanaryStrategy = {
      trafficRouting: {
        plugins: {
          'argoproj-labs/gatewayAPI': {
            httpRoutes: [{ name: 'a', useHeaderRoutes: true }, { name: 'b' }],
            namespace: 'edge',
          },
        },
      },
    };
    assert.deepEqual(
      routersFor(canary).map((r) => r.name),
      ['gatewayAPI'],
    );
    assert.deepEqual(trafficRefKeys(rollout(canary)), [
      'gateway.networking.k8s.io/HTTPRoute/edge/a',
      'gateway.networking.k8s.io/HTTPRoute/edge/b',
    ]);
  });

  it('a plugin config that is not an object names no route', () => {
    const canary = { trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': 'web' } } };
    assert.deepEqual(trafficRefKeys(rollout(canary)), []);
  });

  it('several routers at once (Argo allows mixing): each is used', () => {
    const canary: CanaryStrategy = {
      trafficRouting: {
        gatewayAPI: { httpRoute: 'web' },
        istio: { virtualService: { name: 'web' } },
        nginx: { stableIngress: 'web' },
        smi: {},
      },
    };
    assert.deepEqual(
      routersFor(canary).map((r) => r.name),
      ['gatewayAPI', 'istio', 'nginx', 'smi'],
    );
  });
});
