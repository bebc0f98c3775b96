// Who a request comes from, for its rate-limit bucket: X-Forwarded-For counts only from a
// trusted proxy, read from the right; garbage and spoofed entries never become the client.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  clientAddress,
  NO_TRUSTED_PROXIES,
  parseTrustedProxies,
} from '../../../src/server/client-address.ts';

function proxies(list: string) {
  const parsed = parseTrustedProxies(list);
  assert.ok(parsed.ok, `parses ${list}`);
  return parsed.proxies;
}

describe('client address', () => {
  const ingress = proxies('10.0.0.0/8,fd00::/8,192.168.1.7');

  it('without trusted proxies is the socket address, whatever X-Forwarded-For says', () => {
    assert.equal(clientAddress('10.1.2.3', '1.1.1.1', NO_TRUSTED_PROXIES), '10.1.2.3');
    assert.equal(clientAddress('203.0.113.5', '1.1.1.1', ingress), '203.0.113.5');
  });

  it('from a trusted proxy is the right-most forwarded address that is not a proxy', () => {
    assert.equal(clientAddress('10.0.0.9', '203.0.113.5', ingress), '203.0.113.5');
    // The client wrote 6.6.6.6 itself; the proxies appended the rest.
    assert.equal(
      clientAddress('10.0.0.9', '6.6.6.6, 203.0.113.5, 10.2.0.1', ingress),
      '203.0.113.5',
    );
    assert.equal(clientAddress('192.168.1.7', '198.51.100.1', ingress), '198.51.100.1');
    assert.equal(clientAddress('192.168.1.8', '198.51.100.1', ingress), '192.168.1.8');
  });

  it('reads IPv6 and v4-mapped addresses, in one canonical form', () => {
    assert.equal(clientAddress('fd00::1', '2001:DB8:0:0::7', ingress), '2001:db8::7');
    assert.equal(clientAddress('::ffff:10.0.0.9', '::ffff:203.0.113.5', ingress), '203.0.113.5');
    assert.equal(clientAddress('::ffff:203.0.113.5', '1.1.1.1', ingress), '203.0.113.5');
    assert.equal(
      clientAddress('fd00::1', '[2001:db8::1]:443, 198.51.100.2:5000', ingress),
      '198.51.100.2',
    );
    assert.equal(clientAddress('fd00::1', '[2001:db8::1]:443', ingress), '2001:db8::1');
    assert.equal(clientAddress('2001:db8:0:1:0:0:0:1', undefined, ingress), '2001:db8:0:1::1');
  });

  it('stops at garbage: the last trusted hop read is the client, never the garbage', () => {
    assert.equal(clientAddress('10.0.0.9', 'not-an-ip', ingress), '10.0.0.9');
    assert.equal(clientAddress('10.0.0.9', '203.0.113.5, ', ingress), '10.0.0.9');
    assert.equal(clientAddress('10.0.0.9', 'evil, 10.3.3.3', ingress), '10.3.3.3');
    assert.equal(clientAddress('10.0.0.9', '1.2.3.4.5, fe80::1%eth0', ingress), '10.0.0.9');
    assert.equal(clientAddress('10.0.0.9', '', ingress), '10.0.0.9');
  });

  it('when every hop is a proxy, the left-most is the client', () => {
    assert.equal(clientAddress('10.0.0.9', '10.5.5.5, 10.4.4.4', ingress), '10.5.5.5');
  });

  it('parses networks and single hosts, refuses anything else', () => {
    for (const bad of ['10.0.0.0/33', '::/129', 'ingress', '10.0.0.0/8/1', '10.0.0.0/a', '1.2.3']) {
      const r = parseTrustedProxies(`192.168.0.0/16,${bad}`);
      assert.deepEqual(r, { ok: false, bad });
    }
    const all = proxies('0.0.0.0/0');
    assert.equal(clientAddress('8.8.8.8', '9.9.9.9', all), '9.9.9.9');
    assert.equal(clientAddress('2001:db8::1', '9.9.9.9', all), '2001:db8::1', 'v4 nets only');
    assert.deepEqual(parseTrustedProxies(' , '), { ok: true, proxies: { cidrs: [] } });
  });
});
