/**
 * Where the plugin's requests go and how they are sent. kubectl does not parse global flags for
 * plugins, so --kubeconfig, --context and --as are ours; the files are found as kubectl finds
 * them (--kubeconfig, else KUBECONFIG's list merged in order, else ~/.kube/config, else the
 * pod's service account) and read by the controller's own kubeconfig reader, sent over its
 * node:https transport (src/kube). client-node is loaded only for a user whose credentials come
 * from an exec or auth-provider plugin: it is most of the single-file binary, and evaluating it
 * cost every command about 0.3 s of CPU.
 */
import { delimiter } from 'node:path';
import {
  connectionFromFiles,
  homeKubeconfig,
  inClusterConnection,
  KubeconfigError,
  type Connection,
  type ConnectionResult,
} from '../kube/kubeconfig.ts';
import { httpsTransport } from '../kube/https-transport.ts';
import type { HttpRequest, HttpTransport } from '../kube/rest.ts';
import type { GlobalOptions } from './client.ts';
import { CliError } from './errors.ts';

export interface PluginConnection {
  readonly transport: HttpTransport;
  /** https://127.0.0.1:PORT */
  readonly server: string;
  /** The context's namespace, if it names one. */
  readonly contextNamespace: string | undefined;
}

/** The kubeconfig files kubectl would read for these flags, in merge order. */
function kubeconfigFiles(g: GlobalOptions, env: NodeJS.ProcessEnv): string[] {
  if (g.kubeconfig) return [g.kubeconfig];
  const listed = (env['KUBECONFIG'] ?? '').split(delimiter).filter((f) => f !== '');
  if (listed.length > 0) return listed;
  const home = homeKubeconfig(env);
  return home === undefined ? [] : [home];
}

/** The kubeconfig kubectl would use for these flags; every failure is one CliError line. */
export function findConnection(g: GlobalOptions, env: NodeJS.ProcessEnv): ConnectionResult {
  const files = kubeconfigFiles(g, env);
  try {
    if (files.length > 0) return connectionFromFiles(files, g.context);
  } catch (err) {
    throw err instanceof KubeconfigError ? new CliError(err.message) : err;
  }
  const pod = inClusterConnection(env);
  if (pod === undefined) {
    throw new CliError(
      'no kubeconfig: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config',
    );
  }
  if (g.context !== undefined) throw new CliError(`context "${g.context}" not found`);
  return { kind: 'connection', connection: pod };
}

/** Reads the kubeconfig (nothing is sent yet); every failure is one CliError line. */
export async function openConnection(
  g: GlobalOptions,
  env: NodeJS.ProcessEnv,
): Promise<PluginConnection> {
  const found = findConnection(g, env);
  if (found.kind === 'plugin') return viaClientNode(g, env);
  return overHttps(found.connection, g.as);
}

/** The connection as the kubeconfig's user, or impersonating `as` (kubectl --as). */
export function overHttps(connection: Connection, as?: string): PluginConnection {
  const transport = httpsTransport(connection);
  return {
    transport: as === undefined ? transport : withHeaders(transport, { 'Impersonate-User': as }),
    server: connection.server,
    contextNamespace: connection.namespace,
  };
}

/**
 * Every request through `base` carries `extra` too. A request's own header of one of those
 * names, or any Impersonate-* header of its own, is dropped: only `extra` says whom a request
 * is for.
 */
export function withHeaders(
  base: HttpTransport,
  extra: Readonly<Record<string, string | readonly string[]>>,
): HttpTransport {
  const names = new Set(Object.keys(extra).map((k) => k.toLowerCase()));
  const dropped = (name: string): boolean =>
    names.has(name.toLowerCase()) || /^impersonate-/i.test(name);
  return {
    send(req: HttpRequest) {
      const own = Object.entries(req.headers ?? {}).filter(([k]) => !dropped(k));
      return base.send({ ...req, headers: { ...Object.fromEntries(own), ...extra } });
    },
  };
}

/** A user with an exec or auth-provider credential plugin: client-node runs it. */
async function viaClientNode(g: GlobalOptions, env: NodeJS.ProcessEnv): Promise<PluginConnection> {
  const [k8s, { kubeConfigTransport }, { loadKubeConfig }] = await Promise.all([
    import('@kubernetes/client-node'),
    import('../kube/client-node-transport.ts'),
    import('./kubeconfig.ts'),
  ]);
  const kc = new k8s.KubeConfig();
  loadKubeConfig(k8s, kc, g, env);
  return {
    transport: kubeConfigTransport(kc),
    server: kc.getCurrentCluster()!.server,
    contextNamespace: kc.getContextObject(kc.getCurrentContext())?.namespace,
  };
}
