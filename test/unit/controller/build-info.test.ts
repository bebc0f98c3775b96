// The start-up facts a person asks a running replica for: which build (a metric), and with
// which configuration (the first log line), without a secret in it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { registerBuildInfo } from '../../../src/controller/build-info.ts';
import { parseConfig } from '../../../src/controller/config.ts';
import { configSummary } from '../../../src/controller/config-summary.ts';

describe('stepwise_build_info', () => {
  it('is one series, 1, labelled with the version and the commit', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, { version: '1.2.3', revision: 'abc', buildDate: 'x' });
    const text = await registry.getSingleMetricAsString('stepwise_build_info');
    assert.deepEqual(
      text.split('\n').filter((l) => !l.startsWith('#')),
      ['stepwise_build_info{version="1.2.3",revision="abc"} 1'],
    );
  });
});

describe('the effective configuration logged at start-up', () => {
  it('shows defaults and flags as they take effect', () => {
    const summary = configSummary(
      parseConfig(['--namespace=team', '--workers=3', '--instance-id=blue'], {
        POD_NAMESPACE: 'ops',
        POD_NAME: 'stepwise-0',
      }),
    );
    assert.equal(summary.namespace, 'team');
    assert.equal(summary.instanceId, 'blue');
    assert.equal(summary.workers, 3);
    assert.equal(summary.analysisWorkers, 30);
    assert.equal(summary.metricsBindAddress, '127.0.0.1:8090');
    assert.equal(summary.leaseNamespace, 'ops');
    assert.equal(summary.identity, 'stepwise-0');
    assert.equal(summary.externalBindAddress, '(off)');
    assert.equal(summary.notifications, '(none)');
    // JSON-safe: the logger writes it with JSON.stringify.
    assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary);
  });

  it('drops credentials and queries from URLs, and names where secrets come from, not them', () => {
    const summary = configSummary(
      parseConfig(
        [
          '--external-bind-address=0.0.0.0:8080',
          '--public-url=https://ops:hunter2@stepwise.example.com/?token=s3cret',
          '--slack-api-url=https://bot:xoxb-secret@slack.example/api',
          '--notifications-secret=ops/stepwise-notifications',
          '--trusted-proxy-cidrs=10.0.0.0/8,fd00::/8',
        ],
        {},
      ),
    );
    const text = JSON.stringify(summary);
    for (const secret of ['hunter2', 's3cret', 'xoxb-secret', 'ops:', 'bot:']) {
      assert.ok(!text.includes(secret), `${secret} in ${text}`);
    }
    assert.equal(summary.publicUrl, 'https://stepwise.example.com');
    assert.equal(summary.slackApiUrl, 'https://slack.example/api');
    assert.equal(summary.notifications, 'secret ops/stepwise-notifications');
    assert.equal(summary.externalBindAddress, '0.0.0.0:8080');
    assert.equal(summary.trustedProxyNetworks, 2);
  });
});
