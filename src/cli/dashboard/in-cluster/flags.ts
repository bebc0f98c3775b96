/**
 * The in-cluster dashboard's flags, checked once at start: a bad value is one line naming the
 * flag and exit code 2, before anything listens.
 */
import { parseArgs } from 'node:util';
import { parseGoDuration } from '../../../api/duration.ts';
import {
  CidrError,
  DEFAULT_GROUP_HEADER,
  DEFAULT_USER_HEADER,
  parseCidr,
  type ProxyTrust,
} from '../../../dashboard/index.ts';
import { CliError } from '../../errors.ts';
import { checkName } from '../../names.ts';

export interface InClusterConfig {
  readonly listenAddress: string;
  readonly port: number;
  /** undefined: every namespace (the ServiceAccount's ClusterRole lets it read them all). */
  readonly namespace: string | undefined;
  readonly publicOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
  readonly proxy: ProxyTrust | undefined;
  readonly sessionTtlMs: number;
  readonly maxSessions: number;
}

export const IN_CLUSTER_USAGE = `stepwise-dashboard: the Stepwise dashboard served in the cluster, with sign-in

  --listen-address ADDR       where to listen (default 0.0.0.0)
  --port PORT                 (default 3100; 0: any free port)
  --namespace NS              show this namespace only (default: all)
  --public-origin URL         the page's origin as browsers reach it, e.g. https://rollouts.example.com
                              (repeatable; default http://localhost:3100 and http://127.0.0.1:3100,
                              for kubectl port-forward)
  --allowed-host HOST[:PORT]  one more Host to answer to (repeatable)
  --trusted-proxy-cidr CIDR   trust the proxy headers on connections from this range (repeatable;
                              without one, sign-in is by bearer token only)
  --proxy-user-header NAME    (default ${DEFAULT_USER_HEADER})
  --proxy-group-header NAME   (default ${DEFAULT_GROUP_HEADER})
  --session-ttl DURATION      how long a sign-in lasts (default 8h)
  --max-sessions N            sessions kept at once, the oldest dropped first (default 1000)
`;

const HEADER = /^[A-Za-z0-9-]{1,64}$/;

export function parseInClusterFlags(argv: readonly string[]): InClusterConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'listen-address': { type: 'string', default: '0.0.0.0' },
        port: { type: 'string', default: '3100' },
        namespace: { type: 'string' },
        'public-origin': { type: 'string', multiple: true },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        'trusted-proxy-cidr': { type: 'string', multiple: true, default: [] },
        'proxy-user-header': { type: 'string', default: DEFAULT_USER_HEADER },
        'proxy-group-header': { type: 'string', default: DEFAULT_GROUP_HEADER },
        'session-ttl': { type: 'string', default: '8h' },
        'max-sessions': { type: 'string', default: '1000' },
      },
    }));
  } catch (err) {
    throw new CliError(
      `${err instanceof Error ? err.message : String(err)}\n\n${IN_CLUSTER_USAGE}`,
    );
  }
  const port = Number(values.port);
  if (!/^\d{1,5}$/.test(values.port) || port > 65535) {
    throw new CliError(`--port must be a port number (0-65535), got "${values.port}"`);
  }
  const publicOrigins = (
    values['public-origin'] ?? [`http://localhost:${port}`, `http://127.0.0.1:${port}`]
  ).map(origin);
  for (const name of ['proxy-user-header', 'proxy-group-header'] as const) {
    if (!HEADER.test(values[name]))
      throw new CliError(`--${name} must be a header name, got "${values[name]}"`);
  }
  let trusted;
  try {
    trusted = values['trusted-proxy-cidr'].map(parseCidr);
  } catch (err) {
    if (err instanceof CidrError) throw new CliError(`--trusted-proxy-cidr ${err.message}`);
    throw err;
  }
  const ttl = parseGoDuration(values['session-ttl']);
  if (!ttl.ok || ttl.value <= 0) {
    throw new CliError(
      `--session-ttl must be a duration such as 8h or 30m, got "${values['session-ttl']}"`,
    );
  }
  const maxSessions = Number(values['max-sessions']);
  if (!/^\d{1,7}$/.test(values['max-sessions']) || maxSessions < 1) {
    throw new CliError(`--max-sessions must be a positive number, got "${values['max-sessions']}"`);
  }
  return {
    listenAddress: values['listen-address'],
    port,
    namespace:
      values.namespace === undefined ? undefined : checkName('namespace', values.namespace),
    publicOrigins,
    allowedHosts: values['allowed-host'],
    proxy:
      trusted.length === 0
        ? undefined
        : {
            userHeader: values['proxy-user-header'],
            groupHeader: values['proxy-group-header'],
            trusted,
          },
    sessionTtlMs: ttl.value,
    maxSessions,
  };
}

/** An origin as browsers send it: scheme, host and port, nothing else. */
function origin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      `--public-origin must be a URL such as https://rollouts.example.com, got "${text}"`,
    );
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.origin !== text.replace(/\/$/, '')
  ) {
    throw new CliError(`--public-origin must be scheme://host[:port] only, got "${text}"`);
  }
  return url.origin;
}
