// The flags that harden the approval port and the notification targets (issue 20 items 8, 9,
// 12), as an administrator meets them: values read, bad values refused at start-up naming the flag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../../src/controller/config.ts';
import { clientAddress } from '../../../src/server/client-address.ts';

const refused = (args: string[], message: RegExp) =>
  assert.throws(
    () => parseConfig(args, {}),
    (err: unknown) => err instanceof ConfigError && message.test(err.message),
  );

describe('approval port flags', () => {
  it('trusts no proxy and caps connections at 256 by default', () => {
    const c = parseConfig(['--external-bind-address=0.0.0.0:8080'], {});
    assert.equal(c.external?.maxConnections, 256);
    const trusted = c.external?.trustedProxies ?? { cidrs: [] };
    assert.equal(clientAddress('10.0.0.5', '203.0.113.9', trusted), '10.0.0.5');
  });

  it('reads --trusted-proxy-cidrs and --external-max-connections', () => {
    const c = parseConfig(
      [
        '--external-bind-address=0.0.0.0:8080',
        '--trusted-proxy-cidrs=10.0.0.0/8, fd00::/8',
        '--external-max-connections=32',
      ],
      {},
    );
    assert.equal(c.external?.maxConnections, 32);
    const trusted = c.external?.trustedProxies ?? { cidrs: [] };
    assert.equal(clientAddress('10.0.0.5', '203.0.113.9', trusted), '203.0.113.9');
    assert.equal(clientAddress('fd00::1', '2001:db8::7', trusted), '2001:db8::7');
  });

  it('refuses a proxy list entry that is not an address or network, naming it', () => {
    refused(['--trusted-proxy-cidrs=10.0.0.0/33'], /--trusted-proxy-cidrs .* got "10.0.0.0\/33"/);
    refused(['--trusted-proxy-cidrs=10.0.0.0/8,ingress'], /got "ingress"/);
    refused(['--external-max-connections=0'], /--external-max-connections must be a positive/);
  });

  it('refuses an http --public-url unless its host is loopback', () => {
    refused(['--public-url=http://stepwise.example.com'], /--public-url must be https/);
    refused(['--public-url=http://10.0.0.7:8080'], /http only for a loopback host/);
    for (const ok of ['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:9']) {
      assert.equal(parseConfig([`--public-url=${ok}`], {}).publicUrl, ok);
    }
    assert.equal(
      parseConfig(['--public-url=https://stepwise.example.com/'], {}).publicUrl,
      'https://stepwise.example.com',
    );
  });

  it('takes the notification targets file path', () => {
    assert.equal(parseConfig([], {}).notificationTargetsFile, undefined);
    const c = parseConfig(['--notification-targets=/etc/stepwise/targets.yaml'], {});
    assert.equal(c.notificationTargetsFile, '/etc/stepwise/targets.yaml');
  });
});
