/**
 * The dashboard served in the cluster: the same page and streams as the plugin's, for people
 * who sign in. No anonymous access: a person shows a Kubernetes bearer token (checked by
 * TokenReview) or comes through an authenticating proxy trusted by address (proxy-trust.ts).
 * What they see is narrowed to the namespaces they may list Rollouts in, and every action is
 * first asked of Kubernetes for them (SubjectAccessReview, access.ts), then sent as them by the
 * caller's `actions` (their own token, or impersonation): never with the dashboard's rights.
 * Host and Origin must be the configured public address(es) (no DNS rebinding, no cross-site
 * forms), and every action carries the session's CSRF token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Rollout } from '../../api/rollout.ts';
import type { ActionOffer, ActionRequest, ActionResult } from '../model/wire.ts';
import { actionAttributes, NamespaceAccess, refusalText, type ClusterIdentity } from './access.ts';
import type { Assets } from './app.ts';
import { SessionStore, type ClusterSession } from './cluster-sessions.ts';
import type { Hub } from './hub.ts';
import { refusalPage, shellPage, signInPage } from './pages.ts';
import { proxyIdentity, type ProxyTrust } from './proxy-trust.ts';
import { ACTION_SHAPE, json, parseAction, readBody, send } from './respond.ts';
import { CLUSTER_HEADERS, newSecret, sameSecret } from './security.ts';
import { closeServer, openStream, streamContext } from './streams.ts';

export interface ClusterActions {
  offers(ro: Rollout, now: number): ActionOffer[];
  /** Decide and write as the session's person; `status` is the HTTP status to answer with. */
  run(req: ActionRequest, session: ClusterSession): Promise<ActionResult & { status: number }>;
}

export interface ClusterDashboardOptions {
  readonly hub: Hub;
  readonly identity: ClusterIdentity;
  readonly actions: ClusterActions;
  readonly assets: Assets;
  /** Listen address, e.g. 0.0.0.0 in a pod, 127.0.0.1 in tests. */
  readonly host: string;
  readonly port: number;
  /** The page's origins as browsers reach it (https://rollouts.example.com): actions and forms
   *  must come from one, and the Host must be one of theirs. */
  readonly publicOrigins: readonly string[];
  /** More Host values to answer to (host:port), beside the public origins'. */
  readonly allowedHosts?: readonly string[];
  /** Sign-in by an authenticating proxy's headers; absent: bearer tokens only. */
  readonly proxy?: ProxyTrust;
  readonly sessionTtlMs?: number;
  readonly maxSessions?: number;
  /** How long a person's namespace answers are kept. */
  readonly accessTtlMs?: number;
  readonly heartbeatMs?: number;
  readonly now?: () => number;
}

export interface ClusterDashboard {
  readonly port: number;
  readonly streams: number;
  readonly sessions: number;
  close(): Promise<void>;
}

const MAX_TOKEN_BODY = 16 * 1024;

