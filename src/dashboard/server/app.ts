/**
 * The dashboard's HTTP server: loopback only, every request checked by src/dashboard/server/
 * security.ts, the page's shell and assets, one server-sent-event stream per open page (the list,
 * or one Rollout), and the actions. What the page shows comes from the shared watches (hub.ts);
 * what an action writes is decided and sent by the caller's `actions` (the plugin's own request
 * builders, with the user's credentials).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Rollout } from '../../api/rollout.ts';
import type { ActionOffer, ActionRequest, ActionResult, Viewer } from '../model/wire.ts';
import type { Hub } from './hub.ts';
import { refusalPage, shellPage } from './pages.ts';
import { ACTION_SHAPE, json, parseAction, readBody, send } from './respond.ts';
import { newSecret, sameSecret, SECURITY_HEADERS, Sessions, type Session } from './security.ts';
import { closeServer, openStream, streamContext } from './streams.ts';

export interface DashboardActions {
  /** The buttons for this Rollout, enabled where the plugin's rules would act. */
  offers(ro: Rollout, now: number): ActionOffer[];
  /** Decide and write, as the plugin does; `status` is the HTTP status to answer with. */
  run(req: ActionRequest): Promise<ActionResult & { status: number }>;
}

export interface Assets {
  readonly js: string;
  readonly css: string;
}

export interface DashboardOptions {
  readonly hub: Hub;
  readonly actions: DashboardActions;
  readonly assets: Assets;
  /** 0: any free port (tests). */
  readonly port: number;
  readonly now?: () => number;
  /** A comment line on idle streams, so a dropped browser is noticed. Default 15 s. */
  readonly heartbeatMs?: number;
  /** Whom every action is sent as (the kubeconfig's user), when the API server said. */
  readonly viewer?: Viewer;
}

export interface Dashboard {
  /** http://127.0.0.1:PORT/?token=…: what the user opens. */
  readonly url: string;
  readonly port: number;
  /** Open event streams (one per open page). */
  readonly streams: number;
  close(): Promise<void>;
}

export async function serveDashboard(o: DashboardOptions): Promise<Dashboard> {
  const now = o.now ?? Date.now;
  const token = newSecret();
  const streams = streamContext(o, now);
  const open = streams.open;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `internal error: ${String(err)}\n`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const s = sessions;
    if (!s.hostAllowed(req.headers.host)) {
      send(res, 421, 'text/plain', 'This dashboard answers at 127.0.0.1 only.\n');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const given = url.searchParams.get('token');
    if (req.method === 'GET' && given !== null) {
      if (!s.tokenMatches(given)) {
        send(
          res,
          403,
          'text/html',
          refusalPage(
            'Refused',
            'This token is not the dashboard’s: it changes at every start. Open the address kubectl stepwise dashboard printed last.',
          ),
        );
        return;
      }
      // Exchanged for a cookie, and out of the address bar and the history.
      const { cookie } = s.open();
      res.writeHead(303, { ...SECURITY_HEADERS, 'Set-Cookie': cookie, Location: '/' });
      res.end();
      return;
    }
    const session = s.of(req);
    if (session === undefined) {
      const api = url.pathname.startsWith('/api/');
      if (api) json(res, 401, { ok: false, message: 'not signed in' });
      else
        send(
          res,
          401,
          'text/html',
          refusalPage(
            'Sign-in needed',
            'Open the address kubectl stepwise dashboard printed: it carries a token, exchanged for a cookie on first use.',
          ),
        );
      return;
    }
    const route = `${req.method ?? ''} ${url.pathname}`;
    switch (route) {
      case 'GET /':
        send(res, 200, 'text/html', shellPage(session.csrf, o.hub.scope));
        return;
      case 'GET /app.js':
        send(res, 200, 'text/javascript', o.assets.js);
        return;
      case 'GET /app.css':
        send(res, 200, 'text/css', o.assets.css);
        return;
      case 'GET /api/stream':
        openStream(streams, o.viewer === undefined ? {} : { viewer: o.viewer }, req, res, url);
        return;
      case 'GET /favicon.ico':
        res.writeHead(204, SECURITY_HEADERS).end();
        return;
      case 'POST /api/action':
        await action(req, res, session);
        return;
      default:
        send(res, 404, 'text/plain', 'not found\n');
    }
  }

  async function action(
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
  ): Promise<void> {
    // A page of another site cannot pass these: it has neither our Origin nor the CSRF token
    // (which only our page holds), and a form cannot send JSON with a custom header.
    if (!sessions.originAllowed(req)) {
      json(res, 403, { ok: false, message: 'refused: the request does not come from this page' });
      return;
    }
    if (!sameCsrf(req.headers['x-csrf-token'], session.csrf)) {
      json(res, 403, { ok: false, message: 'refused: missing or wrong CSRF token' });
      return;
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      json(res, 415, { ok: false, message: 'send application/json' });
      return;
    }
    const body = await readBody(req);
    const request = body === undefined ? undefined : parseAction(body);
    if (request === undefined) {
      json(res, 400, { ok: false, message: ACTION_SHAPE });
      return;
    }
    const { status, ...result } = await o.actions.run(request);
    json(res, status, result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // Read by the handlers, which run only after this line: the listen callback's continuation
  // runs before any connection's events.
  const sessions = new Sessions(token, port);
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    get streams() {
      return open.size;
    },
    close: () => closeServer(server, open),
  };
}

const sameCsrf = (given: string | string[] | undefined, csrf: string): boolean =>
  typeof given === 'string' && sameSecret(given, csrf);
