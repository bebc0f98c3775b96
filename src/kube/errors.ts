/**
 * Errors from talking to the API server, with stable codes (callers branch on the class, `code`
 * and the server's `reason`, never on message text). `toApiError` turns whatever a request threw
 * (a Kubernetes `Status`, client-node's `ApiException`, a watch's HTTP error, a fetch failure)
 * into one of the two classes here.
 */
import { StepwiseError } from '../api/index.ts';

/** Kubernetes `metav1.Status`, as sent in error bodies and watch ERROR events. */
export interface Status {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: {
    readonly name?: string;
    readonly kind?: string;
    readonly retryAfterSeconds?: number;
    readonly causes?: readonly { reason?: string; message?: string; field?: string }[];
  };
}

/** The API server answered with an error status. */
export class ApiStatusError extends StepwiseError {
  override readonly code = 'SW_KUBE_API_STATUS';
  override name = 'ApiStatusError';
  readonly httpStatus: number;
  /** The Status `reason` (`Conflict`, `NotFound`, `Gone`, `Expired`, `TooManyRequests`, …). */
  readonly reason: string;
  readonly retryAfterSeconds: number | undefined;
  readonly status: Status | undefined;

  constructor(
    httpStatus: number,
    reason: string,
    message: string,
    opts: { retryAfterSeconds?: number; status?: Status; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.httpStatus = httpStatus;
    this.reason = reason;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.status = opts.status;
  }
}

/** No answer from the API server: connection refused or reset, TLS failure, timeout, abort. */
export class KubeTransportError extends StepwiseError {
  override readonly code = 'SW_KUBE_TRANSPORT';
  override name = 'KubeTransportError';
  /** The request was aborted on purpose (a stopped informer, a released lease). */
  readonly aborted: boolean;

  constructor(message: string, opts: { aborted?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.aborted = opts.aborted ?? false;
  }
}

export type ApiError = ApiStatusError | KubeTransportError;

const reasonByCode: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

function parseStatus(body: unknown): Status | undefined {
  let b = body;
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b) as unknown;
    } catch {
      return undefined;
    }
  }
  return isRecord(b) && b['kind'] === 'Status' ? b : undefined;
}

function retryAfter(header: string | null | undefined, status: Status | undefined) {
  const h = header === null || header === undefined ? NaN : Number(header);
  if (Number.isFinite(h) && h >= 0) return h;
  return status?.details?.retryAfterSeconds;
}

/**
 * An error from an HTTP status, a `Status` body (object or JSON text) and a `Retry-After` header.
 * Without a Status body the reason comes from the code, as in apimachinery.
 */
export function apiStatusError(
  httpStatus: number,
  body?: unknown,
  retryAfterHeader?: string | null,
  cause?: unknown,
): ApiStatusError {
  const status = parseStatus(body);
  const code = status?.code ?? httpStatus;
  const reason = status?.reason || reasonByCode[code] || 'Unknown';
  const text = typeof body === 'string' && !status ? body.slice(0, 200) : undefined;
  const message = status?.message || text || `HTTP ${code}`;
  return new ApiStatusError(code, reason, message, {
    retryAfterSeconds: retryAfter(retryAfterHeader, status),
    status,
    cause,
  });
}

/** Converts anything a request can throw into an `ApiError` (returns it as is if it already is). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiStatusError || err instanceof KubeTransportError) return err;
  const status = parseStatus(err);
  if (status) return apiStatusError(status.code ?? 500, status);
  if (isRecord(err)) {
    // client-node's ApiException: { code, body, headers }.
    if (typeof err['code'] === 'number' && 'body' in err) {
      const headers = isRecord(err['headers']) ? err['headers'] : {};
      const ra = headers['retry-after'] ?? headers['Retry-After'];
      return apiStatusError(err['code'], err['body'], typeof ra === 'string' ? ra : null, err);
    }
    // client-node's Watch: new Error(statusText) with statusCode.
    if (typeof err['statusCode'] === 'number')
      return apiStatusError(err['statusCode'], undefined, null, err);
  }
  const name = isRecord(err) ? err['name'] : undefined;
  const aborted = name === 'AbortError';
  const message = err instanceof Error ? describe(err) : String(err);
  return new KubeTransportError(message, { aborted, cause: err });
}

function describe(err: Error): string {
  const cause = err.cause;
  if (isRecord(cause) && typeof cause['code'] === 'string')
    return `${err.message} (${cause['code']})`;
  return err.message;
}

function hasReason(err: unknown, reasons: readonly string[], code: number): boolean {
  if (!(err instanceof ApiStatusError)) return false;
  return reasons.includes(err.reason) || (err.reason === 'Unknown' && err.httpStatus === code);
}

/** 409 Conflict: a stale resourceVersion or an apply conflict. Not AlreadyExists. */
export const isConflict = (err: unknown): boolean => hasReason(err, ['Conflict'], 409);
export const isAlreadyExists = (err: unknown): boolean => hasReason(err, ['AlreadyExists'], 409);
export const isNotFound = (err: unknown): boolean => hasReason(err, ['NotFound'], 404);
/** 410: the resourceVersion is too old for a watch (`Expired`, `Gone`); the informer re-lists. */
export const isGone = (err: unknown): boolean =>
  err instanceof ApiStatusError &&
  (err.httpStatus === 410 || ['Gone', 'Expired'].includes(err.reason));
export const isTooManyRequests = (err: unknown): boolean =>
  hasReason(err, ['TooManyRequests'], 429);

/** Worth retrying unchanged: no answer, throttling, timeouts, server errors, conflicts. */
export function isRetriable(err: unknown): boolean {
  if (err instanceof KubeTransportError) return !err.aborted;
  if (!(err instanceof ApiStatusError)) return false;
  if (['Conflict', 'TooManyRequests', 'ServerTimeout', 'Timeout'].includes(err.reason)) return true;
  return err.httpStatus >= 500;
}
