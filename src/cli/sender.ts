/**
 * The one way the plugin's requests leave: names checked, a throttled request (429) tried again
 * after its Retry-After, any failure turned into one CliError line naming the server and what
 * was asked; and watches, whose events arrive as (type, object).
 */
import { ANALYSIS_RUN_PLURAL } from '../api/keys.ts';
import { RestClient, type HttpRequest, type HttpTransport } from '../kube/rest.ts';
import { toCliError, type RequestContext } from './errors.ts';
import { checkName } from './names.ts';
import { MAX_THROTTLE_RETRIES, throttleDelayMs } from './throttle.ts';

export type Ask = Omit<RequestContext, 'server'>;

export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
}

/** A list answer as the commands use it. */
export function objectList<T>(raw: unknown): ObjectList<T> {
  const l = raw as { items?: T[]; metadata?: { resourceVersion?: string } };
  return { items: l.items ?? [], resourceVersion: l.metadata?.resourceVersion ?? '' };
}

/** Sends `req`, parses the JSON answer; `ask` says what it is for, in errors. */
export type Send = <T>(ask: Ask, req: HttpRequest) => Promise<T>;

export interface WatchStream {
  stop(): void;
  /** Settles when the stream ends: null for a clean close, else the error. */
  readonly done: Promise<unknown>;
}

export type WatchHandler = (type: string, object: unknown) => void;

export type Watch = (ask: Ask, req: HttpRequest, onEvent: WatchHandler) => WatchStream;

/** The names a request carries, checked as the API server would (src/cli/names.ts). */
function checkRequestNames(ask: Ask): void {
  if (ask.namespace !== undefined) checkName('namespace', ask.namespace);
  if (ask.name !== undefined) {
    checkName(ask.resource.startsWith(ANALYSIS_RUN_PLURAL) ? 'AnalysisRun' : 'rollout', ask.name);
  }
}

/** Server-side watch timeout: 5 to 10 minutes, as client-go picks it, then resumed. */
const watchTimeoutSeconds = (): number => 300 + Math.floor(Math.random() * 300);

export function sender(transport: HttpTransport, server: string): { send: Send; watch: Watch } {
  const rest = new RestClient(transport);
  const meta = (ask: Ask) => ({ verb: ask.verb, resource: ask.resource });
  const send: Send = async <T>(ask: Ask, req: HttpRequest): Promise<T> => {
    // Every request passes here: no name reaches a URL unchecked, whichever command sent it.
    checkRequestNames(ask);
    for (let attempt = 0; ; attempt++) {
      try {
        return await rest.request<T>(req, meta(ask));
      } catch (err) {
        const wait = throttleDelayMs(err);
        if (wait === undefined || attempt >= MAX_THROTTLE_RETRIES) {
          throw toCliError(err, { server, ...ask });
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  const watch: Watch = (ask, req, onEvent) => {
    const ac = new AbortController();
    let settle: (outcome: unknown) => void = () => undefined;
    const done = new Promise<unknown>((resolve) => (settle = resolve));
    try {
      checkRequestNames(ask);
    } catch (err) {
      settle(err);
      return { done, stop: () => undefined };
    }
    const query = {
      ...req.query,
      watch: true,
      allowWatchBookmarks: true,
      timeoutSeconds: watchTimeoutSeconds(),
    };
    rest
      .watch(
        { ...req, query, signal: ac.signal },
        meta(ask),
        (line) => {
          const event = line as { type?: unknown; object?: unknown };
          if (typeof event.type === 'string') onEvent(event.type, event.object);
        },
        (err) => settle(err === undefined ? null : toCliError(err, { server, ...ask })),
      )
      .catch((err: unknown) =>
        settle(ac.signal.aborted ? null : toCliError(err, { server, ...ask })),
      );
    return {
      done,
      stop() {
        ac.abort();
        settle(null);
      },
    };
  };
  return { send, watch };
}
