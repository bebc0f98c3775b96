/**
 * Why a notification was not delivered. The sender retries on `retryable` (waiting at least
 * `retryAfterSeconds` when the far end said so) and branches on `code`, never on the message.
 * Messages name the endpoint by scheme and host only: tokens, webhook paths and queries are
 * secrets and never appear, and no error keeps the HTTP library's error (which holds the
 * request, headers included) as its cause.
 */
import { StepwiseError } from '../api/index.ts';

export abstract class NotifyError extends StepwiseError {
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, opts: { retryable: boolean; retryAfterSeconds?: number }) {
    super(message);
    this.retryable = opts.retryable;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** Slack's Web API answered `{ ok: false, error }`. */
export class SlackApiError extends NotifyError {
  override readonly code = 'SW_NOTIFY_SLACK_API';
  override name = 'SlackApiError';
  /** Slack's error string: `invalid_auth`, `channel_not_found`, `ratelimited`, … */
  readonly slackError: string;
  readonly httpStatus: number;
  constructor(
    slackError: string,
    httpStatus: number,
    message: string,
    opts: { retryable: boolean; retryAfterSeconds?: number },
  ) {
    super(message, opts);
    this.slackError = slackError;
    this.httpStatus = httpStatus;
  }
}

/** The endpoint answered with an HTTP status we do not take as success. */
export class NotifyHttpError extends NotifyError {
  override readonly code = 'SW_NOTIFY_HTTP';
  override name = 'NotifyHttpError';
  readonly httpStatus: number;
  constructor(
    httpStatus: number,
    message: string,
    opts: { retryable: boolean; retryAfterSeconds?: number },
  ) {
    super(message, opts);
    this.httpStatus = httpStatus;
  }
}

/** No usable answer: refused, reset, timed out, cancelled, or an answer too big to read. */
export class NotifyTransportError extends NotifyError {
  override readonly code = 'SW_NOTIFY_TRANSPORT';
  override name = 'NotifyTransportError';
  /** The system or library code (`ECONNREFUSED`, `ECONNRESET`, `ETIMEDOUT`, …), if any. */
  readonly transportCode: string | undefined;
  constructor(message: string, opts: { retryable: boolean; transportCode?: string }) {
    super(message, opts);
    this.transportCode = opts.transportCode;
  }
}
