// Our kubeconfig reader, as kubectl reads one: KUBECONFIG files merged in order (the first to
// set a value wins), relative paths resolved from their file, `*-data` over files, tokens (a
// token file read fresh), in-cluster service accounts, plugin users handed on, clear errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { KubeconfigError, loadConnection } from '../../../src/kube/kubeconfig.ts';
import type { Connection } from '../../../src/kube/kubeconfig.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'stepwise-kubeconfig-'));
}

function write(d: string, name: string, doc: object): string {
  const file = join(d, name);
  writeFileSync(file, dump(doc));
  return file;
}

function connection(r: ReturnType<typeof loadConnection>): Connection {
  assert.equal(r.kind, 'connection');
  return (r as { connection: Connection }).connection;
}

const cluster = (server: string, extra: object = {}) => ({ server, ...extra });

describe('kubeconfig files', () => {
  it('client certificates as data, the context namespace, no trailing slash', () => {
    const d = dir();
    const file = write(d, 'config', {
      'current-context': 'x',
      clusters: [
        {
          name: 'c',
          cluster: cluster('https://127.0.0.1:6443/', { 'certificate-authority-data': b64('CA') }),
        },
      ],
      users: [
        {
          name: 'u',
          user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
        },
      ],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'team' } }],
    });
    const c = connection(loadConnection({ KUBECONFIG: file }));
    assert.equal(c.server, 'https://127.0.0.1:6443');
    assert.deepEqual([c.ca, c.cert, c.key, c.namespace], ['CA', 'CERT', 'KEY', 'team']);
    assert.equal(c.authorization(), undefined);
    assert.equal(c.insecureSkipTlsVerify, false);
  });

  it('files merged in order: the first to set the current context or a name wins', () => {
    const d = dir();
    const first = write(d, 'a', {
      'current-context': 'x',
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      users: [{ name: 'u', user: { token: 'first' } }],
    });
    const second = write(d, 'b', {
      'current-context': 'y',
      clusters: [{ name: 'c', cluster: cluster('https://10.0.0.1') }],
      users: [{ name: 'u', user: { token: 'second' } }],
    });
    const c = connection(loadConnection({ KUBECONFIG: `${first}:${second}` }));
    assert.equal(c.server, 'https://10.0.0.1');
    assert.equal(c.authorization(), 'Bearer first');
  });

  it('relative certificate and token files resolve from the kubeconfig’s folder; a token file is read fresh', () => {
    const d = dir();
    mkdirSync(join(d, 'pki'));
    writeFileSync(join(d, 'pki', 'ca.crt'), 'CAFILE');
    writeFileSync(join(d, 'token'), 'one\n');
    const file = write(d, 'config', {
      'current-context': 'x',
      clusters: [
        { name: 'c', cluster: cluster('https://h:1', { 'certificate-authority': 'pki/ca.crt' }) },
      ],
      users: [{ name: 'u', user: { tokenFile: 'token' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    });
    const c = connection(loadConnection({ KUBECONFIG: file }));
    assert.equal(c.ca, 'CAFILE');
    assert.equal(c.authorization(), 'Bearer one');
  });

  it('a user with an exec plugin is handed on, not half-read', () => {
    const d = dir();
    const file = write(d, 'config', {
      'current-context': 'x',
      clusters: [{ name: 'c', cluster: cluster('https://h:1') }],
      users: [{ name: 'u', user: { exec: { command: 'aws' } } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    });
    assert.deepEqual(loadConnection({ KUBECONFIG: file }), {
      kind: 'plugin',
      files: [file],
      context: 'x',
    });
  });

  for (const [label, doc, message] of [
    ['no current context', { contexts: [] }, /no current context/],
    ['a missing context', { 'current-context': 'nope' }, /context "nope" not found/],
    [
      'a context without a server',
      { 'current-context': 'x', contexts: [{ name: 'x', context: { cluster: 'c' } }] },
      /has no cluster with a server address/,
    ],
  ] as const) {
    it(`refuses ${label} with a clear error`, () => {
      const file = write(dir(), 'config', doc);
      assert.throws(
        () => loadConnection({ KUBECONFIG: file }),
        (e: unknown) => e instanceof KubeconfigError && message.test(e.message),
      );
    });
  }

  it('a certificate file the kubeconfig names that cannot be read is named, with the system code', () => {
    const d = dir();
    const file = write(d, 'config', {
      'current-context': 'x',
      clusters: [
        { name: 'c', cluster: cluster('https://h', { 'certificate-authority': 'ca.crt' }) },
      ],
      contexts: [{ name: 'x', context: { cluster: 'c' } }],
    });
    assert.throws(
      () => loadConnection({ KUBECONFIG: file }),
      (e: unknown) =>
        e instanceof KubeconfigError &&
        e.message === `cannot read "${join(d, 'ca.crt')}" named in the kubeconfig: ENOENT`,
    );
  });

  it('a file that is not YAML names the file', () => {
    const d = dir();
    writeFileSync(join(d, 'config'), 'clusters: [');
    assert.throws(
      () => loadConnection({ KUBECONFIG: join(d, 'config') }),
      /cannot read kubeconfig .*config/,
    );
  });
});

describe('in a pod', () => {
  it('uses the service account: API address from the environment, CA, namespace, token', () => {
    const sa = dir();
    writeFileSync(join(sa, 'token'), 'sa-token');
    writeFileSync(join(sa, 'ca.crt'), 'SACA');
    writeFileSync(join(sa, 'namespace'), 'stepwise-system\n');
    const c = connection(
      loadConnection(
        { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', HOME: dir() },
        { saDir: sa },
      ),
    );
    assert.equal(c.server, 'https://10.96.0.1:443');
    assert.equal(c.ca, 'SACA');
    assert.equal(c.namespace, 'stepwise-system');
    assert.equal(c.authorization(), 'Bearer sa-token');
    assert.equal(c.source, 'in-cluster');
  });

  it('nothing to go on: one clear error', () => {
    assert.throws(
      () => loadConnection({ HOME: dir() }, { saDir: dir() }),
      /no kubeconfig: set KUBECONFIG/,
    );
  });
});
