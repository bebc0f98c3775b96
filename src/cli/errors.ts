/**
 * Every failure the plugin reports is ONE line on stderr (`Error: ...`) and exit code 1. Errors
 * from the API client, the network and kubeconfig loading are turned into such lines here, with
 * the context (server, verb, resource, namespace, name) the raw errors lack.
 */
import { API_VERSION, ROLLOUT_PLURAL } from '../api/keys.ts';
import { ApiStatusError, KubeTransportError } from '../kube/errors.ts';
import { sanitiseText } from './sanitise.ts';

export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number;
  /** The HTTP status of the API error this came from, if any (409 → retry, 410 → relist). */
  readonly httpStatus: number | undefined;
  constructor(message: string, opts: { exitCode?: number; httpStatus?: number } = {}) {
    super(message);
    this.exitCode = opts.exitCode ?? 1;
    this.httpStatus = opts.httpStatus;
  }
}

/** What the failed request was about, for the message. */
export interface RequestContext {
  /** https://127.0.0.1:6443 */
  readonly server: string;
  readonly verb: 'get' | 'list' | 'watch' | 'patch' | 'create' | 'delete';
  /** `rollouts`, `rollouts/status`, `replicasets`, `pods` */
  readonly resource: string;
  /** undefined: all namespaces */
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
}

interface StatusBody {
  message?: string;
  reason?: string;
  details?: { name?: string; kind?: string; group?: string };
}

/** The HTTP status of an API server's answer (src/kube's ApiStatusError, or ours made of it). */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof CliError || err instanceof ApiStatusError) return err.httpStatus;
  return undefined;
}

export const isConflict = (err: unknown): boolean => httpStatusOf(err) === 409;

/** What the server said: its Status, or the text it sent instead (none: only the code). */
function statusBody(err: ApiStatusError): StatusBody | undefined {
  if (err.status !== undefined) return err.status;
  return err.message === `HTTP ${err.httpStatus}` ? undefined : { message: err.message };
}

const where = (ns: string | undefined): string =>
  ns === undefined ? 'at the cluster scope' : `in namespace "${ns}"`;

/** `User "u" cannot patch resource "rollouts/status" in API group "g" in the namespace "ns"` */
const FORBIDDEN =
  /User "([^"]*)" cannot (\S+) resource "([^"]+)" in API group "[^"]*"(?: in the namespace "([^"]+)"| at the cluster scope)?/;

/** `... is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: why` */
const POLICY_DENIED =
  /ValidatingAdmissionPolicy '([^']+)' with binding '[^']*' denied request: (.*)$/s;

export function forbiddenMessage(serverMessage: string | undefined, ctx: RequestContext): string {
  const denied = serverMessage !== undefined ? POLICY_DENIED.exec(serverMessage) : null;
  if (denied) {
    const [, policy = '', why = ''] = denied;
    return `refused by the API server (admission policy ${policy}): ${why}`;
  }
  const m = serverMessage !== undefined ? FORBIDDEN.exec(serverMessage) : null;
  if (m) {
    const [, user, verb, resource, ns] = m;
    return `forbidden: user "${user}" cannot ${verb} ${resource} ${where(ns)}`;
  }
  const target = `${ctx.verb} ${ctx.resource} ${where(ctx.namespace)}`;
  return `forbidden: cannot ${target}${serverMessage ? ` (${serverMessage})` : ''}`;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  /** OpenSSL's short reason (`wrong version number`); its message is a long internal line. */
  reason?: unknown;
}

/**
 * The innermost error with a system/TLS `code` in a cause chain (fetch wraps them twice). An
 * undici `fetch failed` whose cause carries no code we know is still a network failure: its
 * innermost message is the best we have.
 */
export function networkCause(err: unknown): { code: string; message: string } | undefined {
  let found: { code: string; message: string } | undefined;
  let fetchFailed = false;
  let innermost: string | undefined;
  const seen = new Set<unknown>();
  const visit = (e: unknown): void => {
    if (typeof e !== 'object' || e === null || seen.has(e)) return;
    seen.add(e);
    const { code, message, cause, errors, reason } = e as ErrorFields;
    const text = typeof message === 'string' && message ? message : undefined;
    if (text === 'fetch failed') fetchFailed = true;
    else if (text !== undefined) innermost = text;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || /CERT|TLS|SSL/.test(code))) {
      const ssl = code.startsWith('ERR_SSL_') && typeof reason === 'string';
      found = { code, message: ssl ? `TLS handshake failed: ${reason}` : (text ?? code) };
    } else if (code === 'EPROTO' && text !== undefined) {
      // node:https's socket error carries OpenSSL's whole line: `...:SSL routines:fn:reason:...`
      const openssl = /:SSL routines:[^:]*:([^:]+):/.exec(text)?.[1];
      found = { code, message: openssl ? `TLS handshake failed: ${openssl}` : text };
    }
    visit(cause);
    if (Array.isArray(errors)) errors.forEach(visit);
  };
  visit(err);
  if (found === undefined && fetchFailed) {
    return { code: 'FETCH_FAILED', message: innermost ?? 'fetch failed' };
  }
  return found;
}

