// Plugin input as a new user types it: names are Kubernetes names before any request (one line
// in Kubernetes' words), and a server that is down is one line naming it and the system error,
// for every command. The network tests use a real closed port on 127.0.0.1, not a mock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../../src/cli/client.ts';
import { nameProblem } from '../../../src/cli/names.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { rollout, pausedStatus } from './fixtures.ts';
import { closedPort, oneLineError, runCli, writeKubeconfig } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'stepwise-cli-input-'));
const api = new FakeApiServer();
const live = join(dir, 'live.kubeconfig');
const env = (kubeconfig: string) => ({ KUBECONFIG: kubeconfig, HOME: dir });

before(async () => {
  await api.start();
  writeKubeconfig(live, api.url, 'shop');
  api.put('rollouts', structuredClone(rollout(pausedStatus)) as never);
});
after(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

describe('names, pure', () => {
  it('object names are RFC 1123 subdomains of at most 253 characters', () => {
    for (const ok of ['web', 'web-1', 'a.b-c.d', '0', 'x'.repeat(253)]) {
      assert.equal(nameProblem('rollout', ok), undefined, ok);
    }
    for (const bad of ['../x', 'a;b', 'Web', '-web', 'web-', 'a/b', '.', '..', 'a b', 'a..b']) {
      assert.equal(nameProblem('rollout', bad), SUBDOMAIN, bad);
    }
    assert.equal(nameProblem('rollout', ''), 'must not be empty');
    assert.equal(
      nameProblem('AnalysisRun', 'x'.repeat(254)),
      'must be no more than 253 characters',
    );
  });

  it('namespaces are RFC 1123 labels of at most 63 characters', () => {
    assert.equal(nameProblem('namespace', 'shop-1'), undefined);
    assert.equal(nameProblem('namespace', 'a.b'), LABEL);
    assert.equal(nameProblem('namespace', 'x'.repeat(64)), 'must be no more than 63 characters');
  });
});

/** Every command that takes a rollout name, with NAME where the name goes. */
const ROLLOUT_COMMANDS: string[][] = [
  ['get', 'rollout', 'NAME'],
  ['get', 'rollout', 'NAME', '--watch'],
  ['status', 'NAME'],
  ['status', 'NAME', '--watch=false'],
  ['promote', 'NAME'],
  ['promote', 'NAME', '--full'],
  ['abort', 'NAME'],
  ['retry', 'rollout', 'NAME'],
  ['retry', 'NAME'],
  ['approve', 'NAME'],
  ['reject', 'NAME', '-c', 'no'],
  ['restart', 'NAME'],
  ['undo', 'NAME'],
  ['undo', 'NAME', '--to-revision', '1'],
  ['set', 'image', 'NAME', 'web=nginx:1.27'],
  ['get', 'rollout', 'NAME', '-o', 'json'],
];
const withName = (args: string[], name: string) => args.map((a) => (a === 'NAME' ? name : a));

describe('names are checked before any request', () => {
  it('a bad rollout name is one line in Kubernetes words, for every command, nothing sent', async () => {
    for (const args of ROLLOUT_COMMANDS) {
      for (const [name, problem] of [
        ['../x', SUBDOMAIN],
        ['a;b', SUBDOMAIN],
        ['$(id)', SUBDOMAIN],
        ['', 'must not be empty'],
      ] as const) {
        const sent = api.requests.length;
        const r = await runCli(withName(args, name), { env: env(live) });
        assert.equal(
          oneLineError(r),
          `Error: ${JSON.stringify(name)} is not a valid rollout name: ${problem}`,
          `${args.join(' ')} with ${JSON.stringify(name)}: ${JSON.stringify(r)}`,
        );
        assert.equal(api.requests.length, sent, `${args.join(' ')}: no request`);
      }
    }
  });

  it('an AnalysisRun name, -n for every command, and a bad namespace in the context', async () => {
    const r = await runCli(['get', 'analysisrun', 'web/../x'], { env: env(live) });
    assert.equal(
      oneLineError(r),
      `Error: "web/../x" is not a valid AnalysisRun name: ${SUBDOMAIN}`,
    );
    const sent = api.requests.length;
    for (const args of [...ROLLOUT_COMMANDS, ['list'], ['list', '-A'], ['get', 'ar', 'x']]) {
      const n = await runCli([...withName(args, 'web'), '-n', 'shop/../kube-system'], {
        env: env(live),
      });
      assert.equal(
        oneLineError(n),
        `Error: "shop/../kube-system" is not a valid namespace name: ${LABEL}`,
        args.join(' '),
      );
    }
    const badContext = join(dir, 'bad-ns.kubeconfig');
    writeKubeconfig(badContext, api.url, 'Shop_1');
    const ctx = await runCli(['list'], { env: env(badContext) });
    assert.equal(oneLineError(ctx), `Error: "Shop_1" is not a valid namespace name: ${LABEL}`);
    assert.equal(api.requests.length, sent);
  });

  it('the client refuses a bad name itself, watches included (no raw path is built from it)', async () => {
    const client = await connect({ kubeconfig: live }, env(live));
    await assert.rejects(client.getRollout('shop', '..'), /"\.\." is not a valid rollout name/);
    const watch = client.watch('rollouts', '../kube-system', {}, () => undefined);
    const err = await watch.done;
    assert.match(String(err), /"\.\.\/kube-system" is not a valid namespace name/);
  });

  it('valid names go out as they are, one request path each', async () => {
    api.requests.length = 0;
    const r = await runCli(['get', 'rollout', 'web', '-o', 'name'], { env: env(live) });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(api.requests, [
      'GET /apis/stepwise.dev/v1alpha1/namespaces/shop/rollouts/web',
    ]);
  });
});

describe('a server that is down', () => {
  it('every command names the server and the system error (a real closed loopback port)', async () => {
    const port = await closedPort();
    const server = `https://127.0.0.1:${port}`;
    const file = join(dir, 'closed.kubeconfig');
    writeKubeconfig(file, server);
    const expected = `Error: cannot reach the Kubernetes API at ${server}: connect ECONNREFUSED 127.0.0.1:${port}`;
    for (const args of [
      ...ROLLOUT_COMMANDS.map((a) => withName(a, 'web')),
      ['list'],
      ['list', '-A', '-o', 'yaml'],
      ['get', 'analysisrun', 'web-1'],
    ]) {
      const r = await runCli(args, { env: env(file) });
      assert.equal(oneLineError(r), expected, `${args.join(' ')}: ${JSON.stringify(r)}`);
    }
  });

  it('a plain HTTP port for an https server, and a host that does not resolve', async () => {
    const http = join(dir, 'http.kubeconfig');
    writeKubeconfig(http, api.url.replace('http:', 'https:'));
    const tls = await runCli(['list'], { env: env(http) });
    assert.match(
      oneLineError(tls) ?? JSON.stringify(tls),
      /^Error: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+: TLS handshake failed: (wrong version number|packet length too long)$/,
    );
    const nowhere = join(dir, 'nowhere.kubeconfig');
    writeKubeconfig(nowhere, 'https://stepwise-test.invalid:6443');
    const dns = await runCli(['status', 'web'], { env: env(nowhere) });
    assert.match(
      oneLineError(dns) ?? JSON.stringify(dns),
      /^Error: cannot reach the Kubernetes API at https:\/\/stepwise-test\.invalid:6443: getaddrinfo (ENOTFOUND|EAI_AGAIN) stepwise-test\.invalid$/,
    );
  });

  it('a file or program the kubeconfig names that cannot be used is named too', async () => {
    const file = join(dir, 'ca.kubeconfig');
    writeKubeconfig(file, 'https://127.0.0.1:1');
    const { readFileSync, writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'insecure-skip-tls-verify: true',
        `certificate-authority: ${join(dir, 'missing-ca.crt')}`,
      ),
    );
    const r = await runCli(['list'], { env: env(file) });
    assert.equal(
      oneLineError(r),
      `Error: cannot read "${join(dir, 'missing-ca.crt')}" named in the kubeconfig: ENOENT`,
    );
  });
});
