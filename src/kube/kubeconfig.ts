/**
 * Where the API server is and how to authenticate to it, read the way kubectl and client-go
 * read it: `KUBECONFIG` (files merged in order, the first to set a value wins), else the
 * in-cluster service account, else `~/.kube/config`. Our own reader, because client-node's
 * KubeConfig loads every generated API with it (about 90 MB of the controller's RSS) and the
 * controller needs only this. Credentials it covers: client certificates, bearer tokens (a
 * token file is read again on each use, so rotated service-account tokens are picked up),
 * basic auth. A user with an `exec` or `auth-provider` plugin is reported as such, for the
 * caller to hand to client-node.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';

export interface Connection {
  /** https://host:port, no trailing slash. */
  readonly server: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  /** The Authorization header for a request, read fresh (token files rotate). */
  readonly authorization: () => string | undefined;
  /** The context's namespace (in-cluster: the pod's). */
  readonly namespace?: string;
  /** Where it came from, for logs (a file path or `in-cluster`). */
  readonly source: string;
}

export type ConnectionResult =
  | { readonly kind: 'connection'; readonly connection: Connection }
  /** The user authenticates through a plugin we do not run ourselves. */
  | { readonly kind: 'plugin'; readonly files: readonly string[]; readonly context?: string };

export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}
interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}
interface UserEntry {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
}
interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}
interface KubeconfigFile {
  'current-context'?: string;
  clusters?: Named<ClusterEntry>[];
  users?: Named<UserEntry>[];
  contexts?: Named<ContextEntry>[];
}

/** Paths in a kubeconfig are relative to the file that names them. */
interface Located<T> {
  readonly value: T;
  readonly dir: string;
}

export function loadConnection(
  env: NodeJS.ProcessEnv = process.env,
  opts: { readonly context?: string; readonly saDir?: string } = {},
): ConnectionResult {
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (files.length > 0) return connectionFromFiles(files, opts.context);
  const pod = inClusterConnection(env, opts.saDir);
  if (pod !== undefined) return { kind: 'connection', connection: pod };
  const home = homeKubeconfig(env);
  if (home !== undefined) return connectionFromFiles([home], opts.context);
  throw new KubeconfigError(
    'no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account',
  );
}

/** ~/.kube/config, if there is one. */
export function homeKubeconfig(env: NodeJS.ProcessEnv): string | undefined {
  const home = join(env.HOME || homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

/** The pod's service account; undefined outside a pod. */
export function inClusterConnection(
  env: NodeJS.ProcessEnv,
  saDir: string = SA_DIR,
): Connection | undefined {
  if (!env.KUBERNETES_SERVICE_HOST || !existsSync(join(saDir, 'token'))) return undefined;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const tokenFile = join(saDir, 'token');
  const namespaceFile = join(saDir, 'namespace');
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: readFileSync(join(saDir, 'ca.crt'), 'utf8'),
    insecureSkipTlsVerify: false,
    authorization: bearerFromFile(tokenFile),
    ...(existsSync(namespaceFile) ? { namespace: readFileSync(namespaceFile, 'utf8').trim() } : {}),
    source: 'in-cluster',
  };
}

/** The bearer token of `file`, re-read at most every minute (bound tokens rotate hourly). */
function bearerFromFile(file: string): () => string {
  let token = '';
  let readAt = -Infinity;
  return () => {
    const now = Date.now();
    if (now - readAt > 60_000) {
      token = readFileSync(file, 'utf8').trim();
      readAt = now;
    }
    return `Bearer ${token}`;
  };
}

/** Kubeconfig files merged as kubectl merges them (the first to name a thing wins). */
export function connectionFromFiles(
  files: readonly string[],
  contextName?: string,
): ConnectionResult {
  const clusters = new Map<string, Located<ClusterEntry>>();
  const users = new Map<string, Located<UserEntry>>();
  const contexts = new Map<string, ContextEntry>();
  let current: string | undefined;
  for (const file of files) {
    let doc: KubeconfigFile;
    try {
      doc = load(readFileSync(file, 'utf8')) ?? {};
    } catch (err) {
      throw new KubeconfigError(
        `cannot read kubeconfig ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const dir = dirname(file);
    current ??= doc['current-context'] || undefined;
    for (const c of doc.clusters ?? []) {
      if (c.name && c.cluster && !clusters.has(c.name)) {
        clusters.set(c.name, { value: c.cluster, dir });
      }
    }
    for (const u of doc.users ?? []) {
      if (u.name && u.user && !users.has(u.name)) users.set(u.name, { value: u.user, dir });
    }
    for (const c of doc.contexts ?? []) {
      if (c.name && c.context && !contexts.has(c.name)) contexts.set(c.name, c.context);
    }
  }
  const name = contextName ?? current;
  if (name === undefined) throw new KubeconfigError('the kubeconfig has no current context');
  const context = contexts.get(name);
  if (context === undefined) throw new KubeconfigError(`context "${name}" not found in kubeconfig`);
  const cluster = clusters.get(context.cluster ?? '');
  if (cluster?.value.server === undefined) {
    throw new KubeconfigError(`context "${name}" has no cluster with a server address`);
  }
  const user = users.get(context.user ?? '') ?? { value: {}, dir: '' };
  if (user.value.exec !== undefined || user.value['auth-provider'] !== undefined) {
    return { kind: 'plugin', files, context: name };
  }
  const c = cluster.value;
  const u = user.value;
  const server = c.server?.replace(/\/+$/, '') ?? '';
  const ca = pem(c['certificate-authority-data'], c['certificate-authority'], cluster.dir);
  const cert = pem(u['client-certificate-data'], u['client-certificate'], user.dir);
  const key = pem(u['client-key-data'], u['client-key'], user.dir);
  return {
    kind: 'connection',
    connection: {
      server,
      ...(ca !== undefined ? { ca } : {}),
      ...(cert !== undefined ? { cert } : {}),
      ...(key !== undefined ? { key } : {}),
      insecureSkipTlsVerify: c['insecure-skip-tls-verify'] === true,
      ...(c['tls-server-name'] ? { tlsServerName: c['tls-server-name'] } : {}),
      authorization: authorization(u, user.dir),
      ...(context.namespace ? { namespace: context.namespace } : {}),
      source: files.join(delimiter),
    },
  };
}

function authorization(u: UserEntry, dir: string): () => string | undefined {
  if (u.token) {
    const header = `Bearer ${u.token}`;
    return () => header;
  }
  if (u.tokenFile) return bearerFromFile(resolvePath(u.tokenFile, dir));
  if (u.username !== undefined && u.password !== undefined) {
    const header = `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;
    return () => header;
  }
  return () => undefined;
}

/** `*-data` (base64) wins over the file, as in kubectl. */
function pem(data: string | undefined, file: string | undefined, dir: string): string | undefined {
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  if (file) return readNamedFile(resolvePath(file, dir));
  return undefined;
}

function readNamedFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new KubeconfigError(
      `cannot read "${path}" named in the kubeconfig: ${typeof code === 'string' ? code : String(err)}`,
      { cause: err },
    );
  }
}

function resolvePath(file: string, dir: string): string {
  return isAbsolute(file) ? file : join(dir, file);
}
