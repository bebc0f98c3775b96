#!/usr/bin/env node
/**
 * stepwise-dashboard: the dashboard served in the cluster (the Helm chart's dashboard
 * Deployment runs it from the controller's image). Its ServiceAccount keeps the shared watches
 * (one per kind, the plugin's) and asks TokenReview and SubjectAccessReview; what people see and
 * do is theirs (src/dashboard/server/cluster-app.ts). The actions are the plugin's own, sent
 * with a client that acts as the person (kube-access.ts).
 */
import { clientOf } from '../../client.ts';
import { findConnection, overHttps } from '../../connection.ts';
import { CliError, errorLine } from '../../errors.ts';
import { dashboardAssets, serveClusterDashboard } from '../../../dashboard/index.ts';
import { pluginActions } from '../actions.ts';
import { startWatches } from '../watches.ts';
import { IN_CLUSTER_USAGE, parseInClusterFlags } from './flags.ts';
import { kubeAccess } from './kube-access.ts';

async function main(): Promise<number> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(IN_CLUSTER_USAGE);
    return 0;
  }
  let config;
  try {
    config = parseInClusterFlags(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${errorLine(err)}\n`);
    return 2;
  }
  // KUBECONFIG when set (tests, running it by hand), else the pod's ServiceAccount.
  const found = findConnection({}, process.env);
  if (found.kind === 'plugin') {
    throw new CliError(
      'the kubeconfig user authenticates through a credential plugin; the dashboard needs a token or a client certificate',
    );
  }
  const own = clientOf(overHttps(found.connection));
  const access = kubeAccess(found.connection);
  const watches = startWatches(own, config.namespace);
  // The plugin's decisions and writes; nothing here reads stdin or waits for Ctrl-C.
  const deps = {
    now: Date.now,
    env: {},
    connect: () => Promise.reject(new Error('not used in the cluster')),
    onInterrupt: () => () => undefined,
    readStdin: () => Promise.resolve(''),
  };
  const plugin = pluginActions(own, deps);
  const [assets] = await Promise.all([dashboardAssets(), watches.started]);
  const dashboard = await serveClusterDashboard({
    hub: watches.hub,
    identity: access.identity,
    actions: {
      offers: (ro, now) => plugin.offers(ro, now),
      run: (req, session) => pluginActions(access.clientFor(session), deps).run(req),
    },
    assets,
    host: config.listenAddress,
    port: config.port,
    publicOrigins: config.publicOrigins,
    allowedHosts: config.allowedHosts,
    ...(config.proxy === undefined ? {} : { proxy: config.proxy }),
    sessionTtlMs: config.sessionTtlMs,
    maxSessions: config.maxSessions,
  });
  const signIn = config.proxy
    ? `a bearer token, or ${config.proxy.userHeader}/${config.proxy.groupHeader} from ${config.proxy.trusted.map((c) => c.text).join(', ')}`
    : 'a bearer token';
  process.stdout.write(
    `Stepwise dashboard for ${watches.hub.scope} on ${own.server}: listening on ${config.listenAddress}:${dashboard.port}, for ${config.publicOrigins.join(', ')}; sign-in: ${signIn}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  watches.stop();
  await dashboard.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${errorLine(err)}\n`);
    process.exit(1);
  },
);
