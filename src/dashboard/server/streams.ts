/**
 * One server-sent-event stream per open page (the list, or one Rollout), fed by the hub: pushed
 * only when what the page shows changed, freed as soon as the browser goes. What a stream shows
 * may be narrowed per visitor (the cluster's server lets each person see only the namespaces
 * Kubernetes lets them list); the plugin's shows all the hub has.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Rollout } from '../../api/rollout.ts';
import { detailOf } from '../model/views.ts';
import type { ActionOffer, DetailPayload, ListPayload, Viewer } from '../model/wire.ts';
import type { Hub } from './hub.ts';
import { json, NAME } from './respond.ts';
import { SECURITY_HEADERS } from './security.ts';

/** What one visitor's streams show. */
export interface StreamScope {
  /** Whom the page acts as: "awaiting my approval" is computed for them. */
  readonly viewer?: Viewer;
  /** Whether this visitor may see a namespace's Rollouts; absent: every one the hub has. */
  readonly canSee?: (namespace: string) => Promise<boolean>;
}

export interface StreamContext {
  readonly hub: Hub;
  readonly offers: (ro: Rollout, now: number) => ActionOffer[];
  readonly now: () => number;
  readonly heartbeatMs: number;
  /** The open streams, so the server can end them on close. */
  readonly open: Set<ServerResponse>;
}

/** The streams' context both servers (plugin and in-cluster) build from their options. */
export function streamContext(
  o: {
    readonly hub: Hub;
    readonly actions: { offers(ro: Rollout, now: number): ActionOffer[] };
    readonly heartbeatMs?: number;
  },
  now: () => number,
): StreamContext {
  return {
    hub: o.hub,
    offers: (ro, t) => o.actions.offers(ro, t),
    now,
    heartbeatMs: o.heartbeatMs ?? 15_000,
    open: new Set<ServerResponse>(),
  };
}

export function openStream(
  ctx: StreamContext,
  scope: StreamScope,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): void {
  const key = url.searchParams.get('rollout');
  const [namespace = '', name = ''] = (key ?? '').split('/');
  if (key !== null && (!NAME.test(namespace) || !NAME.test(name))) {
    json(res, 400, { ok: false, message: 'rollout must be namespace/name' });
    return;
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
  });
  ctx.open.add(res);
  let last = '';
  let closed = false;
  let pending = Promise.resolve();
  // Sent only when what the page shows changed (the clock alone does not count). Pushes run one
  // after another: a visitor's namespace checks may take a request each.
  const pushNow = async (): Promise<void> => {
    const t = ctx.now();
    const payload =
      key === null
        ? await listPayload(ctx, scope, t)
        : await detailPayload(ctx, scope, namespace, name, t);
    if (closed) return;
    const data = JSON.stringify({ ...payload, now: 0 });
    if (data === last) return;
    last = data;
    const event = key === null ? 'list' : 'rollout';
    res.write(`event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`);
  };
  const push = (): void => {
    pending = pending.then(pushNow).catch(() => {
      res.destroy();
    });
  };
  const unsubscribe = ctx.hub.subscribe(push);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), ctx.heartbeatMs);
  heartbeat.unref();
  // A closed page (or a dropped connection) frees its stream at once.
  const free = (): void => {
    closed = true;
    unsubscribe();
    clearInterval(heartbeat);
    ctx.open.delete(res);
  };
  req.on('close', free);
  res.on('error', free);
  push();
}

async function listPayload(
  ctx: StreamContext,
  scope: StreamScope,
  t: number,
): Promise<ListPayload> {
  const all = ctx.hub.rows();
  const { canSee } = scope;
  let rows = all;
  const unknown: string[] = [];
  if (canSee !== undefined) {
    const namespaces = [...new Set(all.map((r) => r.namespace))];
    const seen = await Promise.all(
      namespaces.map(async (n) => {
        try {
          return [n, await canSee(n)] as const;
        } catch (err) {
          unknown.push(`cannot tell whether you may see namespace ${n}: ${messageOf(err)}`);
          return [n, false] as const;
        }
      }),
    );
    const visible = new Set(seen.filter(([, ok]) => ok).map(([n]) => n));
    rows = all.filter((r) => visible.has(r.namespace));
  }
  return {
    now: t,
    scope: ctx.hub.scope,
    rows,
    problems: [...ctx.hub.problems, ...unknown.sort()],
    ...(scope.viewer === undefined ? {} : { viewer: scope.viewer }),
  };
}

async function detailPayload(
  ctx: StreamContext,
  scope: StreamScope,
  namespace: string,
  name: string,
  t: number,
): Promise<DetailPayload> {
  const key = `${namespace}/${name}`;
  if (scope.canSee !== undefined) {
    const who = scope.viewer?.username ?? 'you';
    const refusal = await scope.canSee(namespace).then(
      (ok) =>
        ok
          ? undefined
          : `forbidden: user "${who}" cannot list rollouts in the namespace "${namespace}"`,
      (err: unknown) => `cannot tell whether you may see namespace ${namespace}: ${messageOf(err)}`,
    );
    if (refusal !== undefined) {
      return { now: t, key, problems: [...ctx.hub.problems, refusal], detail: null };
    }
  }
  const ro = ctx.hub.rollout(namespace, name);
  const sets = ctx.hub.sets;
  return {
    now: t,
    key,
    problems: ctx.hub.problems,
    detail:
      ro === undefined
        ? null
        : detailOf({
            rollout: ro,
            replicaSets: sets.replicaSets.values,
            pods: sets.pods.values,
            analysisRuns: sets.analysisRuns.values,
            events: sets.events.values,
            actions: ctx.offers(ro, t),
            now: t,
          }),
  };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Ends every open event stream, then closes the server and its idle connections. */
export function closeServer(server: Server, open: Set<ServerResponse>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const res of open) res.end();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