/**
 * A file or program the kubeconfig names that could not be used (a CA or client certificate
 * path, an exec credential plugin): Node's errors say `open` or `spawn`, not which setting.
 */
function kubeconfigCause(err: unknown): string | undefined {
  // Raised in the transport (a token file, a credential plugin): the system error is the cause.
  const system = err instanceof KubeTransportError ? err.cause : err;
  if (typeof system !== 'object' || system === null) return undefined;
  const { syscall, path, code } = system as { syscall?: unknown; path?: unknown; code?: unknown };
  if (typeof path !== 'string' || typeof code !== 'string') return undefined;
  if (syscall === 'open') return `cannot read "${path}" named in the kubeconfig: ${code}`;
  if (typeof syscall === 'string' && syscall.startsWith('spawn')) {
    return `cannot run the kubeconfig's credential plugin "${path}": ${code}`;
  }
  return undefined;
}

const firstLine = (s: string): string => s.split('\n', 1)[0]!.trim();

/** Turns anything a request threw into a one-line CliError. */
export function toCliError(err: unknown, ctx: RequestContext): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof ApiStatusError) {
    const status = err.httpStatus;
    const fail = (message: string): CliError => new CliError(message, { httpStatus: status });
    const body = statusBody(err);
    const msg = body?.message ? firstLine(body.message) : undefined;
    switch (status) {
      case 401:
        return fail(
          `unauthorized: the Kubernetes API at ${ctx.server} rejected the credentials (check --kubeconfig and --context)`,
        );
      case 403:
        return fail(forbiddenMessage(msg, ctx));
      case 404:
        if (ctx.name !== undefined && body?.details?.name === ctx.name) {
          return fail(`rollout "${ctx.name}" not found in namespace "${ctx.namespace ?? ''}"`);
        }
        if (ctx.resource.startsWith(ROLLOUT_PLURAL)) {
          return fail(
            `the server at ${ctx.server} does not serve ${ROLLOUT_PLURAL}.${API_VERSION} (are the Stepwise CRDs installed?)`,
          );
        }
        return fail(`${ctx.verb} ${ctx.resource}: not found${msg ? `: ${msg}` : ''}`);
      case 409:
        return fail(`conflict: ${msg ?? 'the object was changed by someone else'}; try again`);
      default:
        return fail(`${ctx.verb} ${ctx.resource}: HTTP ${status}${msg ? `: ${msg}` : ''}`);
    }
  }
  const net = networkCause(err);
  if (net) {
    return new CliError(
      `cannot reach the Kubernetes API at ${ctx.server}: ${firstLine(net.message)}`,
    );
  }
  const setup = kubeconfigCause(err);
  if (setup !== undefined) return new CliError(`${setup} (connecting to ${ctx.server})`);
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(firstLine(message) || 'unknown error');
}

/** The single line printed for any error that reaches the top level. */
export function errorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Errors quote what the server and others wrote (a status message, a refusal, an admission
  // message): shown as escapes like every other string from the cluster.
  return `Error: ${sanitiseText(firstLine(message)) || 'unknown error'}`;
}