export async function serveClusterDashboard(o: ClusterDashboardOptions): Promise<ClusterDashboard> {
  const now = o.now ?? Date.now;
  const origins = new Set(o.publicOrigins.map((x) => new URL(x).origin));
  const hosts = new Set([...[...origins].map((x) => new URL(x).host), ...(o.allowedHosts ?? [])]);
  const sessions = new SessionStore({
    ttlMs: o.sessionTtlMs ?? 8 * 3600_000,
    max: o.maxSessions ?? 1000,
    now,
  });
  const access = new NamespaceAccess({
    check: (user, a) => o.identity.check(user, a),
    ttlMs: o.accessTtlMs ?? 30_000,
    max: o.maxSessions ?? 1000,
    now,
  });
  const streams = streamContext(o, now);
  const open = streams.open;
  const page = (res: ServerResponse, status: number, body: string, headers = {}): void =>
    send(res, status, 'text/html', body, { ...CLUSTER_HEADERS, ...headers });

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `internal error: ${String(err)}\n`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const route = `${req.method ?? ''} ${url.pathname}`;
    // The kubelet's probes name the pod's IP as Host: they get this line and nothing else.
    if (route === 'GET /healthz') return send(res, 200, 'text/plain', 'ok\n');
    if (!hosts.has(req.headers.host ?? '')) {
      return send(
        res,
        421,
        'text/plain',
        `This dashboard answers at ${[...origins].join(', ')} only.\n`,
      );
    }
    switch (route) {
      case 'GET /app.css': // the sign-in page's style too: nothing in it is secret
        return send(res, 200, 'text/css', o.assets.css, CLUSTER_HEADERS);
      case 'GET /favicon.ico':
        res.writeHead(204, CLUSTER_HEADERS).end();
        return;
      case 'GET /sign-in':
        return page(res, 200, signInPage());
      case 'POST /sign-in':
        return signIn(req, res);
      case 'POST /sign-out':
        return signOut(req, res);
    }
    const visit = visitor(req);
    if (visit === undefined) {
      if (url.pathname.startsWith('/api/'))
        return json(res, 401, { ok: false, message: 'not signed in' });
      return page(res, 401, signInPage());
    }
    const { session } = visit;
    switch (route) {
      case 'GET /':
        return page(
          res,
          200,
          shellPage(session.csrf, o.hub.scope, { username: session.user.username }),
          visit.cookie === undefined ? {} : { 'Set-Cookie': visit.cookie },
        );
      case 'GET /app.js':
        return send(res, 200, 'text/javascript', o.assets.js, CLUSTER_HEADERS);
      case 'GET /api/stream':
        return openStream(
          streams,
          { viewer: session.user, canSee: (ns) => access.canSee(session.user, ns) },
          req,
          res,
          url,
        );
      case 'POST /api/action':
        return action(req, res, session);
      default:
        return send(res, 404, 'text/plain', 'not found\n');
    }
  }

  /** The signed-in person: through a trusted proxy (a session opened on their first page), or
   *  by the session cookie of a token sign-in. */
  function visitor(req: IncomingMessage): { session: ClusterSession; cookie?: string } | undefined {
    const proxied = proxyIdentity(req.socket.remoteAddress, req.headersDistinct, o.proxy);
    const known = sessions.of(req.headers.cookie);
    if (proxied.kind === 'user') {
      const same =
        known?.credential.kind === 'proxy' &&
        known.user.username === proxied.username &&
        known.user.groups.join('\n') === proxied.groups.join('\n');
      if (same) return { session: known };
      const user = { username: proxied.username, groups: proxied.groups };
      if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').pathname === '/') {
        const { cookie, session } = sessions.open(user, { kind: 'proxy' });
        return { session, cookie };
      }
      // Reads need no session; an action without the page's session fails its CSRF check.
      return { session: { user, credential: { kind: 'proxy' }, csrf: newSecret(), expiresAt: 0 } };
    }
    // A proxy's session counts only while the proxy vouches for the person (a copied cookie on
    // a direct connection does not).
    return known?.credential.kind === 'token' ? { session: known } : undefined;
  }

  /** Forms and actions come from the page itself: our Origin, and not another site's fetch. */
  function fromOurPage(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined || !origins.has(origin)) return false;
    const site = req.headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin';
  }

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!fromOurPage(req)) {
      return page(
        res,
        403,
        refusalPage('Refused', 'Sign in from the dashboard’s own sign-in page.'),
      );
    }
    const body = await readBody(req, MAX_TOKEN_BODY);
    const token = new URLSearchParams(body ?? '').get('token')?.trim() ?? '';
    if (token === '') return page(res, 400, signInPage('Paste a bearer token to sign in.'));
    let reviewed;
    try {
      reviewed = await o.identity.review(token);
    } catch (err) {
      return page(res, 502, signInPage(`Cannot check the token now: ${messageOf(err)}`));
    }
    if (!reviewed.ok) {
      return page(
        res,
        403,
        signInPage(`Refused: Kubernetes did not accept this token (${reviewed.message}).`),
      );
    }
    const { cookie } = sessions.open(reviewed.user, { kind: 'token', token });
    res.writeHead(303, { ...CLUSTER_HEADERS, 'Set-Cookie': cookie, Location: '/' }).end();
  }

  async function signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = sessions.of(req.headers.cookie);
    const csrf = new URLSearchParams((await readBody(req)) ?? '').get('csrf') ?? undefined;
    if (!fromOurPage(req) || session === undefined || !sameSecret(csrf, session.csrf)) {
      return page(res, 403, refusalPage('Refused', 'Sign out from the dashboard’s own page.'));
    }
    const cookie = sessions.close(req.headers.cookie);
    res.writeHead(303, { ...CLUSTER_HEADERS, 'Set-Cookie': cookie, Location: '/sign-in' }).end();
  }

  async function action(
    req: IncomingMessage,
    res: ServerResponse,
    session: ClusterSession,
  ): Promise<void> {
    if (!fromOurPage(req)) {
      return json(res, 403, {
        ok: false,
        message: 'refused: the request does not come from this page',
      });
    }
    const given = req.headers['x-csrf-token'];
    if (typeof given !== 'string' || !sameSecret(given, session.csrf)) {
      return json(res, 403, { ok: false, message: 'refused: missing or wrong CSRF token' });
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return json(res, 415, { ok: false, message: 'send application/json' });
    }
    const body = await readBody(req);
    const request = body === undefined ? undefined : parseAction(body);
    if (request === undefined) return json(res, 400, { ok: false, message: ACTION_SHAPE });
    // Asked for this person before anything is sent: a refusal writes nothing.
    const attributes = actionAttributes(request);
    let decision;
    try {
      decision = await o.identity.check(session.user, attributes);
    } catch (err) {
      const message = `cannot ask Kubernetes whether you may ${attributes.verb} ${attributes.resource} in the namespace "${attributes.namespace}": ${messageOf(err)} (nothing was written)`;
      return json(res, 502, { ok: false, message });
    }
    if (!decision.allowed) {
      return json(res, 403, {
        ok: false,
        message: refusalText(session.user, attributes, decision),
      });
    }
    const { status, ...result } = await o.actions.run(request, session);
    json(res, status, result);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    get streams() {
      return open.size;
    },
    get sessions() {
      return sessions.size;
    },
    close: () => closeServer(server, open),
  };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
