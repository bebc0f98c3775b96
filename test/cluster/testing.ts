// Helpers for tests that run against the harness's cluster (`make e2e`, or any command under
// `node test/cluster/cli.ts with -- ...`), which puts its kubeconfig in KUBECONFIG.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { readCredentials, writeKubeconfig } from './kubeconfig.ts';
import { issueUserCertificate } from './pki.ts';
import { KubeHttp } from './kube-http.ts';
import { pollUntil } from './poll.ts';

let cached: KubeConfig | undefined;

/**
 * A plain JSON client for the same cluster. Use it to send objects exactly as written:
 * client-node's KubernetesObjectApi re-serializes built-in kinds through its typed models and
 * silently drops keys whose wire name differs from the model's property name (for instance
 * `x-kubernetes-int-or-string` in a CRD schema).
 */
export function kubeHttp(): KubeHttp {
  kubeConfig(); // same KUBECONFIG checks
  return new KubeHttp(readCredentials(process.env.KUBECONFIG ?? ''));
}

/** The cluster's KubeConfig, from KUBECONFIG; refuses to guess when it is not set. */
export function kubeConfig(): KubeConfig {
  if (cached) return cached;
  const file = process.env.KUBECONFIG;
  if (!file) {
    throw new Error(
      'KUBECONFIG is not set: run end-to-end tests with `make e2e`, or under ' +
        '`node test/cluster/cli.ts with -- <command>`',
    );
  }
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  const server = kc.getCurrentCluster()?.server ?? '';
  // Tests talk to loopback only; a kubeconfig for a real cluster here is a mistake.
  if (!/^https:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(server)) {
    throw new Error(`refusing to run tests against ${server}: not a loopback API server`);
  }
  cached = kc;
  return kc;
}

/**
 * Creates a namespace named `<prefix>-<random>` and deletes it when the current test (or, at
 * the top level of a file, the file) ends. Deletion is not awaited to completion: namespace
 * cleanup is the namespace controller's work and must not slow the next test.
 */
export async function testNamespace(prefix: string): Promise<string> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const base = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 50);
  const name = `${base}-${randomBytes(4).toString('hex')}`;
  await core.createNamespace({
    body: { metadata: { name, labels: { 'stepwise.dev/test-namespace': 'true' } } },
  });
  after(async () => {
    try {
      await core.deleteNamespace({ name });
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
    }
  });
  return name;
}

/** Polls until `probe` returns something other than undefined (default: 30 s, every 100 ms). */
export function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  return pollUntil(what, probe, { timeoutMs, intervalMs: 100 });
}

/** The HTTP status of a failed API call, or undefined when it succeeded. */
export async function apiStatus(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return undefined;
  } catch (err) {
    if (err instanceof ApiException) return err.code;
    throw err;
  }
}

let issued = 0;

/**
 * A kubeconfig for the harness's cluster as another person: a client certificate for `name` in
 * `groups`, signed by the cluster's CA (the API server authenticates it; RBAC decides the rest).
 */
export async function userKubeconfig(
  name: string,
  groups: readonly string[] = [],
): Promise<string> {
  const admin = kubeConfigPath();
  const dir = dirname(admin);
  // Several e2e files issue the same person at once (each with its own groups): one set of
  // files per call, or one file's reader meets another's half-written kubeconfig.
  const stem = `user-${name.replace(/[^A-Za-z0-9._-]/g, '_')}-${process.pid}-${++issued}`;
  const pair = await issueUserCertificate(join(dir, 'pki'), name, groups, stem);
  const file = join(dir, `${stem}.kubeconfig`);
  await writeKubeconfig(file, readCredentials(admin).server, join(dir, 'pki', 'ca.crt'), pair);
  return file;
}

function kubeConfigPath(): string {
  kubeConfig(); // refuses anything but the harness's loopback cluster
  return process.env.KUBECONFIG ?? '';
}
