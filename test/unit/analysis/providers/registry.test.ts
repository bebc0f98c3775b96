// The provider registry: one line per provider, and every per-provider fact derived from it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetricProviderSchema } from '../../../../src/api/analysis.ts';
import type { Metric } from '../../../../src/api/index.ts';
import {
  PROVIDERS,
  createProviders,
  EgressPolicy,
  measurementTimeoutMs,
  providerName,
} from '../../../../src/analysis/providers/index.ts';
import { FakeKubeApi } from '../../../fixtures/kube/fake-kube-api.ts';

const metric = (provider: Metric['provider']): Metric => ({ name: 'm', provider });
const CAP = 600_000;

describe('provider registry', () => {
  it('names exactly the providers the metric schema offers, in its order', () => {
    assert.deepEqual(
      PROVIDERS.map((p) => p.name),
      Object.keys(MetricProviderSchema.properties),
    );
  });

  it('finds the provider a metric names, and none for an empty provider', () => {
    assert.equal(providerName(metric({ prometheus: { query: 'up' } })), 'prometheus');
    assert.equal(providerName(metric({ web: { url: 'http://x' } })), 'web');
    assert.equal(providerName(metric({ job: { spec: {} } })), 'job');
    assert.equal(providerName(metric({})), undefined);
  });

  for (const [name, provider, expected] of [
    ['prometheus: its default 30 s plus 5 s to report', { prometheus: { query: 'up' } }, 35_000],
    ['prometheus: its own timeout', { prometheus: { query: 'up', timeout: 2 } }, 7_000],
    ['prometheus: timeout 0 is the default', { prometheus: { query: 'up', timeout: 0 } }, 35_000],
    ['web: its default 10 s plus 5 s', { web: { url: 'http://x' } }, 15_000],
    ['web: its own timeoutSeconds', { web: { url: 'http://x', timeoutSeconds: 1 } }, 6_000],
    ['job: asynchronous, only the cap', { job: { spec: {} } }, CAP],
    ['no provider: only the cap', {}, CAP],
  ] as const) {
    it(`measurement timeout, ${name}`, () => {
      assert.equal(measurementTimeoutMs(metric(provider as Metric['provider']), CAP), expected);
    });
  }

  it('the cap wins over a longer provider timeout', () => {
    assert.equal(measurementTimeoutMs(metric({ prometheus: { query: 'up' } }), 1_000), 1_000);
  });

  it('builds every provider, by name', () => {
    const built = createProviders({ api: new FakeKubeApi(), env: {}, egress: new EgressPolicy() });
    assert.deepEqual(Object.keys(built), ['prometheus', 'web', 'job']);
    for (const p of Object.values(built)) assert.equal(typeof p.measure, 'function');
    assert.equal(typeof built.job?.resume, 'function');
  });
});
