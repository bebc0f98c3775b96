/**
 * `dashboard [--port 3100] [-A | -n NS] [--open]`: the web page, served on 127.0.0.1 by the
 * plugin with the user's own kubeconfig credentials (like kubectl proxy): every read and every
 * action is the user's, so Kubernetes RBAC decides, and the page shows its refusals. The address
 * printed carries a token (new at every start) that the browser exchanges for a session cookie.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { println } from '../context.ts';
import { CliError } from '../errors.ts';
import { clientFor, type Registrar } from './common.ts';

export const DEFAULT_DASHBOARD_PORT = 3100;

const parsePort = (value: string): number => {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new CliError(`--port must be a port number (0-65535), got "${value}"`);
  }
  return port;
};

export const registerDashboard: Registrar = (program, deps, act) => {
  program
    .command('dashboard')
    .description('Serve the web dashboard on 127.0.0.1, acting with your kubeconfig credentials')
    .option(
      '--port <port>',
      'port on 127.0.0.1 (0: any free one)',
      parsePort,
      DEFAULT_DASHBOARD_PORT,
    )
    .option('-A, --all-namespaces', 'show the Rollouts of every namespace you may list')
    .option('--open', 'open the page in the default browser (xdg-open)')
    .action(
      act(async (opts: { port: number; allNamespaces?: boolean; open?: boolean }, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        // Loaded on use: the other commands start without the server and its page.
        const { serveDashboard, dashboardAssets } = await import('../../dashboard/index.ts');
        const { startWatches } = await import('../dashboard/watches.ts');
        const { pluginActions } = await import('../dashboard/actions.ts');
        const watches = startWatches(client, opts.allNamespaces ? undefined : namespace);
        // Who the actions are sent as: "awaiting my approval" is computed for them. A server
        // that cannot say (no SelfSubjectReview) leaves that filter off.
        const [assets, viewer] = await Promise.all([
          dashboardAssets(),
          client.whoAmI().catch(() => undefined),
          watches.started,
        ]);
        let dashboard;
        try {
          dashboard = await serveDashboard({
            hub: watches.hub,
            actions: pluginActions(client, deps),
            assets,
            port: opts.port,
            ...(viewer === undefined ? {} : { viewer }),
          });
        } catch (err) {
          watches.stop();
          const code = (err as NodeJS.ErrnoException).code;
          throw new CliError(
            code === 'EADDRINUSE'
              ? `port ${opts.port} on 127.0.0.1 is in use; choose another with --port`
              : `cannot serve on 127.0.0.1:${opts.port}: ${String(err)}`,
          );
        }
        println(deps, `Stepwise dashboard for ${watches.hub.scope} on ${client.server}`);
        println(deps, `Open: ${dashboard.url}`);
        println(deps, 'It acts with your kubeconfig credentials. Ctrl-C stops it.');
        if (opts.open) {
          spawn('xdg-open', [dashboard.url], { stdio: 'ignore', detached: true })
            .on('error', () =>
              deps.err.write('warning: could not run xdg-open; open the address above\n'),
            )
            .unref();
        }
        await new Promise<void>((resolve) => {
          const release = deps.onInterrupt(() => {
            release();
            resolve();
          });
        });
        watches.stop();
        await dashboard.close();
        return 0;
      }),
    );
};
